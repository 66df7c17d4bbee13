import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { randomCard, randomRecordings } from '../main/testing/e2e-card.js';
import { addArgs } from '../main/testing/e2e-cli.js';
import type { CliResult } from '../main/testing/kit.js';
import { CLI_ENTRY, MiB, ROOT, prng, useCliKit, waitFor } from '../main/testing/kit.js';
import { uploaderEnv } from './service/testing.js';

// Every command that changes the queue stops alike on SIGINT, SIGTERM and SIGHUP (docs/cli.md
// "Stopped by a signal"): what is in flight is committed or marked for the in-doubt rules, the
// registrations already on the wire get 5 s for their answers, one line says what is left, and
// the exit status is 128 + the signal's number; a second signal ends it at once. Real signals at
// seeded instants, against the local service; the rows are read back from the queue and from the
// platform's side.
const SEED = 20_261_128;
const GRACE_MS = 5000; // main/cli/stop-signals.ts STOP_GRACE_MS
const CODE = { SIGINT: 130, SIGTERM: 143, SIGHUP: 129 } as const;
type Signal = keyof typeof CODE;

const kit = useCliKit('stop-signals');

interface Status {
  captures: { id: number; state: string; captureId: string | null; files: { state: string }[] }[];
}
const statusOf = async (dataDir: string) => JSON.parse((await kit.run(dataDir, ['status', '--json'])).stdout) as Status;

/** How many captures the platform registered from each recording (its file name), by name. */
function registeredAtPlatform(names: readonly string[]): Map<string, number> {
  const counts = new Map(names.map((n) => [n, 0]));
  for (const c of Object.values(kit.svc.store.state.captures)) {
    const files = (c.request as { files: { fileName: string }[] }).files;
    for (const f of files) if (counts.has(f.fileName)) counts.set(f.fileName, counts.get(f.fileName)! + 1);
  }
  return counts;
}

/**
 * Starts `add` of `paths` and, once the platform holds its first registration request, sends each
 * of `signals` after its `afterMs`; `endedMs` is the time from the last signal to the exit.
 */
async function addStopped(
  dataDir: string,
  paths: string[],
  signals: { signal: Signal; afterMs: number }[],
): Promise<CliResult & { endedMs: number }> {
  const seen = async () => (await kit.faults())[0]!.seen;
  const before = await seen();
  const add = kit.spawn(dataDir, addArgs(kit.structure(), paths));
  // A registration is on the wire: the gateway has this add's first add-capture (held by the latency rule).
  await waitFor(async () => (await seen()) > before || add.child.exitCode !== null, 60_000, 'the first add-capture');
  let at = 0;
  for (const s of signals) {
    await new Promise((r) => setTimeout(r, s.afterMs));
    at = performance.now();
    add.child.kill(s.signal);
  }
  const res = await add.done;
  return { ...res, endedMs: performance.now() - at };
}

describe('add stopped by a signal', () => {
  it('SIGINT, SIGTERM and SIGHUP at seeded instants: answers on the wire recorded, none unknown, none registered twice', async () => {
    const random = prng(SEED);
    for (const [run, signal] of (['SIGINT', 'SIGTERM', 'SIGHUP'] as const).entries()) {
      await kit.svc.admin('DELETE', '/faults');
      // Each registration takes 400 ms at the platform, two at a time: 8 take about 2 s.
      await kit.fault({ target: 'gateway', operation: 'add-capture', times: 0, action: { type: 'latency', ms: 400 } });
      const dir = join(kit.work, `add-${run}`);
      mkdirSync(dir);
      const paths = randomRecordings(dir, `walk-${run}`, 8, 3000);
      const names = paths.map((p) => p.split('/').pop()!);
      const dataDir = join(kit.work, `queue-add-${run}`);
      const afterMs = Math.floor(random() * 1500);
      const res = await addStopped(dataDir, paths, [{ signal, afterMs }]);
      const what = `${signal} ${afterMs} ms after the first add-capture reached the platform: ${res.out}`;
      expect(res.code, what).toBe(CODE[signal]);
      expect(res.stderr, what).toMatch(
        new RegExp(
          `^Stopped by ${signal}: 0 file\\(s\\) completed, \\d+ not yet(, \\d+ capture\\(s\\) not registered yet)?; the parts stored so far are kept\\. Run drain again to carry on\\.$`,
          'm',
        ),
      );
      expect(res.stderr, what).not.toMatch(/\n\s+at |registration is unknown/);
      // Every answer on the wire was waited for and recorded: no capture is left unknown or
      // half-claimed, and each registered one is so at the platform exactly once.
      const status = await statusOf(dataDir);
      expect(
        status.captures.map((c) => c.state).filter((s) => !['queued', 'registered'].includes(s)),
        what,
      ).toEqual([]);
      const registered = status.captures.filter((c) => c.state === 'registered').length;
      const counts = registeredAtPlatform(names);
      expect(
        [...counts.values()].filter((n) => n > 1),
        what,
      ).toEqual([]);
      expect(
        [...counts.values()].reduce((a, b) => a + b, 0),
        what,
      ).toBe(registered);
      // What is left goes on: a drain registers the rest and uploads all, each registered once
      // (after the last run only: the queues are alike).
      if (run < 2) continue;
      await kit.svc.admin('DELETE', '/faults');
      const drain = await kit.run(dataDir, ['drain']);
      expect(drain.code, drain.out).toBe(0);
      expect([...registeredAtPlatform(names).values()], what).toEqual(names.map(() => 1));
    }
  }, 300_000);

  it('past the 5 s bound the capture on the wire is left unknown for a person, and said; a second signal ends at once', async () => {
    await kit.svc.admin('DELETE', '/faults');
    // The platform holds every registration for 20 s: longer than the stop waits.
    await kit.fault({ target: 'gateway', operation: 'add-capture', times: 0, action: { type: 'latency', ms: 20_000 } });
    const dir = join(kit.work, 'add-bound');
    mkdirSync(dir);
    const paths = randomRecordings(dir, 'walk-bound', 4, 3000);
    const bound = await addStopped(join(kit.work, 'queue-bound'), paths, [{ signal: 'SIGTERM', afterMs: 0 }]);
    expect(bound.code, bound.out).toBe(143);
    // It waited the bound, and no more than the bound and its clean-up.
    expect(bound.endedMs, bound.out).toBeGreaterThanOrEqual(GRACE_MS - 100);
    expect(bound.endedMs, bound.out).toBeLessThan(GRACE_MS + 10_000);
    expect(bound.stderr).toMatch(
      /Stopped by SIGTERM: .*2 capture\(s\) whose registration is unknown \(capture-uploader resolve decides each\)/,
    );
    const left = await statusOf(join(kit.work, 'queue-bound'));
    // The two lanes' requests were on the wire: unknown, never sent again without a person's word.
    expect(left.captures.map((c) => c.state).sort()).toEqual([
      'queued',
      'queued',
      'registration_unknown',
      'registration_unknown',
    ]);

    const dir2 = join(kit.work, 'add-twice');
    mkdirSync(dir2);
    const twice = await addStopped(join(kit.work, 'queue-twice'), randomRecordings(dir2, 'walk-twice', 4, 3000), [
      { signal: 'SIGINT', afterMs: 0 },
      { signal: 'SIGTERM', afterMs: 300 },
    ]);
    expect(twice.code, twice.out).toBe(143);
    expect(twice.endedMs, twice.out).toBeLessThan(GRACE_MS);
    expect(twice.stderr).toMatch(/Stopped at once by a second signal \(SIGTERM\)/);
    // The next start decides the captures whose request was sent by the in-doubt rules: unknown.
    await kit.svc.admin('DELETE', '/faults');
    const drain = await kit.run(join(kit.work, 'queue-twice'), ['drain']);
    expect(drain.code, drain.out).toBe(1);
    const after = await statusOf(join(kit.work, 'queue-twice'));
    expect(after.captures.filter((c) => c.state === 'registration_unknown')).toHaveLength(2);
    expect(after.captures.filter((c) => c.state === 'completed')).toHaveLength(2);
  }, 180_000);
});

describe('a drain whose terminal hangs up', () => {
  it('stops as on SIGHUP, says so in the support log and ends, the queue left for the next drain', async () => {
    const { dataDir } = await kit.queued('hangup', 12 * MiB);
    await kit.svc.admin('PUT', '/settings', { bandwidthBytesPerSecond: 1 * MiB });
    const from = kit.puts().length;
    // A terminal of its own (util-linux's script, Debian's bsdutils): the drain leads its session
    // there, as in an SSH login, and closing the terminal's master end hangs it up.
    const command = [process.execPath, '--import', 'tsx', CLI_ENTRY, 'drain'].map((a) => `'${a}'`).join(' ');
    const terminal = spawn('script', ['-qfc', `exec ${command}`, '/dev/null'], {
      cwd: ROOT,
      env: { ...process.env, ...uploaderEnv(kit.svc.info, dataDir), NODE_NO_WARNINGS: '1' },
      stdio: 'ignore',
    });
    await waitFor(() => kit.puts().length > from, 60_000, 'a part on its way');
    const drainPid = Number(readFileSync(`/proc/${terminal.pid}/task/${terminal.pid}/children`, 'utf8').trim());
    expect(readFileSync(`/proc/${drainPid}/cmdline`, 'utf8')).toContain('drain');
    terminal.kill('SIGKILL'); // the terminal goes away
    await waitFor(() => !existsSync(`/proc/${drainPid}`), 30_000, 'the drain to end');
    const log = readdirSync(join(dataDir, 'logs'))
      .map((f) => readFileSync(join(dataDir, 'logs', f), 'utf8'))
      .join('');
    expect(log).toMatch(
      /"message":"Stopped by SIGHUP: 0 file\(s\) completed, 1 not yet; the parts stored so far are kept/,
    );
    await kit.svc.admin('PUT', '/settings', { bandwidthBytesPerSecond: null });
    // The lock is free and nothing is lost: the next drain finishes it, storing no part twice.
    const before = { ...kit.svc.storage.stats };
    const next = await kit.run(dataDir, ['drain']);
    expect(next.code, next.out).toBe(0);
    expect(kit.svc.storage.stats.partsReplaced - before.partsReplaced).toBe(0);
  }, 180_000);
});

describe('import stopped by a signal', () => {
  it('keeps the copies it verified, leaves no half-written one, says so and exits 129 on SIGHUP', async () => {
    const { card } = randomCard(
      kit.work,
      'card-',
      Array.from({ length: 6 }, (_, i) => [`VID_20261128_0800${i}0_00_00${i}.insv`, 24 * MiB] as const),
    );
    const library = join(kit.work, 'library');
    const dataDir = join(kit.work, 'queue-import');
    let printed = '';
    const run = kit.spawn(dataDir, ['import', '--library', library, card], { onStdout: (all) => (printed = all) });
    // At its 10 % line, a seeded instant after: 130 MiB of copy and read-back are left, more than
    // a fast disk does in 30 ms (with 300 ms a quiet machine had finished the card first).
    await waitFor(() => /copying: 10%/.test(printed), 60_000, 'a progress line');
    await new Promise((r) => setTimeout(r, Math.floor(prng(SEED + 1)() * 30)));
    run.child.kill('SIGHUP');
    const res = await run.done;
    expect(res.code, res.out).toBe(129);
    expect(res.stderr).toMatch(
      /Stopped by SIGHUP: the copies the import verified so far stay in the library and are recorded, half-written ones were removed\. Keep the card: run import again to copy the rest\./,
    );
    const copies = readdirSync(library, { recursive: true }) as string[];
    expect(copies.filter((p) => p.endsWith('.partial'))).toEqual([]);
    // Run again, it copies the rest and says the card is safe to remove.
    const again = await kit.run(dataDir, ['import', '--library', library, card]);
    expect(again.code, again.out).toBe(0);
    expect(again.stdout).toMatch(/Card safe to remove/);
  }, 180_000);
});
