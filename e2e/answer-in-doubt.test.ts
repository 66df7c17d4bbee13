import { GetObjectCommand } from '@aws-sdk/client-s3';
import type { ChildProcess } from 'node:child_process';
import { spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { TestService } from './service/testing.js';
import { startTestService, uploaderEnv } from './service/testing.js';

// Reproduced: storage, like real S3, takes a while after a part's last byte before it
// stores the part and answers, and keeps a whole body even when the client has gone. Ctrl-C in
// that moment, then `drain` again at once: presign-missing still lists the part (storage has not
// stored it yet), and a client that trusts that first answer sends the part a second time.
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const CLI = join(ROOT, 'main/cli/index.ts');
const MiB = 1024 * 1024;
// Longer than the 5 s a fully sent part is given for its answer on quit, so the part is truly
// left in doubt; shorter than the 15 s the next start waits for such a part (main/engine/in-doubt.ts).
const STORE_DELAY_MS = 8000;
const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

let svc: TestService;
let work: string;
beforeAll(async () => {
  svc = await startTestService();
  work = mkdtempSync(join(tmpdir(), 'answer-in-doubt-'));
});
afterAll(async () => {
  await svc.stop();
  rmSync(work, { recursive: true, force: true });
});

function cli(
  dataDir: string,
  args: string[],
): { child: ChildProcess; done: Promise<{ code: number | null; signal: string | null; out: string }> } {
  const child = spawn(process.execPath, ['--import', 'tsx', CLI, '--concurrency', '1', ...args], {
    cwd: ROOT,
    env: { ...process.env, ...uploaderEnv(svc.info, dataDir), NODE_NO_WARNINGS: '1' },
  });
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  return { child, done: new Promise((resolve) => child.on('exit', (code, signal) => resolve({ code, signal, out }))) };
}

async function queued(name: string, size: number): Promise<{ dataDir: string; bytes: Buffer }> {
  const dataDir = join(work, name);
  const file = join(work, `${name}.mp4`);
  const bytes = randomBytes(size);
  writeFileSync(file, bytes);
  const add = await cli(dataDir, ['add', '--structure', svc.info.structures[0]!, '--type', 'interior', file]).done;
  expect(add.code, add.out).toBe(0);
  return { dataDir, bytes };
}

const puts = () => svc.storage.received.filter((r) => r.operation === 'UploadPart');

async function storedHash(size: number): Promise<string> {
  const upload = Object.values(svc.store.state.uploads).find((u) => u.size === size)!;
  const res = await svc.s3().send(new GetObjectCommand({ Bucket: svc.info.s3.bucket, Key: upload.key }));
  return sha256(Buffer.from(await res.Body!.transformToByteArray()));
}

describe('Ctrl-C while storage is storing a part whose whole body arrived', () => {
  afterEach(async () => {
    await svc.admin('PUT', '/settings', { partStoreDelayMs: 0 });
    await svc.admin('DELETE', '/faults');
  });

  it('the next drain, started at once, does not send that part again; the object is byte-identical', async () => {
    const { dataDir, bytes } = await queued('longer-than-quit', 5 * MiB + 3 * MiB + 17); // two parts, one sent at a time
    await svc.admin('PUT', '/settings', { partStoreDelayMs: STORE_DELAY_MS });
    const before = { ...svc.storage.stats };
    const putsBefore = puts().length;
    const first = cli(dataDir, ['drain']);
    // Part 1's whole body is in storage, which is now storing it: Ctrl-C.
    while (svc.storage.stats.partBodiesReceived === before.partBodiesReceived) await sleep(20);
    first.child.kill('SIGINT');
    const stopped = await first.done;
    expect(stopped.code, stopped.out).toBe(130);
    expect(
      svc.storage.stats.partsStored - before.partsStored,
      'stored before the next drain began: the test proves nothing',
    ).toBe(0);
    const last = await cli(dataDir, ['drain']).done;
    expect(last.code, last.out).toBe(0);
    const sent = puts().slice(putsBefore);
    expect(sent.filter((r) => r.partNumber === 1).length, 'PUTs of part 1').toBe(1);
    expect(sent.filter((r) => r.partNumber === 2).length, 'PUTs of part 2').toBe(1);
    expect(svc.storage.stats.partsReplaced - before.partsReplaced, 'a part was stored twice').toBe(0);
    expect(await storedHash(bytes.length)).toBe(sha256(bytes));
  }, 120_000);

  it('an answer that comes within a few seconds is waited for on Ctrl-C, and its ETag kept', async () => {
    const { dataDir, bytes } = await queued('within-quit', 5 * MiB + 2 * MiB + 5);
    await svc.admin('PUT', '/settings', { partStoreDelayMs: 2500 });
    const before = { ...svc.storage.stats };
    const putsBefore = puts().length;
    const first = cli(dataDir, ['drain']);
    while (svc.storage.stats.partBodiesReceived === before.partBodiesReceived) await sleep(20);
    first.child.kill('SIGINT');
    const stopped = await first.done;
    expect(stopped.code, stopped.out).toBe(130);
    // The drain ended only after storage's answer: the part is stored, and the queue has its ETag.
    expect(svc.storage.stats.partsStored - before.partsStored).toBe(1);
    const status = await cli(dataDir, ['status', '--json']).done;
    expect(status.out).toMatch(/"storedParts":1\b/);
    const last = await cli(dataDir, ['drain']).done;
    expect(last.code, last.out).toBe(0);
    expect(
      puts()
        .slice(putsBefore)
        .map((r) => r.partNumber)
        .sort(),
    ).toEqual([1, 2]);
    expect(svc.storage.stats.partsReplaced - before.partsReplaced).toBe(0);
    expect(await storedHash(bytes.length)).toBe(sha256(bytes));
  }, 120_000);

  it('an answer lost mid-run, then a crash while the part is in doubt: the next drain, started at once, does not send it again', async () => {
    const { dataDir, bytes } = await queued('crash-in-doubt', 2 * MiB + 9); // one part: nothing else in flight at the kill
    await svc.admin('PUT', '/settings', { partStoreDelayMs: STORE_DELAY_MS });
    // The connection drops as part 1's last byte arrives; storage stores it STORE_DELAY_MS later.
    await svc.admin('POST', '/faults', {
      target: 'storage',
      operation: 'UploadPart',
      partNumber: 1,
      times: 1,
      action: { type: 'dropWhileStoring' },
    });
    const before = { ...svc.storage.stats };
    const putsBefore = puts().length;
    const first = cli(dataDir, ['drain']);
    while (svc.storage.stats.partBodiesReceived === before.partBodiesReceived) await sleep(20);
    await sleep(1000); // the client has seen the connection drop, and is asking whether storage has the part
    first.child.kill('SIGKILL');
    const killed = await first.done;
    expect(killed.signal).toBe('SIGKILL');
    expect(
      svc.storage.stats.partsStored - before.partsStored,
      'stored before the next drain began: the test proves nothing',
    ).toBe(0);
    const last = await cli(dataDir, ['drain']).done;
    expect(last.code, last.out).toBe(0);
    const sent = puts().slice(putsBefore);
    expect(
      sent.map((r) => r.partNumber),
      'PUTs',
    ).toEqual([1]);
    expect(svc.storage.stats.partsStored - before.partsStored).toBe(1);
    expect(svc.storage.stats.partsReplaced - before.partsReplaced, 'a part was stored twice').toBe(0);
    expect(await storedHash(bytes.length)).toBe(sha256(bytes));
  }, 120_000);

  it('a part in doubt that storage never got is sent again once the settle time is over, and stored once', async () => {
    const { dataDir, bytes } = await queued('never-arrived', 1 * MiB + 3);
    // Storage takes the request and never reads its body: every byte leaves the client into the
    // system's buffers, no answer comes, and the reset on quit drops them.
    await svc.admin('POST', '/faults', {
      target: 'storage',
      operation: 'UploadPart',
      times: 1,
      action: { type: 'hang' },
    });
    const before = { ...svc.storage.stats };
    const putsBefore = puts().length;
    const first = cli(dataDir, ['drain']);
    while (puts().length === putsBefore) await sleep(20);
    await sleep(1500); // the 1 MiB is in the system's buffers by now
    first.child.kill('SIGINT');
    const stopped = await first.done;
    expect(stopped.code, stopped.out).toBe(130);
    const last = await cli(dataDir, ['drain']).done;
    expect(last.code, last.out).toBe(0);
    expect(puts().length - putsBefore, 'the hung PUT and one more').toBe(2);
    expect(svc.storage.stats.partsStored - before.partsStored).toBe(1);
    expect(svc.storage.stats.partsReplaced - before.partsReplaced).toBe(0);
    expect(await storedHash(bytes.length)).toBe(sha256(bytes));
  }, 120_000);
});
