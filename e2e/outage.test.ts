import { GetObjectCommand } from '@aws-sdk/client-s3';
import { spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestService } from './service/testing.js';
import { startTestService, uploaderEnv } from './service/testing.js';

// The overnight promise, scripted: a card is dropped while the gateway refuses add-capture with
// 503 and storage answers every UploadPart with 503; `drain --wait` runs with the real retry
// schedule (15 s, 30 s, 60 s… with jitter) through a 60 s outage, then finishes on its own.
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const CLI = join(ROOT, 'main/cli/index.ts');
const MiB = 1024 * 1024;
const OUTAGE_MS = 60_000;
const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

let svc: TestService;
let work: string;
beforeAll(async () => {
  svc = await startTestService();
  work = mkdtempSync(join(tmpdir(), 'outage-'));
});
afterAll(async () => {
  await svc.stop();
  rmSync(work, { recursive: true, force: true });
});

function cli(dataDir: string, args: string[]): Promise<{ code: number | null; out: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', CLI, ...args], {
    cwd: ROOT,
    env: { ...process.env, ...uploaderEnv(svc.info, dataDir), NODE_NO_WARNINGS: '1' },
  });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (out += d.toString()));
  return new Promise((resolve) => child.on('exit', (code) => resolve({ code, out })));
}

describe('a 60 s outage of the gateway and storage', () => {
  it('is survived by drain --wait: every object byte-identical, no capture registered twice, no part stored twice', async () => {
    const dataDir = join(work, 'queue');
    const card = mkdtempSync(join(work, 'card-'));
    const files = new Map<string, Buffer>([
      ['VID_20261123_013000_00_001.insv', randomBytes(6 * MiB + 11)],
      ['VID_20261123_013000_10_001.insv', randomBytes(6 * MiB + 22)],
      ['VID_20261123_014500_00_002.insv', randomBytes(700_000)],
    ]);
    for (const [name, bytes] of files) writeFileSync(join(card, name), bytes);
    const capturesBefore = Object.keys(svc.store.state.captures).length;
    const replacedBefore = svc.storage.stats.partsReplaced;

    await svc.admin('POST', '/faults', {
      target: 'gateway',
      operation: 'add-capture',
      times: 0,
      action: { type: 'status', status: 503 },
    });
    await svc.admin('POST', '/faults', {
      target: 'storage',
      operation: 'UploadPart',
      times: 0,
      action: { type: 'status', status: 503 },
    });
    const outageEnds = Date.now() + OUTAGE_MS;

    const add = await cli(dataDir, ['add', '--structure', svc.info.structures[0]!, '--type', 'interior', card]);
    // Queued but not registered: work left that goes on by itself, so add says so with 3.
    expect(add.code, add.out).toBe(3);
    expect(add.out).toMatch(/queued capture 1 .*: queued — Not registered yet/);

    const draining = cli(dataDir, ['drain', '--wait']);
    // Halfway through, let registration through while storage is still down: the files then wait too.
    await new Promise((r) => setTimeout(r, OUTAGE_MS / 2));
    await svc.admin('DELETE', '/faults');
    await svc.admin('POST', '/faults', {
      target: 'storage',
      operation: 'UploadPart',
      times: 0,
      action: { type: 'status', status: 503 },
    });
    await new Promise((r) => setTimeout(r, outageEnds - Date.now()));
    await svc.admin('DELETE', '/faults');

    const drained = await draining;
    expect(drained.code, drained.out).toBe(0);
    expect(drained.out).toMatch(/retrying +.*(Trying|Sent) again at/);
    expect(drained.out).toMatch(/3 file\(s\) completed, 0 failed, 0 paused, 0 waiting to be sent\./);

    const registered = Object.values(svc.store.state.captures).slice(capturesBefore);
    expect(registered).toHaveLength(2); // a dual-lens pair and a single lens: two captures, once each
    for (const [name, bytes] of files) {
      const capture = registered.find((c) => JSON.stringify(c.request).includes(name))!;
      const uploadId = capture.uploadIds.find((id) => svc.store.state.uploads[id]!.key.endsWith(name))!;
      const res = await svc
        .s3()
        .send(new GetObjectCommand({ Bucket: svc.info.s3.bucket, Key: svc.store.state.uploads[uploadId]!.key }));
      expect(sha256(Buffer.from(await res.Body!.transformToByteArray())), name).toBe(sha256(bytes));
    }
    expect(svc.storage.stats.partsReplaced - replacedBefore).toBe(0);
  }, 300_000);
});
