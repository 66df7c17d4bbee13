import { GetObjectCommand } from '@aws-sdk/client-s3';
import type { ChildProcess } from 'node:child_process';
import { execFileSync, spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { TestService } from './service/testing.js';
import { startTestService, uploaderEnv } from './service/testing.js';

// The uploader is a separate process killed with SIGKILL at seeded random moments, then started
// again; the service stays up in this process and counts what storage receives.
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const CLI = join(ROOT, 'main/cli/index.ts');
const MiB = 1024 * 1024;
const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

/** mulberry32: a small seeded PRNG, so every run kills at the same moments. */
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
  work = mkdtempSync(join(tmpdir(), 'kill-resume-'));
});
afterEach(async () => {
  await svc.admin('DELETE', '/faults'); // each test counts its own rules' matches
});
afterAll(async () => {
  await svc.stop();
  rmSync(work, { recursive: true, force: true });
});

const env = (dataDir: string): NodeJS.ProcessEnv => ({
  ...process.env,
  ...uploaderEnv(svc.info, dataDir),
  NODE_NO_WARNINGS: '1',
});

function cli(
  dataDir: string,
  args: string[],
): { child: ChildProcess; done: Promise<{ code: number | null; signal: string | null; out: string }> } {
  const child = spawn(process.execPath, ['--import', 'tsx', CLI, '--concurrency', '1', ...args], {
    cwd: ROOT,
    env: env(dataDir),
  });
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  const done = new Promise<{ code: number | null; signal: string | null; out: string }>((resolve) =>
    child.on('exit', (code, signal) => resolve({ code, signal, out })),
  );
  return { child, done };
}

async function storedBytes(): Promise<Buffer> {
  const upload = Object.values(svc.store.state.uploads).at(-1)!;
  const res = await svc.s3().send(new GetObjectCommand({ Bucket: svc.info.s3.bucket, Key: upload.key }));
  return Buffer.from(await res.Body!.transformToByteArray());
}

describe('SIGKILL at random points, then restart', () => {
  it('finishes with the right bytes after 10 kills and never re-sends a part storage already had', async () => {
    const dataDir = join(work, 'queue-kills');
    const file = join(work, 'VID_20261122_061500_00_001.insv');
    const bytes = randomBytes(81 * MiB); // 17 parts: more than ten short runs can finish
    writeFileSync(file, bytes);
    // Slow enough that each run finishes a part or two before it is killed.
    await svc.admin('PUT', '/settings', { bandwidthBytesPerSecond: 6 * MiB });

    const add = await cli(dataDir, ['add', '--structure', svc.info.structures[0]!, '--type', 'interior', file]).done;
    expect(add.code, add.out).toBe(0);
    expect(add.out).toMatch(/queued capture 1 .*: registered/);

    const random = prng(20261122);
    const kills: number[] = [];
    for (let k = 0; k < 10; k++) {
      const run = cli(dataDir, ['drain', '--json']);
      const after = 400 + Math.floor(random() * 2100);
      const timer = setTimeout(() => run.child.kill('SIGKILL'), after);
      const res = await run.done;
      clearTimeout(timer);
      if (res.signal === 'SIGKILL') kills.push(after);
      else expect(res.code, res.out).toBe(0); // finished before its kill: allowed, but not counted
    }
    expect(kills.length).toBeGreaterThanOrEqual(10);

    await svc.admin('PUT', '/settings', { bandwidthBytesPerSecond: null });
    const last = await cli(dataDir, ['drain']).done;
    expect(last.code, last.out).toBe(0);
    expect(last.out).toMatch(/1 file\(s\) completed, 0 failed/);
    expect(sha256(await storedBytes())).toBe(sha256(bytes));
    expect(svc.storage.stats.partsReplaced).toBe(0);

    const status = await cli(dataDir, ['status', '--json']).done;
    const parsed = JSON.parse(status.out.trim().split('\n').at(-1)!) as {
      captures: { state: string; files: { state: string }[] }[];
    };
    expect(parsed.captures.map((c) => [c.state, c.files.map((f) => f.state)])).toEqual([['completed', ['completed']]]);
  });

  it('a kill after add-capture was sent leaves the capture for a person to decide, never registered twice silently', async () => {
    const dataDir = join(work, 'queue-registration');
    const file = join(work, 'walk.mp4');
    writeFileSync(file, randomBytes(2 * MiB));
    // The service registers the capture but its reply never comes: the uploader is killed while waiting.
    await svc.admin('POST', '/faults', {
      target: 'gateway',
      operation: 'add-capture',
      action: { type: 'dropResponse', afterMs: 10_000 },
    });
    const before = Object.keys(svc.store.state.captures).length;

    const run = cli(dataDir, ['add', '--structure', svc.info.structures[1]!, '--type', 'exterior', file]);
    // Kill once the request has reached the service.
    for (
      let i = 0;
      i < 100 &&
      !(await svc
        .admin('GET', '/faults')
        .then(async (r) => ((await r.json()) as { rules: { fired: number }[] }).rules[0]!.fired));
      i++
    ) {
      await new Promise((r) => setTimeout(r, 50));
    }
    run.child.kill('SIGKILL');
    await run.done;
    for (let i = 0; i < 100 && Object.keys(svc.store.state.captures).length === before; i++)
      await new Promise((r) => setTimeout(r, 50));
    expect(Object.keys(svc.store.state.captures).length).toBe(before + 1);

    const drain = await cli(dataDir, ['drain']).done;
    expect(drain.code).toBe(1);
    expect(drain.out).toMatch(/NEEDS ATTENTION capture 1 "walk.mp4" \(registration_unknown\)/);
    expect(Object.keys(svc.store.state.captures).length).toBe(before + 1);

    expect((await cli(dataDir, ['resolve', '1', '--register-again']).done).code).toBe(0);
    const again = await cli(dataDir, ['drain']).done;
    expect(again.code, again.out).toBe(0);
    expect(Object.keys(svc.store.state.captures).length).toBe(before + 2);
  });

  it.each(['SIGKILL', 'SIGINT'] as const)(
    '%s while signing in, before add-capture was sent: the capture stays queued and the next start registers it exactly once',
    async (signal) => {
      const dataDir = join(work, `queue-signin-${signal}`);
      const file = join(work, `signin-${signal}.mp4`);
      const bytes = randomBytes(1 * MiB);
      writeFileSync(file, bytes);
      const capturesOf = () =>
        Object.values(svc.store.state.captures).filter((c) =>
          JSON.stringify(c.request).includes(`signin-${signal}.mp4`),
        );
      // The sign-in service never answers: the capture is claimed, nothing is sent.
      await svc.admin('POST', '/faults', { target: 'auth', operation: 'signin', action: { type: 'hang' } });
      const run = cli(dataDir, ['add', '--structure', svc.info.structures[0]!, '--type', 'interior', file]);
      const seen = async () =>
        ((await (await svc.admin('GET', '/faults')).json()) as { rules: { seen: number }[] }).rules[0]!.seen;
      for (let i = 0; i < 200 && (await seen()) === 0; i++) await new Promise((r) => setTimeout(r, 25));
      expect(await seen()).toBe(1);
      run.child.kill(signal);
      const killed = await run.done;
      expect(killed.signal ?? killed.code, killed.out).not.toBe(0);
      await svc.admin('DELETE', '/faults');
      expect(capturesOf()).toHaveLength(0);

      const drain = await cli(dataDir, ['drain']).done;
      expect(drain.code, drain.out).toBe(0);
      expect(drain.out).not.toMatch(/registration_unknown|were being registered/);
      expect(capturesOf()).toHaveLength(1);
      expect(sha256(await storedBytes())).toBe(sha256(bytes));
    },
  );

  it('a card of single-part recordings, killed during registration and uploads: each registered once, every byte right, no part stored twice', async () => {
    const dataDir = join(work, 'queue-card');
    const card = mkdtempSync(join(work, 'card-'));
    const random = prng(20261123);
    const files = new Map<string, Buffer>();
    for (let i = 1; i <= 8; i++) {
      const name = `VID_20261123_0${i}0000_00_00${i}.insv`; // single-lens recordings, one part each
      const bytes = randomBytes(300_000 + Math.floor(random() * 600_000));
      writeFileSync(join(card, name), bytes);
      files.set(name, bytes);
    }
    const capturesOf = (name: string) =>
      Object.values(svc.store.state.captures).filter((c) => JSON.stringify(c.request).includes(name));
    // Registration and parts slow enough that kills land inside both.
    await svc.admin('POST', '/faults', {
      target: 'gateway',
      operation: 'add-capture',
      times: 0,
      action: { type: 'latency', ms: 120 },
    });
    await svc.admin('PUT', '/settings', { bandwidthBytesPerSecond: 2 * MiB });

    const add = () => cli(dataDir, ['add', '--structure', svc.info.structures[0]!, '--type', 'interior', card]);
    // The card dropped again after each killed add: what is queued already is refused, the rest queued.
    for (let k = 0; k < 3; k++) {
      const run = add();
      const timer = setTimeout(() => run.child.kill('SIGKILL'), 250 + Math.floor(random() * 500));
      await run.done;
      clearTimeout(timer);
    }
    // The last drop of the card queues what the killed ones did not: 0, or 1 when they had queued
    // it all already (add that queued nothing exits 1), every file then refused as queued (one line for all of them, by kind).
    const lastAdd = await add().done;
    expect(
      lastAdd.code === 0 ||
        (lastAdd.code === 1 &&
          !/^queued capture/m.test(lastAdd.out) &&
          /Already in the queue(, each as the capture| as capture)/.test(lastAdd.out)),
      lastAdd.out,
    ).toBe(true);
    for (let k = 0; k < 8; k++) {
      const run = cli(dataDir, ['drain', '--json']);
      const timer = setTimeout(() => run.child.kill('SIGKILL'), 150 + Math.floor(random() * 900));
      await run.done;
      clearTimeout(timer);
    }
    await svc.admin('DELETE', '/faults');
    await svc.admin('PUT', '/settings', { bandwidthBytesPerSecond: null });

    // A person decides the captures whose registration is unknown, looking at the platform: those it
    // has are dropped here (they would be registered twice), the others registered again.
    const status = async () =>
      JSON.parse((await cli(dataDir, ['status', '--json']).done).out.trim().split('\n').at(-1)!) as {
        captures: { id: number; state: string; files: { fileName: string; state: string }[] }[];
      };
    const dropped = new Set<string>();
    for (const c of (await status()).captures.filter((c) => c.state === 'registration_unknown')) {
      const name = c.files[0]!.fileName;
      const atPlatform = capturesOf(name).length > 0;
      if (atPlatform) dropped.add(name);
      expect(
        (await cli(dataDir, ['resolve', String(c.id), atPlatform ? '--drop' : '--register-again']).done).code,
      ).toBe(0);
    }
    const last = await cli(dataDir, ['drain']).done;
    expect(last.code, last.out).toBe(0);

    const final = await status();
    expect(final.captures.every((c) => c.state === 'completed')).toBe(true);
    expect(final.captures.length + dropped.size).toBe(files.size);
    for (const [name, bytes] of files) {
      // Never registered twice, whatever the kills.
      expect(capturesOf(name), name).toHaveLength(1);
      if (dropped.has(name)) continue;
      const [capture] = capturesOf(name);
      const upload = svc.store.state.uploads[capture!.uploadIds[0]!]!;
      const res = await svc.s3().send(new GetObjectCommand({ Bucket: svc.info.s3.bucket, Key: upload.key }));
      expect(sha256(Buffer.from(await res.Body!.transformToByteArray())), name).toBe(sha256(bytes));
    }
    expect(svc.storage.stats.partsReplaced).toBe(0);
  });
  it('a card through kills while signing in, while registering and uploading, and with the disk full at a random instant: each recording registered exactly once, every byte right', async () => {
    const dataDir = join(work, 'queue-card-signin-disk');
    const card = mkdtempSync(join(work, 'card2-'));
    const random = prng(20261125);
    const files = new Map<string, Buffer>();
    for (let i = 1; i <= 6; i++) {
      const name = `VID_20261125_0${i}1500_00_01${i}.insv`;
      const bytes = randomBytes(300_000 + Math.floor(random() * 600_000));
      writeFileSync(join(card, name), bytes);
      files.set(name, bytes);
    }
    const capturesOf = (name: string) =>
      Object.values(svc.store.state.captures).filter((c) => JSON.stringify(c.request).includes(name));
    const sentAddCaptures = () => [...files.keys()].reduce((n, name) => n + capturesOf(name).length, 0);
    await svc.admin('PUT', '/settings', { bandwidthBytesPerSecond: 2 * MiB });

    // One run, ended by a SIGKILL at a seeded instant after it reached the sign-in service, in one
    // of three seeded ways: while signing in (the sign-in service is slow), while registering and
    // uploading, or after the disk filled (no file of the process may grow from a seeded instant
    // on: RLIMIT_FSIZE, set with prlimit).
    const modes: string[] = [];
    const signIns = async () =>
      ((await (await svc.admin('GET', '/faults')).json()) as { rules: { seen: number }[] }).rules[0]!.seen;
    const run = async (args: string[]) => {
      const mode = (['signin', 'busy', 'disk'] as const)[Math.floor(random() * 3)]!;
      await svc.admin('DELETE', '/faults');
      await svc.admin('POST', '/faults', {
        target: 'auth',
        operation: 'signin',
        times: 0,
        action: { type: 'latency', ms: mode === 'signin' ? 700 : 100 },
      });
      await svc.admin('POST', '/faults', {
        target: 'gateway',
        operation: 'add-capture',
        times: 0,
        action: { type: 'latency', ms: 120 },
      });
      const r = cli(dataDir, args);
      let ended = false;
      const res = r.done.finally(() => (ended = true));
      while (!ended && (await signIns()) === 0) await new Promise((w) => setTimeout(w, 10));
      if (ended) return; // nothing to register or upload: it ended by itself
      modes.push(mode);
      if (mode === 'disk') {
        await new Promise((w) => setTimeout(w, Math.floor(random() * 1000)));
        let wal = 0;
        try {
          wal = statSync(join(dataDir, 'queue.db-wal')).size;
        } catch {
          // no log yet: nothing may be written at all
        }
        if (!ended) execFileSync('prlimit', ['--pid', String(r.child.pid), `--fsize=${wal + 100}`]);
      }
      const killAfter = mode === 'signin' ? Math.floor(random() * 600) : 300 + Math.floor(random() * 1500);
      const kill = setTimeout(() => r.child.kill('SIGKILL'), killAfter);
      const out = (await res).out;
      clearTimeout(kill);
      // Whatever the moment, never more add-capture requests than recordings.
      expect(sentAddCaptures(), `${mode} run ${modes.length}: ${out}`).toBeLessThanOrEqual(files.size);
    };
    const add = ['add', '--structure', svc.info.structures[0]!, '--type', 'interior', card];
    for (let k = 0; k < 3; k++) await run(add);
    for (let k = 0; k < 7; k++) await run(k % 3 === 0 ? add : ['drain', '--json']);
    expect(new Set(modes)).toEqual(new Set(['signin', 'busy', 'disk']));
    await svc.admin('DELETE', '/faults');
    await svc.admin('PUT', '/settings', { bandwidthBytesPerSecond: null });
    await cli(dataDir, add).done; // the card once more, without faults: what is not queued yet is

    // A person decides each capture whose registration is unknown, looking at the platform.
    const status = async () =>
      JSON.parse((await cli(dataDir, ['status', '--json']).done).out.trim().split('\n').at(-1)!) as {
        captures: { id: number; state: string; files: { fileName: string; state: string }[] }[];
      };
    const dropped = new Set<string>();
    for (const c of (await status()).captures.filter((c) => c.state === 'registration_unknown')) {
      const name = c.files[0]!.fileName;
      const atPlatform = capturesOf(name).length > 0;
      if (atPlatform) dropped.add(name);
      expect(
        (await cli(dataDir, ['resolve', String(c.id), atPlatform ? '--drop' : '--register-again']).done).code,
      ).toBe(0);
    }
    const last = await cli(dataDir, ['drain']).done;
    expect(last.code, last.out).toBe(0);

    const final = await status();
    expect(final.captures.every((c) => c.state === 'completed')).toBe(true);
    expect(final.captures.length + dropped.size).toBe(files.size);
    for (const [name, bytes] of files) {
      expect(capturesOf(name), name).toHaveLength(1);
      if (dropped.has(name)) continue;
      const [capture] = capturesOf(name);
      const upload = svc.store.state.uploads[capture!.uploadIds[0]!]!;
      const res = await svc.s3().send(new GetObjectCommand({ Bucket: svc.info.s3.bucket, Key: upload.key }));
      expect(sha256(Buffer.from(await res.Body!.transformToByteArray())), name).toBe(sha256(bytes));
    }
  });
});
