import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MiB, sha256, useCliKit } from '../main/testing/kit.js';
import { randomCard } from '../main/testing/e2e-card.js';

// The overnight promise, scripted: a card is dropped while the gateway refuses add-capture with
// 503 and a Retry-After (its maintenance answer: not processed, docs/decisions/0039-add-capture-503.md)
// and storage answers every UploadPart with 503; `drain --wait` runs with the real retry
// schedule (15 s, 30 s, 60 s… with jitter) through a 60 s outage, then finishes on its own.
const OUTAGE_MS = 60_000;

const kit = useCliKit('outage');

const cli = (dataDir: string, args: string[]) => kit.run(dataDir, args);

describe('a 60 s outage of the gateway and storage', () => {
  it('is survived by drain --wait: every object byte-identical, no capture registered twice, no part stored twice', async () => {
    const dataDir = join(kit.work, 'queue');
    const { card, files } = randomCard(kit.work, 'card-', [
      ['VID_20261123_013000_00_001.insv', 6 * MiB + 11],
      ['VID_20261123_013000_10_001.insv', 6 * MiB + 22],
      ['VID_20261123_014500_00_002.insv', 700_000],
    ]);
    const capturesBefore = Object.keys(kit.svc.store.state.captures).length;
    const replacedBefore = kit.svc.storage.stats.partsReplaced;

    await kit.svc.admin('POST', '/faults', {
      target: 'gateway',
      operation: 'add-capture',
      times: 0,
      action: { type: 'status', status: 503, retryAfter: '15' },
    });
    await kit.svc.admin('POST', '/faults', {
      target: 'storage',
      operation: 'UploadPart',
      times: 0,
      action: { type: 'status', status: 503 },
    });
    const outageEnds = Date.now() + OUTAGE_MS;

    const add = await cli(dataDir, ['add', '--structure', kit.structure(), '--type', 'interior', card]);
    // Queued but not registered: work left that goes on by itself, so add says so with 3.
    expect(add.code, add.out).toBe(3);
    expect(add.out).toMatch(/queued capture 1 .*: queued — Not registered yet/);

    const draining = cli(dataDir, ['drain', '--wait']);
    // Halfway through, let registration through while storage is still down: the files then wait too.
    await new Promise((r) => setTimeout(r, OUTAGE_MS / 2));
    await kit.svc.admin('DELETE', '/faults');
    await kit.svc.admin('POST', '/faults', {
      target: 'storage',
      operation: 'UploadPart',
      times: 0,
      action: { type: 'status', status: 503 },
    });
    await new Promise((r) => setTimeout(r, outageEnds - Date.now()));
    await kit.svc.admin('DELETE', '/faults');

    const drained = await draining;
    expect(drained.code, drained.out).toBe(0);
    expect(drained.out).toMatch(/retrying +.*(Trying|Sent) again at/);
    expect(drained.out).toMatch(/3 file\(s\) completed, 0 failed, 0 paused, 0 waiting to be sent\./);

    const registered = Object.values(kit.svc.store.state.captures).slice(capturesBefore);
    expect(registered).toHaveLength(2); // a dual-lens pair and a single lens: two captures, once each
    for (const [name, bytes] of files) {
      const capture = registered.find((c) => JSON.stringify(c.request).includes(name))!;
      const uploadId = capture.uploadIds.find((id) => kit.svc.store.state.uploads[id]!.key.endsWith(name))!;
      const stored = await kit.object(kit.svc.store.state.uploads[uploadId]!.key);
      expect(stored.sha256, name).toBe(sha256(bytes));
    }
    expect(kit.svc.storage.stats.partsReplaced - replacedBefore).toBe(0);
  }, 300_000);
});
