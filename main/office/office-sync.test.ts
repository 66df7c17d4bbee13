import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { serialize, deserialize } from 'node:v8';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { TestService } from '../../e2e/service/testing.js';
import { startTestService } from '../../e2e/service/testing.js';
import { unpackAssets } from '../../shared/asset-pack.js';
import { ProgressRecordsClient } from '../api/progress-records.js';
import { OfficeSync } from './office-sync.js';
import { RecordsStore } from './records-store.js';

// The office sync's Assets channel (progress-records-interface.md §4 GET /api/external-assets) as
// the window calls it: the answer packed in columns (shared/asset-pack.ts) and a call given up
// when the person chooses another category.

let svc: TestService;
let dir: string;
let officeSync: OfficeSync;
beforeAll(async () => {
  svc = await startTestService();
});
afterAll(() => svc.stop());
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'office-sync-'));
  const config = {
    baseUrl: svc.info.progressBaseUrl,
    apiKey: svc.info.apiKey,
    projectId: svc.info.projectId,
    ...svc.info.account,
  };
  officeSync = new OfficeSync(
    dir,
    () => ({ client: new ProgressRecordsClient(config, { retry: { retries: 0, delayMs: () => 0 } }), scope: 'test' }),
    () => [],
  );
});
afterEach(async () => {
  await svc.admin('DELETE', '/faults');
  officeSync.close();
  rmSync(dir, { recursive: true, force: true });
});

const list = (signal?: AbortSignal) => {
  const assets = officeSync.handlers()['capture:assets.list'];
  return assets({ structure: svc.info.structures[0]!, category: 'Curtain Wall' }, signal!);
};

describe("the office sync's assets", () => {
  it("answers a structure's assets packed, which unpack to what the service holds, point for point", async () => {
    const answer = await list();
    // The IPC's structured clone (the utility process's, the fork's) carries the typed arrays as they are.
    const packed = (deserialize(serialize(answer)) as typeof answer).assets;
    expect(packed.xy).toBeInstanceOf(Float64Array);
    const cat = svc.store.state.assetCategories.find((c) => c.name === 'Curtain Wall')!;
    const held = (
      svc.store.state.assets as unknown as {
        _id: string;
        structure: string;
        category: string;
        points: { x: number; y: number }[];
        stages: { percentage: number }[];
      }[]
    ).filter((a) => a.structure === svc.info.structures[0] && a.category === cat.id);
    expect(held.length).toBeGreaterThan(0);
    const got = unpackAssets(packed);
    expect(got.map((a) => a._id)).toEqual(held.map((a) => a._id));
    expect(got.map((a) => a.points)).toEqual(held.map((a) => a.points.map((p) => ({ x: p.x, y: p.y }))));
    expect(got.map((a) => a.stages.map((s) => s.percentage))).toEqual(
      held.map((a) => a.stages.map((s) => s.percentage)),
    );
  });

  it('gives up the request at the service when the call is cancelled, and keeps nothing of it', async () => {
    await svc.admin('POST', '/faults', { target: 'progress', operation: 'external-assets', action: { type: 'hang' } });
    const ac = new AbortController();
    const call = list(ac.signal);
    for (let i = 0; i < 100 && svc.faults.held.length === 0; i++) await new Promise((r) => setTimeout(r, 20));
    const held = svc.faults.held.at(-1)!;
    ac.abort();
    await expect(call).rejects.toThrow();
    for (let i = 0; i < 100 && held.closedAt === undefined; i++) await new Promise((r) => setTimeout(r, 20));
    expect(held.closedAt).toBeDefined();
    const store = RecordsStore.open(join(dir, 'records.db'));
    try {
      expect(store.read('test', `assets:${svc.info.structures[0]}:Curtain Wall`)).toBeUndefined();
    } finally {
      store.close();
    }
  });
});

describe('a read the progress service refuses', () => {
  it('says to ask for access, and offers no discard: there is no entry to give up', async () => {
    await svc.admin('POST', '/faults', {
      target: 'progress',
      operation: 'progress',
      method: 'GET',
      times: 0,
      action: { type: 'json', status: 403, body: { status: false, message: 'Forbidden for this key' } },
    });
    await expect(officeSync.handlers()['capture:progress.list']({}, undefined!)).rejects.toThrow(
      /^The progress service does not allow this \(Forbidden for this key\): ask an administrator of the project for access\.$/,
    );
  });
});
