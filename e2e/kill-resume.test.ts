import { GetObjectCommand } from '@aws-sdk/client-s3';
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { MiB, prng, sha256, useCliKit, waitFor } from '../main/testing/kit.js';
import { randomCard } from '../main/testing/e2e-card.js';

// The uploader is a separate process killed with SIGKILL at seeded random moments, then started
// again; the service stays up in this process and counts what storage receives.

const kit = useCliKit('kill-resume');
afterEach(async () => {
  await kit.svc.admin('DELETE', '/faults'); // each test counts its own rules' matches
});

/** The CLI one part at a time, so a kill lands between or inside parts as planned. */
const cli = (dataDir: string, args: string[]) => kit.spawn(dataDir, ['--concurrency', '1', ...args]);

async function storedBytes(): Promise<Buffer> {
  const upload = Object.values(kit.svc.store.state.uploads).at(-1)!;
  const res = await kit.svc.s3().send(new GetObjectCommand({ Bucket: kit.svc.info.s3.bucket, Key: upload.key }));
  return Buffer.from(await res.Body!.transformToByteArray());
}

/**
 * A card of `n` single-lens recordings (one part each) named `name(1)` … `name(n)`, each of
 * 300,000 to 900,000 random bytes, the sizes drawn in order from the seeded `random`.
 */
const seededCard = (prefix: string, n: number, name: (i: number) => string, random: () => number) =>
  randomCard(
    kit.work,
    prefix,
    Array.from({ length: n }, (_, k) => [name(k + 1), 300_000 + Math.floor(random() * 600_000)] as const),
  );

/** The captures the service holds whose request names `name`. */
const capturesOf = (name: string) =>
  Object.values(kit.svc.store.state.captures).filter((c) => JSON.stringify(c.request).includes(name));

/**
 * A person decides each capture whose registration is unknown, looking at the platform: those it
 * has are dropped (they would be registered twice), the others registered again; then one drain to
 * the end. Checks every capture completed, every recording of `files` (name → bytes) registered
 * exactly once whatever the kills, and every one not dropped stored byte-identical.
 */
async function decideDrainAndCheck(dataDir: string, files: Map<string, Buffer>): Promise<void> {
  const status = async () =>
    JSON.parse((await cli(dataDir, ['status', '--json']).done).out.trim().split('\n').at(-1)!) as {
      captures: { id: number; state: string; files: { fileName: string; state: string }[] }[];
    };
  const dropped = new Set<string>();
  for (const c of (await status()).captures.filter((c) => c.state === 'registration_unknown')) {
    const name = c.files[0]!.fileName;
    const atPlatform = capturesOf(name).length > 0;
    if (atPlatform) dropped.add(name);
    const resolve = await cli(dataDir, ['resolve', String(c.id), atPlatform ? '--drop' : '--register-again']).done;
    expect(resolve.code, resolve.out).toBe(0);
  }
  const last = await cli(dataDir, ['drain']).done;
  expect(last.code, last.out).toBe(0);

  const final = await status();
  expect(final.captures.every((c) => c.state === 'completed')).toBe(true);
  expect(final.captures.length + dropped.size).toBe(files.size);
  for (const [name, bytes] of files) {
    expect(capturesOf(name), name).toHaveLength(1);
    if (dropped.has(name)) continue;
    const upload = kit.svc.store.state.uploads[capturesOf(name)[0]!.uploadIds[0]!]!;
    const res = await kit.svc.s3().send(new GetObjectCommand({ Bucket: kit.svc.info.s3.bucket, Key: upload.key }));
    expect(sha256(Buffer.from(await res.Body!.transformToByteArray())), name).toBe(sha256(bytes));
  }
}

describe('SIGKILL at random points, then restart', () => {
  it('finishes with the right bytes after 10 kills and never re-sends a part storage already had', async () => {
    const dataDir = join(kit.work, 'queue-kills');
    const file = join(kit.work, 'VID_20261122_061500_00_001.insv');
    const bytes = randomBytes(81 * MiB); // 17 parts: more than ten short runs can finish
    writeFileSync(file, bytes);
    // Slow enough that each run finishes a part or two before it is killed.
    await kit.svc.admin('PUT', '/settings', { bandwidthBytesPerSecond: 6 * MiB });

    const add = await cli(dataDir, ['add', '--structure', kit.structure(), '--type', 'interior', file]).done;
    expect(add.code, add.out).toBe(0);
    expect(add.out).toMatch(/queued capture 1 .*: registered/);

    const random = prng(20261122);
    const { stats } = kit.svc.storage;
    for (let k = 0; k < 10; k++) {
      const run = cli(dataDir, ['drain', '--json']);
      let ended = false;
      const res = run.done.finally(() => (ended = true));
      // Each run is killed only once it has stored a part of its own (then at a seeded moment in
      // the next part's body): a kill before the CLI sent a byte would prove nothing of resuming.
      const storedBefore = stats.partsStored;
      await waitFor(() => ended || stats.partsStored > storedBefore, 60_000, `run ${k} storing a part`);
      const receivedBefore = kit.svc.storage.bytesReceived;
      await waitFor(
        () => ended || kit.svc.storage.bytesReceived >= receivedBefore + Math.floor(random() * 4 * MiB),
        60_000,
        `run ${k} sending into the next part`,
      );
      if (ended) expect.fail(`run ${k} ended before its kill: ${(await res).out}`);
      run.child.kill('SIGKILL');
      expect((await res).signal, `run ${k}`).toBe('SIGKILL');
      expect(stats.partsStored - storedBefore, `run ${k}: parts stored before its kill`).toBeGreaterThan(0);
    }

    await kit.svc.admin('PUT', '/settings', { bandwidthBytesPerSecond: null });
    const last = await cli(dataDir, ['drain']).done;
    expect(last.code, last.out).toBe(0);
    expect(last.out).toMatch(/1 file\(s\) completed, 0 failed/);
    expect(sha256(await storedBytes())).toBe(sha256(bytes));
    expect(kit.svc.storage.stats.partsReplaced).toBe(0);

    const status = await cli(dataDir, ['status', '--json']).done;
    const parsed = JSON.parse(status.out.trim().split('\n').at(-1)!) as {
      captures: { state: string; files: { state: string }[] }[];
    };
    expect(parsed.captures.map((c) => [c.state, c.files.map((f) => f.state)])).toEqual([['completed', ['completed']]]);
  });

  it('a kill after add-capture was sent leaves the capture for a person to decide, never registered twice silently', async () => {
    const dataDir = join(kit.work, 'queue-registration');
    const file = join(kit.work, 'walk.mp4');
    writeFileSync(file, randomBytes(2 * MiB));
    // The service registers the capture but its reply never comes: the uploader is killed while waiting.
    await kit.svc.admin('POST', '/faults', {
      target: 'gateway',
      operation: 'add-capture',
      action: { type: 'dropResponse', afterMs: 10_000 },
    });
    const before = Object.keys(kit.svc.store.state.captures).length;

    const run = cli(dataDir, ['add', '--structure', kit.svc.info.structures[1]!, '--type', 'exterior', file]);
    // Kill once the request has reached the service.
    await waitFor(async () => (await kit.faults())[0]!.fired > 0, 20_000, 'add-capture at the service');
    run.child.kill('SIGKILL');
    await run.done;
    await waitFor(() => Object.keys(kit.svc.store.state.captures).length > before, 5000, 'the capture registered');
    expect(Object.keys(kit.svc.store.state.captures).length).toBe(before + 1);

    const drain = await cli(dataDir, ['drain']).done;
    expect(drain.code).toBe(1);
    expect(drain.out).toMatch(/NEEDS ATTENTION capture 1 "walk.mp4" \(registration_unknown\)/);
    expect(Object.keys(kit.svc.store.state.captures).length).toBe(before + 1);

    expect((await cli(dataDir, ['resolve', '1', '--register-again']).done).code).toBe(0);
    const again = await cli(dataDir, ['drain']).done;
    expect(again.code, again.out).toBe(0);
    expect(Object.keys(kit.svc.store.state.captures).length).toBe(before + 2);
  });

  it.each(['SIGKILL', 'SIGINT'] as const)(
    '%s while signing in, before add-capture was sent: the capture stays queued and the next start registers it exactly once',
    async (signal) => {
      const dataDir = join(kit.work, `queue-signin-${signal}`);
      const file = join(kit.work, `signin-${signal}.mp4`);
      const bytes = randomBytes(1 * MiB);
      writeFileSync(file, bytes);
      const capturesOf = () =>
        Object.values(kit.svc.store.state.captures).filter((c) =>
          JSON.stringify(c.request).includes(`signin-${signal}.mp4`),
        );
      // The sign-in service never answers: the capture is claimed, nothing is sent.
      await kit.svc.admin('POST', '/faults', { target: 'auth', operation: 'signin', action: { type: 'hang' } });
      const run = cli(dataDir, ['add', '--structure', kit.structure(), '--type', 'interior', file]);
      const seen = async () => (await kit.faults())[0]!.seen;
      await waitFor(async () => (await seen()) > 0, 20_000, 'the sign-in at the service');
      expect(await seen()).toBe(1);
      run.child.kill(signal);
      const killed = await run.done;
      expect(killed.signal ?? killed.code, killed.out).not.toBe(0);
      await kit.svc.admin('DELETE', '/faults');
      expect(capturesOf()).toHaveLength(0);

      const drain = await cli(dataDir, ['drain']).done;
      expect(drain.code, drain.out).toBe(0);
      expect(drain.out).not.toMatch(/registration_unknown|were being registered/);
      expect(capturesOf()).toHaveLength(1);
      expect(sha256(await storedBytes())).toBe(sha256(bytes));
    },
  );

  it('a card of single-part recordings, killed during registration and uploads: each registered once, every byte right, no part stored twice', async () => {
    const dataDir = join(kit.work, 'queue-card');
    const random = prng(20261123);
    const { card, files } = seededCard('card-', 8, (i) => `VID_20261123_0${i}0000_00_00${i}.insv`, random);
    // Registration and parts slow enough that kills land inside both.
    await kit.svc.admin('POST', '/faults', {
      target: 'gateway',
      operation: 'add-capture',
      times: 0,
      action: { type: 'latency', ms: 120 },
    });
    await kit.svc.admin('PUT', '/settings', { bandwidthBytesPerSecond: 2 * MiB });

    const add = () => cli(dataDir, ['add', '--structure', kit.structure(), '--type', 'interior', card]);
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
    await kit.svc.admin('DELETE', '/faults');
    await kit.svc.admin('PUT', '/settings', { bandwidthBytesPerSecond: null });

    await decideDrainAndCheck(dataDir, files);
    expect(kit.svc.storage.stats.partsReplaced).toBe(0);
  });
  it('a card through kills while signing in, while registering and uploading, and with the disk full at a random instant: each recording registered exactly once, every byte right', async () => {
    const dataDir = join(kit.work, 'queue-card-signin-disk');
    const random = prng(20261125);
    const { card, files } = seededCard('card2-', 6, (i) => `VID_20261125_0${i}1500_00_01${i}.insv`, random);
    const sentAddCaptures = () => [...files.keys()].reduce((n, name) => n + capturesOf(name).length, 0);
    await kit.svc.admin('PUT', '/settings', { bandwidthBytesPerSecond: 2 * MiB });

    // One run, ended by a SIGKILL at a seeded instant after it reached the sign-in service, in one
    // of three seeded ways: while signing in (the sign-in service is slow), while registering and
    // uploading, or after the disk filled (no file of the process may grow from a seeded instant
    // on: RLIMIT_FSIZE, set with prlimit).
    const modes: string[] = [];
    const run = async (args: string[]) => {
      const mode = (['signin', 'busy', 'disk'] as const)[Math.floor(random() * 3)]!;
      await kit.svc.admin('DELETE', '/faults');
      await kit.svc.admin('POST', '/faults', {
        target: 'auth',
        operation: 'signin',
        times: 0,
        action: { type: 'latency', ms: mode === 'signin' ? 700 : 100 },
      });
      await kit.svc.admin('POST', '/faults', {
        target: 'gateway',
        operation: 'add-capture',
        times: 0,
        action: { type: 'latency', ms: 120 },
      });
      const r = cli(dataDir, args);
      let ended = false;
      const res = r.done.finally(() => (ended = true));
      await waitFor(async () => ended || (await kit.faults())[0]!.seen > 0, 60_000, 'the sign-in at the service', 10);
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
    const add = ['add', '--structure', kit.structure(), '--type', 'interior', card];
    for (let k = 0; k < 3; k++) await run(add);
    for (let k = 0; k < 7; k++) await run(k % 3 === 0 ? add : ['drain', '--json']);
    expect(new Set(modes)).toEqual(new Set(['signin', 'busy', 'disk']));
    await kit.svc.admin('DELETE', '/faults');
    await kit.svc.admin('PUT', '/settings', { bandwidthBytesPerSecond: null });
    await cli(dataDir, add).done; // the card once more, without faults: what is not queued yet is

    await decideDrainAndCheck(dataDir, files);
  });
});
