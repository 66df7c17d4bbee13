import { GetObjectCommand } from '@aws-sdk/client-s3';
import type { ChildProcess } from 'node:child_process';
import { spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestService } from './service/testing.js';
import { startTestService, uploaderEnv } from './service/testing.js';

// As a person meets it: `capture-uploader drain` stopped with Ctrl-C (SIGINT) at
// seeded random instants, 50 times in a row on one queue, each run started as soon as the last
// exited; then one drain to the end. No part may be stored twice.
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const CLI = join(ROOT, 'main/cli/index.ts');
const MiB = 1024 * 1024;
const RUNS = 50;
const FILES = 12;
const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

function prng(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

let svc: TestService;
let work: string;
beforeAll(async () => {
  svc = await startTestService();
  work = mkdtempSync(join(tmpdir(), 'interrupt-drain-'));
});
afterAll(async () => {
  await svc.stop();
  rmSync(work, { recursive: true, force: true });
});

function cli(
  dataDir: string,
  args: string[],
): { child: ChildProcess; done: Promise<{ code: number | null; signal: string | null; out: string }> } {
  const child = spawn(process.execPath, ['--import', 'tsx', CLI, '--concurrency', '2', ...args], {
    cwd: ROOT,
    env: { ...process.env, ...uploaderEnv(svc.info, dataDir), NODE_NO_WARNINGS: '1' },
  });
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  return { child, done: new Promise((resolve) => child.on('exit', (code, signal) => resolve({ code, signal, out }))) };
}

describe('drain stopped by Ctrl-C at random instants', () => {
  it(`${RUNS} interrupted drains, then one to the end: no part stored twice, every object byte-identical`, async () => {
    const dataDir = join(work, 'queue');
    const cards = join(work, 'cards');
    mkdirSync(cards);
    const random = prng(17_16);
    const files = new Map<number, string>(); // size → SHA-256; sizes differ so each object is found by its size
    for (let i = 0; i < FILES; i++) {
      const bytes = randomBytes(5 * MiB + 1 + i * 4099 + Math.floor(random() * 4096)); // two parts
      files.set(bytes.length, sha256(bytes));
      writeFileSync(join(cards, `walk-${i}.mp4`), bytes);
    }
    const add = await cli(dataDir, ['add', '--structure', svc.info.structures[0]!, '--type', 'interior', cards]).done;
    expect(add.code, add.out).toBe(0);
    const before = { ...svc.storage.stats };
    // Slow enough that parts are in flight, and the system's buffers full, when Ctrl-C comes.
    await svc.admin('PUT', '/settings', { bandwidthBytesPerSecond: 1 * MiB });
    for (let run = 0; run < RUNS; run++) {
      const drain = cli(dataDir, ['drain']);
      const after = 1200 + Math.floor(random() * 2500); // the CLI takes about a second to start
      const timer = setTimeout(() => drain.child.kill('SIGINT'), after);
      const res = await drain.done;
      clearTimeout(timer);
      // 130: stopped by the CLI's handler; killed by the signal itself: Ctrl-C came before the CLI had started.
      expect([0, 130, 'SIGINT'], `run ${run}: ${res.out}`).toContain(res.code ?? res.signal);
      expect(
        svc.storage.stats.partsReplaced - before.partsReplaced,
        `run ${run}, Ctrl-C after ${after} ms: a part was stored twice`,
      ).toBe(0);
    }
    await svc.admin('PUT', '/settings', { bandwidthBytesPerSecond: null });
    const last = await cli(dataDir, ['drain']).done;
    expect(last.code, last.out).toBe(0);
    expect(svc.storage.stats.partsReplaced - before.partsReplaced).toBe(0);
    for (const [size, digest] of files) {
      const upload = Object.values(svc.store.state.uploads).find((u) => u.size === size)!;
      const res = await svc.s3().send(new GetObjectCommand({ Bucket: svc.info.s3.bucket, Key: upload.key }));
      expect(sha256(Buffer.from(await res.Body!.transformToByteArray())), `file of ${size} bytes`).toBe(digest);
    }
  }, 900_000);
});
