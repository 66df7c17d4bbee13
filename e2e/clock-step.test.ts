import { GetObjectCommand } from '@aws-sdk/client-s3';
import type { ChildProcess } from 'node:child_process';
import { spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { TestService } from './service/testing.js';
import { startTestService, uploaderEnv } from './service/testing.js';

// The CLI as a child whose wall clock is stepped while it runs: libfaketime reads
// the offset from a file the test rewrites (FAKETIME_NO_CACHE: at every call), and leaves the
// monotonic clock alone (DONT_FAKE_MONOTONIC), as an NTP correction or a DST step does.
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const CLI = join(ROOT, 'main/cli/index.ts');
const FAKETIME = '/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1';
const MiB = 1024 * 1024;
const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

let svc: TestService;
let work: string;
beforeAll(async () => {
  if (!existsSync(FAKETIME)) throw new Error(`libfaketime is needed at ${FAKETIME} (Debian package faketime)`);
  svc = await startTestService();
  work = mkdtempSync(join(tmpdir(), 'clock-step-'));
});
afterEach(async () => {
  await svc.admin('DELETE', '/faults');
  await svc.admin('PUT', '/settings', { bandwidthBytesPerSecond: null, presignExpiresIn: 3600 });
});
afterAll(async () => {
  await svc.stop();
  rmSync(work, { recursive: true, force: true });
});

interface Run {
  child: ChildProcess;
  done: Promise<{ code: number | null; signal: string | null; out: string }>;
}

/** Runs the CLI; with `clockFile`, under libfaketime reading its wall-clock offset from that file. */
function cli(dataDir: string, args: string[], clockFile?: string): Run {
  const faked = clockFile
    ? { LD_PRELOAD: FAKETIME, FAKETIME_TIMESTAMP_FILE: clockFile, FAKETIME_NO_CACHE: '1', DONT_FAKE_MONOTONIC: '1' }
    : {};
  const child = spawn(process.execPath, ['--import', 'tsx', CLI, ...args], {
    cwd: ROOT,
    env: { ...process.env, ...uploaderEnv(svc.info, dataDir), NODE_NO_WARNINGS: '1', ...faked },
  });
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  const done = new Promise<{ code: number | null; signal: string | null; out: string }>((resolve) =>
    child.on('exit', (code, signal) => resolve({ code, signal, out })),
  );
  return { child, done };
}

/** Resolves with the run's end, or with undefined once `ms` passed without it (the child is then killed). */
async function within(run: Run, ms: number) {
  const timer = setTimeout(() => run.child.kill('SIGKILL'), ms);
  const res = await run.done;
  clearTimeout(timer);
  return res.signal === 'SIGKILL' ? undefined : res;
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

async function storedBytes(size: number): Promise<Buffer> {
  const upload = Object.values(svc.store.state.uploads)
    .filter((u) => u.size === size)
    .at(-1)!;
  const res = await svc.s3().send(new GetObjectCommand({ Bucket: svc.info.s3.bucket, Key: upload.key }));
  return Buffer.from(await res.Body!.transformToByteArray());
}

const uploadParts = () => svc.storage.received.filter((r) => r.operation === 'UploadPart').length;

describe('the wall clock stepped while the uploader runs', () => {
  it('a retry scheduled before the clock stepped back an hour still happens on time', async () => {
    const { dataDir, bytes } = await queued('retry-step', 1 * MiB + 7);
    // The first try and its four retries fail: the file waits on the durable schedule (about 15 s).
    await svc.admin('POST', '/faults', {
      target: 'storage',
      operation: 'UploadPart',
      times: 5,
      action: { type: 'status', status: 500 },
    });
    const clockFile = join(work, 'retry-step.clock');
    writeFileSync(clockFile, '+0\n');
    const before = uploadParts();
    const run = cli(dataDir, ['drain', '--wait'], clockFile);
    while (uploadParts() < before + 5) await sleep(100);
    await sleep(500); // the file's retry time is written
    writeFileSync(clockFile, '-1h\n');
    // On time means within the schedule's first wait (15 s) and then the upload; an hour's wait is not.
    const res = await within(run, 60_000);
    expect(res, 'the drain was still waiting a minute after the clock stepped back').toBeDefined();
    expect(res!.code, res!.out).toBe(0);
    expect(uploadParts()).toBe(before + 6);
    expect(sha256(await storedBytes(bytes.length))).toBe(sha256(bytes));
  }, 120_000);

  it('with --bandwidth 64k, a step back does not freeze uploads, and SIGINT ends the process', async () => {
    const { dataDir, bytes } = await queued('bandwidth-step', 3 * MiB);
    const clockFile = join(work, 'bandwidth-step.clock');
    writeFileSync(clockFile, '+0\n');
    const run = cli(dataDir, ['--bandwidth', '64k', 'drain'], clockFile);
    const start = svc.storage.bytesReceived;
    while (svc.storage.bytesReceived < start + 64 * 1024) await sleep(100);
    writeFileSync(clockFile, '-1h\n');
    await sleep(1500);
    const afterStep = svc.storage.bytesReceived;
    await sleep(3000);
    expect(
      svc.storage.bytesReceived,
      'no byte reached storage in the 3 s after the clock stepped back',
    ).toBeGreaterThan(afterStep);
    run.child.kill('SIGINT');
    const res = await within(run, 15_000);
    expect(res, 'the process did not exit after SIGINT').toBeDefined();
    expect(res!.code, res!.out).toBe(130);
    // What was left goes on from the parts stored, and the object is whole.
    const last = await cli(dataDir, ['drain']).done;
    expect(last.code, last.out).toBe(0);
    expect(sha256(await storedBytes(bytes.length))).toBe(sha256(bytes));
  }, 120_000);

  it('a retry scheduled before the clock stepped forward a day and an hour happens on time, once', async () => {
    const { dataDir, bytes } = await queued('retry-step-forward', 1 * MiB + 11);
    await svc.admin('POST', '/faults', {
      target: 'storage',
      operation: 'UploadPart',
      times: 5,
      action: { type: 'status', status: 500 },
    });
    const clockFile = join(work, 'retry-step-forward.clock');
    writeFileSync(clockFile, '+0\n');
    const before = uploadParts();
    const run = cli(dataDir, ['drain', '--wait'], clockFile);
    while (uploadParts() < before + 5) await sleep(100);
    await sleep(500); // the file's retry time is written
    writeFileSync(clockFile, '+25h\n');
    const res = await within(run, 60_000);
    expect(res, 'the drain was still waiting a minute after the clock stepped forward').toBeDefined();
    expect(res!.code, res!.out).toBe(0);
    // The five refused tries and one more: not a burst of tries, not a part sent twice.
    expect(uploadParts()).toBe(before + 6);
    expect(sha256(await storedBytes(bytes.length))).toBe(sha256(bytes));
  }, 120_000);

  it('stepped forward a day and an hour mid-drain: no presigned URL used after it expired, nothing sent twice', async () => {
    // Four parts one after another at 2 MiB/s (about 10 s), with URLs that live 6 s: the last parts
    // need URLs presigned again, judged by the real passing of time, not by the stepped clock.
    const { dataDir, bytes } = await queued('drain-step-forward', 3 * 5 * MiB + 2 * MiB + 9);
    await svc.admin('PUT', '/settings', { presignExpiresIn: 6 });
    const clockFile = join(work, 'drain-step-forward.clock');
    writeFileSync(clockFile, '+0\n');
    const before = uploadParts();
    const run = cli(dataDir, ['--bandwidth', '2M', '--concurrency', '1', 'drain'], clockFile);
    while (uploadParts() < before + 2) await sleep(50);
    writeFileSync(clockFile, '+25h\n');
    const res = await within(run, 90_000);
    expect(res, 'the drain did not end within 90 s of the step').toBeDefined();
    expect(res!.code, res!.out).toBe(0);
    // Storage checks each URL's expiry on the real clock; a PUT with an expired URL is refused and
    // sent again, so one PUT per part means none was used after it expired, and none was resent.
    expect(uploadParts() - before).toBe(4);
    expect(sha256(await storedBytes(bytes.length))).toBe(sha256(bytes));
  }, 150_000);
});
