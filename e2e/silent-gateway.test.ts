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

// A silent capture gateway (docs/engine.md, "A silent capture gateway"): mid-drain, the gateway
// accepts every connection and then reads and answers nothing, for 70 s (longer than a call's
// 60 s idle timeout, so a call is given up and sent again into the same silence); then it answers
// again. `drain --wait` runs as a person runs it, with the product's own stall timeout (30 s);
// `status` is asked from another process, as the tray and the app ask the queue.
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const CLI = join(ROOT, 'main/cli/index.ts');
const MiB = 1024 * 1024;
const SILENCE_MS = 70_000;
const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

let svc: TestService;
let work: string;
beforeAll(async () => {
  svc = await startTestService();
  work = mkdtempSync(join(tmpdir(), 'silent-gateway-'));
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

const statusLine = async (dataDir: string) => (await cli(dataDir, ['status'])).out.split('\n')[0] ?? '';

describe('a silent capture gateway', () => {
  it('is "Waiting for the gateway" within 60 s of its silence, until it answers again; the drain then completes, byte for byte, no part sent twice', async () => {
    const dataDir = join(work, 'queue');
    const card = mkdtempSync(join(work, 'card-'));
    const files = new Map<string, Buffer>([
      ['stair-a.mp4', randomBytes(12 * MiB + 5)],
      ['stair-b.mp4', randomBytes(12 * MiB + 9)],
    ]);
    for (const [name, bytes] of files) writeFileSync(join(card, name), bytes);
    const add = await cli(dataDir, [
      'add',
      '--structure',
      svc.info.structures[0]!,
      '--type',
      'interior',
      ...[...files.keys()].map((n) => join(card, n)),
    ]);
    expect([0, 3], add.out).toContain(add.code);

    // Slow enough that parts are on the wire when the gateway falls silent.
    await svc.admin('PUT', '/settings', { bandwidthBytesPerSecond: 2 * MiB });
    const from = svc.storage.received.length;
    const draining = cli(dataDir, ['drain', '--wait']);
    while (svc.storage.bytesReceived < 4 * MiB) await sleep(50);
    await svc.admin('POST', '/faults', { target: 'gateway', times: 0, action: { type: 'hang' } });
    await svc.admin('PUT', '/settings', { bandwidthBytesPerSecond: null });

    // Its silence begins with the first call it holds (complete-batch, presign-missing or a status read).
    while (!svc.faults.held.some((h) => h.target === 'gateway')) await sleep(50);
    const heldAt = svc.faults.held.find((h) => h.target === 'gateway')!.at;
    let first = '';
    do first = await statusLine(dataDir);
    while (!/^Waiting for the gateway/.test(first) && performance.now() - heldAt < 75_000);
    const shownAfter = performance.now() - heldAt;
    expect(first, `status ${Math.round(shownAfter / 1000)} s after the gateway fell silent`).toMatch(
      /^Waiting for the gateway — since .* · network down · /,
    );
    expect(shownAfter).toBeLessThan(60_000);
    const state = (JSON.parse((await cli(dataDir, ['status', '--json'])).out) as { state: { kind: string } }).state;
    expect(state.kind).toBe('waiting-gateway');
    while (performance.now() - heldAt < SILENCE_MS) {
      await sleep(10_000);
      expect(await statusLine(dataDir)).toMatch(/^Waiting for the gateway — since /);
    }

    // The gateway answers again: the calls it held go on.
    await svc.admin('DELETE', '/faults');
    const drained = await draining;
    expect(drained.code, drained.out).toBe(0);
    expect(await statusLine(dataDir)).toMatch(/^All 2 files uploaded/);

    const puts = new Map<string, number>();
    for (const r of svc.storage.received.slice(from))
      if (r.operation === 'UploadPart')
        puts.set(
          `${r.key!.split('/').at(-1)} ${r.partNumber}`,
          (puts.get(`${r.key!.split('/').at(-1)} ${r.partNumber}`) ?? 0) + 1,
        );
    expect(puts.size, 'parts sent').toBe(6);
    expect(
      [...puts].filter(([, n]) => n > 1),
      'parts sent twice',
    ).toEqual([]);
    for (const [name, bytes] of files) {
      const upload = Object.values(svc.store.state.uploads).find((u) => u.key.endsWith(name))!;
      const res = await svc.s3().send(new GetObjectCommand({ Bucket: svc.info.s3.bucket, Key: upload.key }));
      expect(sha256(Buffer.from(await res.Body!.transformToByteArray())), name).toBe(sha256(bytes));
    }

    // The log tells the same outage: at the capture gateway, over when it answered again.
    const log = (await cli(dataDir, ['--json', 'log'])).out
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { kind: string; message: string });
    expect(log.filter((e) => e.kind === 'outage').map((e) => e.message)).toEqual([
      expect.stringMatching(/^No answer from the capture gateway for \d+ s/) as string,
    ]);
    expect(log.filter((e) => e.kind === 'outage-over').map((e) => e.message)).toEqual([
      'the capture gateway answered again',
    ]);
  }, 240_000);
});
