import { randomBytes } from 'node:crypto';
import { mkdirSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { MiB, useCliKit } from '../main/testing/kit.js';
import { addArgs, addWithKit } from '../main/testing/e2e-cli.js';

// The command-line uploader as scripts use it: exit codes they can trust, signals, closed pipes,
// and the verbs that edit the local queue.
const kit = useCliKit('cli-test');
afterEach(async () => {
  await kit.svc.admin('DELETE', '/faults');
  await kit.svc.admin('PUT', '/settings', { bandwidthBytesPerSecond: null });
});

/** Starts the CLI with its queue in `dataDir`; see spawnCli. */
const cli = (dataDir: string, args: string[]) => kit.spawn(dataDir, args);

/** A queue in `work/<name>` holding `work/<name>.mp4` of `size` random bytes; answers the folder. */
const queued = async (name: string, size: number) => (await kit.queued(name, size)).dataDir;

const statusOf = async (dataDir: string) =>
  JSON.parse((await cli(dataDir, ['status', '--json']).done).stdout) as {
    captures: { id: number; state: string; files: { id: number; state: string }[] }[];
  };

describe('capture-uploader drain, interrupted', () => {
  it.each([
    ['SIGINT', 130],
    ['SIGTERM', 143],
    ['SIGHUP', 129],
  ] as const)('%s stops it cleanly, says what is left and exits %i', async (signal, exitCode) => {
    const dataDir = await queued(`signal-${signal}`, 12 * MiB);
    await kit.svc.admin('PUT', '/settings', { bandwidthBytesPerSecond: 2 * MiB });
    const from = kit.svc.storage.received.length;
    const run = cli(dataDir, ['drain']);
    // Stopped once a part is on its way to storage, not after a fixed time: the stop is tested
    // mid-upload, with bytes sent, however slowly the machine starts the CLI.
    await expect
      .poll(() => kit.svc.storage.received.slice(from).filter((r) => r.operation === 'UploadPart').length, {
        timeout: 60_000,
        interval: 50,
      })
      .toBeGreaterThan(0);
    run.child.kill(signal);
    const res = await run.done;
    expect(res.code, res.stderr).toBe(exitCode);
    expect(res.stderr).toMatch(
      new RegExp(`Stopped by ${signal}: 0 file\\(s\\) completed, 1 not yet; the parts stored so far are kept`),
    );
    expect(res.stderr).not.toMatch(/\n\s+at /); // no stack trace
    // The lock is released and the file waits, pending, for the next drain.
    expect((await statusOf(dataDir)).captures[0]!.files[0]!.state).toBe('pending');
    await kit.svc.admin('PUT', '/settings', { bandwidthBytesPerSecond: null });
    expect((await cli(dataDir, ['drain']).done).code).toBe(0);
  });

  it('a closed output pipe (drain --json | head -n 2) stops it quietly with 141 and releases the queue', async () => {
    const dataDir = await queued('epipe', 12 * MiB);
    await kit.svc.admin('PUT', '/settings', { bandwidthBytesPerSecond: 2 * MiB });
    const run = cli(dataDir, ['--json', 'drain']);
    let lines = 0;
    await new Promise<void>((resolve) =>
      run.child.stdout!.on('data', (d: Buffer) => {
        lines += d.toString().split('\n').length - 1;
        if (lines >= 2) resolve();
      }),
    );
    run.child.stdout!.destroy();
    const res = await run.done;
    expect(res.code, res.stderr).toBe(141);
    expect(res.stderr).not.toMatch(/EPIPE|Unhandled|\n\s+at /);
    expect((await statusOf(dataDir)).captures[0]!.files[0]!.state).toBe('pending');
  });
});

describe('capture-uploader remove and cancel', () => {
  it('cancel stops a file for good; remove takes a capture off this computer only', async () => {
    const dataDir = await queued('verbs', 2 * MiB);
    const before = await statusOf(dataDir);
    const fileId = before.captures[0]!.files[0]!.id;
    expect((await cli(dataDir, ['cancel', String(fileId)]).done).code).toBe(0);
    const drained = await cli(dataDir, ['drain']).done;
    expect(drained.code).toBe(1); // a cancelled file is not a completed one
    expect((await statusOf(dataDir)).captures[0]!.files[0]!.state).toBe('cancelled');

    const removed = await cli(dataDir, ['remove', 'capture', String(before.captures[0]!.id)]).done;
    expect(removed.code, removed.stderr).toBe(0);
    expect(removed.stdout).toMatch(/removed capture 1 from this computer's queue; nothing changed at the platform/);
    expect((await statusOf(dataDir)).captures).toEqual([]);
    const missing = await cli(dataDir, ['remove', 'file', '99']).done;
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/There is no file 99 in the queue/);
  });
});

describe('capture-uploader add --dry-run', () => {
  it('says what would be registered where and what would not be uploaded, and queues nothing', async () => {
    const dataDir = join(kit.work, 'dry-run');
    const card = join(kit.work, 'dry-card');
    mkdirSync(card);
    writeFileSync(join(card, 'VID_20261123_080000_00_001.insv'), randomBytes(3000));
    writeFileSync(join(card, 'VID_20261123_080000_10_001.insv'), randomBytes(3000));
    writeFileSync(join(card, 'LRV_20261123_080000_11_001.insv'), randomBytes(100));
    writeFileSync(join(card, 'empty.mp4'), '');
    const before = Object.keys(kit.svc.store.state.captures).length;
    const res = await addWithKit(kit, dataDir, [card], { type: 'exterior', flags: ['--dry-run'] });
    expect(res.code, res.stderr).toBe(0);
    expect(res.stdout).toContain(
      `Would register 1 capture in structure ${kit.svc.info.structures[0]} (exterior): 2 files, 5.9 KiB.`,
    );
    expect(res.stdout).toMatch(/2026-11-23 08:00:00 · segment 001 · 2 lenses {2}2 file\(s\)/);
    expect(res.stdout).toMatch(
      /Not uploaded: 1 preview \(LRV\) and 1 other file:\n {2}1 × Low-resolution preview.*\n {2}1 × The file is empty/,
    );
    expect(res.stdout).toMatch(/Nothing was queued or sent \(--dry-run\)\.\n$/);
    expect((await statusOf(dataDir)).captures).toEqual([]);
    expect(Object.keys(kit.svc.store.state.captures).length).toBe(before);
  });
  it('sums up what it did not queue by kind: a card added again is one line, --verbose lists each file', async () => {
    const dataDir = join(kit.work, 'again');
    const card = join(kit.work, 'again-card');
    mkdirSync(card);
    for (let i = 1; i <= 6; i++) {
      for (const lens of ['00', '10'])
        writeFileSync(
          join(card, `VID_20261123_0900${String(i).padStart(2, '0')}_${lens}_00${i}.insv`),
          randomBytes(2000),
        );
    }
    const args = addArgs(kit.structure(), [card]);
    expect((await cli(dataDir, args).done).code).toBe(0);
    const again = await cli(dataDir, args).done;
    expect(again.code).toBe(1); // nothing queued
    expect(again.stdout.split('\n').filter((l) => l.startsWith('not queued'))).toEqual([
      'not queued: 12 files: Already in the queue, each as the capture it was added as; not added twice. (--verbose lists them)',
    ]);
    const verbose = await cli(dataDir, [...args, '--verbose']).done;
    expect(verbose.stdout).toContain(
      'not queued: 12 files: Already in the queue, each as the capture it was added as; not added twice.\n',
    );
    expect(verbose.stdout.match(/^ {4}.*VID_.*\.insv: Already in the queue as capture \d+ /gm)).toHaveLength(12);
  });
  it('says, for the capture, that a lens would need more than 10,000 parts at the sample part size', async () => {
    const dataDir = join(kit.work, 'dry-run-big');
    const card = join(kit.work, 'dry-card-big');
    mkdirSync(card);
    writeFileSync(join(card, 'VID_20261123_090000_00_001.insv'), randomBytes(3000));
    const big = join(card, 'VID_20261123_090000_10_001.insv');
    writeFileSync(big, '');
    truncateSync(big, 10_000 * 5 * MiB + 1); // sparse: no disk used
    const res = await addWithKit(kit, dataDir, [card], { flags: ['--dry-run'] });
    expect(res.code, res.stderr).toBe(0);
    expect(res.stdout).toContain('Would register 1 capture');
    expect(res.stdout).toMatch(
      /warning: .*VID_20261123_090000_10_001\.insv: VID_20261123_090000_10_001\.insv would need 10,001 parts of 5 MiB .*the whole capture waits for you/,
    );
  });
});

describe('capture-uploader log and --bandwidth', () => {
  it('log tells what happened to each capture and file, oldest first, while reading only', async () => {
    const dataDir = await queued('log', 1 * MiB);
    // A timetable whose one limit is in force all day: the drain runs under it.
    const drain = await cli(dataDir, ['--bandwidth', '00:00,512k 23:59,512k', 'drain']).done;
    expect(drain.code, drain.stderr).toBe(0);
    const log = await cli(dataDir, ['log', '--since', '1h']).done;
    expect(log.code, log.stderr).toBe(0);
    // Each line is the local time (its form the system locale's), two spaces, the kind.
    const kinds = log.stdout
      .trim()
      .split('\n')
      .map((l) => l.split(/ {2,}/)[1]!.split(' ')[0]);
    expect(kinds).toEqual(expect.arrayContaining(['registered', 'started', 'completed', 'capture-completed']));
    expect(kinds.indexOf('registered')).toBeLessThan(kinds.indexOf('capture-completed'));
    expect(log.stdout).toMatch(/completed\s+file 1\s+log\.mp4/);
    const json = await cli(dataDir, ['--json', 'log', '--since', '2020-01-01']).done;
    expect(
      json.stdout
        .trim()
        .split('\n')
        .map((l) => (JSON.parse(l) as { kind: string }).kind),
    ).toEqual(kinds);
    const none = await cli(dataDir, ['log', '--since', new Date(Date.now() + 60_000).toISOString()]).done;
    expect(none.stdout).toMatch(/^Nothing happened since /);
    const bad = await cli(dataDir, ['log', '--since', 'yesterday-ish']).done;
    expect([bad.code, bad.stderr.trim()]).toEqual([
      2,
      expect.stringMatching(/--since yesterday-ish is not a time: give an ISO 8601 time/),
    ]);
  });

  it('refuses a limit under 8 KiB/s or a timetable out of order, naming the fix, before anything is sent', async () => {
    const dataDir = await queued('bad-limit', 1 * MiB);
    const low = await cli(dataDir, ['--bandwidth', '4k', 'drain']).done;
    expect([low.code, low.stderr.trim()]).toEqual([
      2,
      expect.stringMatching(/--bandwidth: "4k" is below the lowest limit of 8 KiB\/s/),
    ]);
    const order = await cli(dataDir, ['--bandwidth', '19:00,off 08:00,512k', 'drain']).done;
    expect([order.code, order.stderr.trim()]).toEqual([2, expect.stringMatching(/increasing order/)]);
    expect((await statusOf(dataDir)).captures[0]!.files[0]!.state).toBe('pending');
  });
});

describe('capture-uploader front', () => {
  it('moves a capture to the front of the queue and back; an unknown capture changes nothing', async () => {
    const dataDir = await queued('front', 64 * 1024);
    const second = join(kit.work, 'front-2.mp4');
    writeFileSync(second, randomBytes(64 * 1024));
    expect((await addWithKit(kit, dataDir, [second])).code).toBe(0);
    const order = async () =>
      (
        JSON.parse((await cli(dataDir, ['status', '--json']).done).stdout) as {
          captures: { id: number; priority: number }[];
        }
      ).captures.map((c) => [c.id, c.priority]);
    expect(await order()).toEqual([
      [1, 0],
      [2, 0],
    ]);

    const front = await cli(dataDir, ['front', '2']).done;
    expect(front.code, front.stderr).toBe(0);
    expect(front.stdout).toBe('capture 2 is at the front of the queue\n');
    expect(await order()).toEqual([
      [2, 1],
      [1, 0],
    ]);

    expect((await cli(dataDir, ['front', '2', '--back']).done).stdout).toBe(
      'capture 2 is back in its place in the queue\n',
    );
    expect(await order()).toEqual([
      [1, 0],
      [2, 0],
    ]);
    const unknown = await cli(dataDir, ['front', '9']).done;
    expect(unknown.code).not.toBe(0);
    expect(unknown.stderr).toMatch(/Capture 9 is no longer in the queue/);
  });
});
