import { execFileSync } from 'node:child_process';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { FaultRuleInput } from './service/testing.js';
import type { CliResult } from '../main/testing/kit.js';
import { useCliKit, waitFor } from '../main/testing/kit.js';
import { randomRecordings } from '../main/testing/e2e-card.js';

// add-capture (capture-upload-interface.md §4.4) is not idempotent: the command-line uploader, as
// scripts run it, must never register a recording twice, whatever its disk or the service do
// The service counts the captures it holds per recording.

const kit = useCliKit('registration-e2e');
afterEach(async () => {
  await kit.svc.admin('DELETE', '/faults');
});

/** Starts the CLI; `kill()` sends it SIGKILL. */
function cli(dataDir: string, args: string[]): { pid: number; kill(): void; done: Promise<CliResult> } {
  const { child, done } = kit.spawn(dataDir, args);
  return { pid: child.pid!, kill: () => child.kill('SIGKILL'), done };
}

const fault = (rule: FaultRuleInput) => kit.fault(rule);
const faultsSeen = async () => (await kit.faults()).map((r) => r.seen);
const atService = (name: string) =>
  Object.values(kit.svc.store.state.captures).filter((c) => JSON.stringify(c.request).includes(name));
const until = (cond: () => Promise<boolean> | boolean, ms = 20_000) => waitFor(cond, ms);

/** Recordings of 300,000 random bytes in the kit's folder: `name-1.mp4`, `name-2.mp4`, ... */
const recordings = (name: string, n: number) => randomRecordings(kit.work, name, n, 300_000);

describe('capture-uploader add on a disk that fills up while registering', () => {
  it('stops at once with one message naming the queue, sending nothing; once there is space, each recording is registered exactly once', async () => {
    const dataDir = join(kit.work, 'full-disk');
    const files = recordings('fulldisk', 2);
    // Sign-in takes a moment, so the disk can fill after the first capture was claimed and before
    // anything was sent: from then on no file of the process may grow (RLIMIT_FSIZE), and SQLite's
    // next commit fails part-way through its write-ahead log, as on a full disk.
    await fault({ target: 'auth', operation: 'signin', action: { type: 'latency', ms: 1500 } });
    const add = cli(dataDir, ['add', '--structure', kit.structure(), '--type', 'interior', ...files]);
    await until(async () => (await faultsSeen())[0] === 1);
    const wal = statSync(join(dataDir, 'queue.db-wal')).size;
    execFileSync('prlimit', ['--pid', String(add.pid), `--fsize=${wal + 100}`]);
    const killer = setTimeout(add.kill, 15_000); // the old code registered without end
    const res = await add.done;
    clearTimeout(killer);

    expect(atService('fulldisk-').length, 'add-capture requests for 2 recordings').toBeLessThanOrEqual(2);
    expect(res.signal, res.stderr).toBeNull();
    expect(res.code).toBe(2);
    // A file-size limit is refused with EFBIG, which SQLite reports as an I/O error (a disk that is
    // really full gives SQLITE_FULL and the sentence with the free space: main/engine/registration/registrar.test.ts).
    const said = res.stderr.split('\n').filter((l) => l.includes('cannot be written'));
    expect(said[0]).toBe(
      `warning: The upload queue ${join(dataDir, 'queue.db')} cannot be written (SQLITE_IOERR_WRITE): the disk failed to read or write it, or refused to let it grow (a quota, a file-size limit). Check the disk and its free space, then run again; nothing queued was lost.`,
    );
    expect(new Set(said).size).toBe(1);
    // Nothing was sent: the capture claimed before the disk filled, and the other, are not registered.
    expect(atService('fulldisk-')).toHaveLength(0);

    // Space again: what was claimed but never sent is queued again, and each recording is registered once.
    const drain = await cli(dataDir, ['drain']).done;
    expect(drain.code, drain.stderr).toBe(0);
    expect(atService('fulldisk-1.mp4')).toHaveLength(1);
    expect(atService('fulldisk-2.mp4')).toHaveLength(1);
  });
});

describe('capture-uploader add when add-capture answers 5xx after the service acted', () => {
  it.each([500, 502])(
    '%i: one capture at the service, the local one registration_unknown, one notice; drain exits 1 and sends nothing more',
    async (status) => {
      const dataDir = join(kit.work, `acted-${status}`);
      const files = recordings(`acted${status}`, 2);
      await fault({
        target: 'gateway',
        operation: 'add-capture',
        times: 0,
        action: { type: 'statusAfterActing', status },
      });

      const add = await cli(dataDir, ['add', '--structure', kit.structure(), '--type', 'interior', ...files]).done;
      expect(add.code, add.stderr).toBe(1);
      expect(add.stdout).toMatch(/queued capture 1 "acted\d+-1\.mp4": registration_unknown/);
      expect(add.stdout).toMatch(/queued capture 2 "acted\d+-2\.mp4": registration_unknown/);
      const notices = add.stderr.split('\n').filter((l) => /may have been registered/.test(l));
      expect(notices).toHaveLength(1);
      expect(notices[0]).toMatch(
        new RegExp(`^warning: 2 capture\\(s\\) may have been registered although the service answered ${status} `),
      );
      expect(atService(`acted${status}-1.mp4`)).toHaveLength(1);
      expect(atService(`acted${status}-2.mp4`)).toHaveLength(1);

      await kit.svc.admin('DELETE', '/faults');
      const drain = await cli(dataDir, ['drain']).done;
      expect(drain.code, drain.stderr).toBe(1); // needs a person
      expect(drain.stdout + drain.stderr).toMatch(
        /NEEDS ATTENTION capture 1 "acted\d+-1\.mp4" \(registration_unknown\)/,
      );
      expect(atService(`acted${status}-1.mp4`)).toHaveLength(1);
      expect(atService(`acted${status}-2.mp4`)).toHaveLength(1);

      // A person's word: it is on the platform, forget it here.
      expect((await cli(dataDir, ['resolve', '1', '--drop']).done).code).toBe(0);
      expect((await cli(dataDir, ['resolve', '2', '--drop']).done).code).toBe(0);
      expect(atService(`acted${status}-`)).toHaveLength(2);
    },
  );
});
