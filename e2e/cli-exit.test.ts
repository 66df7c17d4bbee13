import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
  writeSync,
  closeSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Database } from '../main/testing/queue-backdoors.js';
import { describe, expect, it } from 'vitest';
import { openQueueDatabase } from '../main/queue/db.js';
import { UploadQueue } from '../main/queue/queue.js';
import type { CliOptions, CliResult } from '../main/testing/kit.js';
import { ROOT, tempQueue, useCliKit } from '../main/testing/kit.js';
import { fillQueue } from '../main/testing/fill-queue.js';
import { addArgs, addWithKit, runCliAs } from '../main/testing/e2e-cli.js';

// Exit codes scripts can trust (the README's "The command-line uploader"): the
// CLI run as a child against the local service, as e2e/cli.test.ts does.
const NOBODY = 65534;

// The work folder open to all: the unreadable-folder test runs the CLI as NOBODY.
const kit = useCliKit('cli-exit', {}, { before: (k) => chmodSync(k.work, 0o755) });
const cli = (dataDir: string, args: string[], opts?: CliOptions) => kit.run(dataDir, args, opts);
const add = (dataDir: string, paths: string[]) => addWithKit(kit, dataDir, paths);
const noStackTrace = (r: Pick<CliResult, 'stderr'>) => expect(r.stderr).not.toMatch(/\n\s+at |Error:|EPIPE|Unhandled/);

describe('usage errors exit 2', () => {
  it.each([
    ['an unknown option', ['drain', '--bogus'], /unknown option '--bogus'/],
    ['a missing argument', ['remove', 'file'], /missing required argument 'ids'/],
    ['an unknown command', ['frobnicate'], /unknown command 'frobnicate'/],
    ['a bad option value', ['--concurrency', 'many', 'drain'], /It must be a whole number from 1 to 16/],
  ])('%s', async (_what, args, message) => {
    const res = await cli(join(kit.work, 'usage'), args);
    expect([res.code, res.stderr]).toEqual([2, expect.stringMatching(message)]);
  });

  it('--help still exits 0', async () => {
    expect((await cli(join(kit.work, 'usage'), ['--help'])).code).toBe(0);
  });

  it('--version prints the version of package.json and exits 0', async () => {
    const version = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;
    const r = await cli(join(kit.work, 'usage'), ['--version']);
    expect(r.code).toBe(0);
    expect(r.stdout.trim()).toBe(version);
  });
});

describe('a damaged queue moved aside', () => {
  it('drain exits 2 and names where the old queue went and how many captures it held', async () => {
    const dataDir = join(kit.work, 'corrupt-counted');
    const files = [1, 2].map((n) => join(kit.work, `corrupt-${n}.mp4`));
    for (const f of files) writeFileSync(f, randomBytes(4000));
    expect((await add(dataDir, files)).code).toBe(0);
    // Damage one index page: SQLite's check fails, yet the captures table can still be read.
    const queue = join(dataDir, 'queue.db');
    const ro = new Database(queue, { readonly: true });
    const { rootpage } = ro.prepare(`SELECT rootpage FROM sqlite_master WHERE name = 'files_by_fingerprint'`).get() as {
      rootpage: number;
    };
    const pageSize = ro.pragma('page_size', { simple: true }) as number;
    ro.close();
    const fd = openSync(queue, 'r+');
    writeSync(fd, randomBytes(pageSize), 0, pageSize, (rootpage - 1) * pageSize);
    closeSync(fd);

    const res = await cli(dataDir, ['drain']);
    expect(res.code, res.stderr).toBe(2);
    const moved = readdirSync(dataDir).find(
      (n) => n.startsWith('queue.db.corrupt-') && !n.endsWith('-wal') && !n.endsWith('-shm'),
    )!;
    expect(res.stderr).toContain(`it was moved to ${join(dataDir, moved)}`);
    expect(res.stderr).toMatch(/It held 2 capture\(s\), 2 of them not completed\. Nothing was done this time/);
    noStackTrace(res);
    // The next run uses the new, empty queue.
    expect((await cli(dataDir, ['drain'])).code).toBe(0);
  });

  it('a queue that is not a database at all: exits 2 and says it could not be read', async () => {
    const dataDir = join(kit.work, 'corrupt-garbage');
    mkdirSync(dataDir, { recursive: true });
    writeFileSync(join(dataDir, 'queue.db'), randomBytes(8192));
    const res = await cli(dataDir, ['drain']);
    expect(res.code, res.stderr).toBe(2);
    expect(res.stderr).toMatch(/moved to .*queue\.db\.corrupt-.*It could not be read to count its captures\./s);
  });
});

describe('a queue never taken for a new, empty one', () => {
  /** A folder whose queue `add` filled with one capture; answers the folder. */
  async function usedQueue(name: string): Promise<string> {
    return (await kit.queued(name, 3000)).dataDir;
  }
  const movedAside = (dataDir: string) =>
    readdirSync(dataDir).filter((n) => n.startsWith('queue.db.corrupt-') && !n.endsWith('-wal') && !n.endsWith('-shm'));

  it('a zero-byte queue.db: status says damaged, drain moves it aside, keeps it and exits 2', async () => {
    const dataDir = await usedQueue('zero-byte');
    const queue = join(dataDir, 'queue.db');
    writeFileSync(queue, '');

    const status = await cli(dataDir, ['status']);
    expect(status.code, status.stderr).toBe(2);
    expect(status.stderr).toContain(`The upload queue ${queue} is damaged: it is an empty file (0 bytes).`);
    expect(status.stderr).not.toMatch(/older version|schema 0/);
    expect(existsSync(queue) && movedAside(dataDir)).toEqual([]); // status only reads

    const drain = await cli(dataDir, ['drain']);
    expect(drain.code, drain.stderr).toBe(2);
    const [moved] = movedAside(dataDir);
    expect(moved).toBeDefined();
    expect(readFileSync(join(dataDir, moved!)).length).toBe(0); // kept, never deleted
    expect(drain.stderr).toContain(`damaged (it is an empty file (0 bytes)); it was moved to ${join(dataDir, moved!)}`);
    noStackTrace(drain);

    expect(drain.stderr).toMatch(/adding their files again registers them a second time/);
    // The next run uses the new queue beside the one set aside.
    expect((await cli(dataDir, ['status'])).stdout).toMatch(/The queue is empty/);
  });

  it('a queue whose -wal was lost after a kill (no tables, its -shm left): drain exits 2 and moves it aside', async () => {
    const dataDir = join(kit.work, 'wal-lost');
    mkdirSync(dataDir, { recursive: true });
    // What a killed writer leaves: every transaction in the -wal, the file only its header.
    const live = join(kit.work, 'wal-lost-live.db');
    const { db } = openQueueDatabase(live);
    new UploadQueue(db).meta.set('partSize', 5 * 1024 * 1024);
    writeFileSync(join(dataDir, 'queue.db'), readFileSync(live));
    writeFileSync(join(dataDir, 'queue.db-shm'), readFileSync(`${live}-shm`));
    db.close();

    const status = await cli(dataDir, ['status']);
    expect(status.code, status.stderr).toBe(2);
    expect(status.stderr).toMatch(/is damaged: its tables are missing while a write-ahead log/);
    const drain = await cli(dataDir, ['drain']);
    expect(drain.code, drain.stderr).toBe(2);
    expect(movedAside(dataDir)).toHaveLength(1);
    expect(drain.stderr).toMatch(/damaged \(its tables are missing/);
  });

  it('tables without a schema version (no release wrote it): drain exits 2 and moves it aside', async () => {
    const dataDir = await usedQueue('no-version');
    const db = new Database(join(dataDir, 'queue.db'));
    db.pragma('user_version = 0');
    db.close();
    const status = await cli(dataDir, ['status']);
    expect([status.code, status.stderr]).toEqual([
      2,
      expect.stringMatching(/is damaged: it has tables but no schema version/),
    ]);
    const drain = await cli(dataDir, ['drain']);
    expect(drain.code, drain.stderr).toBe(2);
    expect(movedAside(dataDir)).toHaveLength(1);
  });

  it('a new folder is a new queue, not a damaged one', async () => {
    const dataDir = join(kit.work, 'fresh');
    const drain = await cli(dataDir, ['drain']);
    expect([drain.code, drain.stderr]).toEqual([0, expect.not.stringMatching(/damaged/)]);
    expect(readdirSync(dataDir).filter((n) => n.includes('corrupt'))).toEqual([]);
  });
});

describe('ids that are not in the queue', () => {
  it('retry and resolve of an unknown id exit 2 naming it', async () => {
    const { dataDir } = await kit.queued('ids', 3000);
    const retry = await cli(dataDir, ['retry', '99']);
    expect([retry.code, retry.stderr]).toEqual([2, expect.stringMatching(/There is no file 99 in the queue/)]);
    const word = await cli(dataDir, ['retry', 'abc']);
    expect([word.code, word.stderr]).toEqual([2, expect.stringMatching(/file "abc" is not a number/)]);
    const resolve = await cli(dataDir, ['resolve', '42', '--drop']);
    expect([resolve.code, resolve.stderr]).toEqual([2, expect.stringMatching(/There is no capture 42 in the queue/)]);
    // An unknown id among known ones changes nothing.
    const remove = await cli(dataDir, ['remove', 'file', '1', '99']);
    expect([remove.code, remove.stderr]).toEqual([
      2,
      expect.stringMatching(/There is no file 99 in the queue .*nothing was removed/),
    ]);
    const cancel = await cli(dataDir, ['cancel', '1', '99']);
    expect([cancel.code, cancel.stderr]).toEqual([
      2,
      expect.stringMatching(/There is no file 99 in the queue .*nothing was cancelled/),
    ]);
    expect((await cli(dataDir, ['status'])).stdout).toMatch(/file 1 {2}pending/);
  });

  it('resolve with no decision or of a capture not waiting for one exits 2; retry with nothing to retry exits 0', async () => {
    const { dataDir } = await kit.queued('decisions', 3000);
    const none = await cli(dataDir, ['resolve', '1']);
    expect([none.code, none.stderr]).toEqual([2, expect.stringMatching(/say --register-again or --drop/)]);
    const drop = await cli(dataDir, ['resolve', '1', '--drop']);
    expect([drop.code, drop.stderr]).toEqual([2, expect.stringMatching(/Capture 1 is not waiting for a decision/)]);
    const retry = await cli(dataDir, ['retry']);
    expect([retry.code, retry.stdout]).toEqual([0, '0 file(s) queued again\n']);
    const fresh = await cli(join(kit.work, 'no-queue-here'), ['status']);
    expect([fresh.code, fresh.stderr]).toEqual([
      2,
      expect.stringMatching(/No upload queue at .* yet: add files first/),
    ]);
  });
});

describe('add that queued nothing', () => {
  it('exits 1 for recordings already queued, and for a folder with no recordings', async () => {
    const { dataDir, path: file } = await kit.queued('nothing', 3000);
    const again = await add(dataDir, [file]);
    expect(again.code).toBe(1);
    expect(again.stdout).toMatch(/Already in the queue as capture 1/);
    expect(again.stderr).toMatch(/Nothing was queued: see the reasons above\./);
    const empty = join(kit.work, 'no-recordings');
    mkdirSync(empty);
    writeFileSync(join(empty, 'notes.txt'), 'site notes');
    const none = await add(dataDir, [empty]);
    expect(none.code).toBe(1);
    expect(none.stderr).toMatch(/Nothing was queued/);
  });

  it('run exits 1 too: a path that does not exist, and a recording already queued', async () => {
    const dataDir = join(kit.work, 'run-nothing');
    const missing = await cli(dataDir, addArgs(kit.structure(), [join(kit.work, 'no-such-card')]).with(0, 'run'));
    expect([missing.code, missing.stderr]).toEqual([
      1,
      expect.stringMatching(/Nothing was queued: see the reasons above\./),
    ]);
    expect(missing.stdout).toContain('0 file(s) completed, 0 failed, 0 paused, 0 waiting to be sent.');
    const { dataDir: queued, path: file } = await kit.queued('run-once', 3000);
    // Added again: nothing queued (1), though the drain that follows uploads what is queued (0).
    const again = await cli(queued, addArgs(kit.structure(), [file]).with(0, 'run'));
    expect([again.code, again.stdout]).toEqual([1, expect.stringMatching(/Already in the queue as capture 1/)]);
  });
});

describe('status | head', () => {
  it('a closed pipe ends status quietly with 141', async () => {
    // 3000 captures with long names: far more than a pipe holds, so status is still writing when it closes.
    const t = tempQueue('cli-exit-pipe');
    fillQueue(t.queue, 3000, `walk ${'x'.repeat(60)} `);
    t.queue.db.close();
    const run = kit.spawn(t.dir, ['status'], { onStdout: () => run.child.stdout!.destroy() });
    const res = await run.done;
    t.close();
    expect(res.code, res.stderr).toBe(141);
    expect(res.stderr).toBe('');
  });
});

describe('local faults in plain sentences', () => {
  /** An 8 MiB tmpfs (the tests run as root): a disk that really fills, and is really read-only; room for the queue and the 2 MiB kept for an add-capture answer (main/queue/answer-reserve.ts). */
  function smallDisk(): { dir: string; done: () => void } {
    const dir = mkdtempSync(join(tmpdir(), 'cli-exit-disk-'));
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=8m', 'tmpfs', dir]);
    return { dir, done: () => (execFileSync('umount', [dir]), rmSync(dir, { recursive: true, force: true })) };
  }

  it('a full disk names the folder and the room to free, never "database or disk is full"', async () => {
    const disk = smallDisk();
    try {
      const dataDir = join(disk.dir, 'queue');
      const first = join(kit.work, 'full-1.mp4');
      const second = join(kit.work, 'full-2.mp4');
      writeFileSync(first, randomBytes(3000));
      writeFileSync(second, randomBytes(3000));
      expect((await add(dataDir, [first])).code).toBe(0);
      try {
        execFileSync('dd', ['if=/dev/zero', `of=${join(disk.dir, 'filler')}`, 'bs=64k'], { stdio: 'ignore' });
      } catch {
        // dd stops with ENOSPC: the disk is full, as wanted
      }
      const res = await add(dataDir, [second]);
      expect(res.code).toBe(2);
      expect(res.stderr).toBe(
        `capture-uploader: The disk holding ${dataDir} is full: free 64 MB and run again. Nothing queued was lost.\n`,
      );
    } finally {
      disk.done();
    }
  });

  it('a read-only disk says so and names the folder', async () => {
    const disk = smallDisk();
    try {
      const dataDir = join(disk.dir, 'queue');
      const file = join(kit.work, 'ro.mp4');
      writeFileSync(file, randomBytes(3000));
      expect((await add(dataDir, [file])).code).toBe(0);
      execFileSync('mount', ['-o', 'remount,ro', disk.dir]);
      const res = await cli(dataDir, ['drain']);
      expect(res.code).toBe(2);
      expect(res.stderr).toMatch(
        new RegExp(`^capture-uploader: ${dataDir} is on a read-only disk \\(mounted read-only, or a locked card\\)`),
      );
      noStackTrace(res);
    } finally {
      disk.done();
    }
  });
});

describe('file names with escape sequences', () => {
  it('are shown escaped in every line, never sent raw to the terminal', async () => {
    const dataDir = join(kit.work, 'escape');
    const dir = join(kit.work, 'escape-card');
    mkdirSync(dir);
    const name = 'walk\x1b[31mred\x1b]0;title\x07.mp4';
    writeFileSync(join(dir, name), randomBytes(3000));
    const link = join(kit.work, 'link\x1b[2J.mp4');
    symlinkSync(join(dir, name), link); // the same file twice: named in a reason
    const added = await add(dataDir, [dir, link]);
    const drained = await cli(dataDir, ['drain']);
    const status = await cli(dataDir, ['status']);
    const log = await cli(dataDir, ['log']);
    for (const r of [added, drained, status, log]) {
      expect([...(r.stdout + r.stderr)].filter((ch) => ch === '\x1b' || ch === '\x07')).toEqual([]);
    }
    expect(added.stdout).toContain('walk\\u001b[31mred\\u001b]0;title\\u0007.mp4');
    expect(added.stdout).toMatch(/link\\u001b\[2J\.mp4: The same file as .*walk\\u001b\[31mred/);
    expect(status.stdout).toContain('walk\\u001b[31mred');
  });
});

describe('a folder that cannot be read', () => {
  it('is named with the reason, and the rest is added (run as an unprivileged user: root reads anything)', async () => {
    const dataDir = join(kit.work, 'unreadable-queue');
    mkdirSync(dataDir);
    chmodSync(dataDir, 0o777);
    const good = join(kit.work, 'card-good');
    const bad = join(kit.work, 'card-locked');
    mkdirSync(good);
    mkdirSync(bad);
    writeFileSync(join(good, 'VID_20261123_080000_00_001.insv'), randomBytes(3000));
    writeFileSync(join(bad, 'VID_20261123_090000_00_001.insv'), randomBytes(3000));
    chmodSync(join(good, 'VID_20261123_080000_00_001.insv'), 0o644);
    chmodSync(bad, 0o000);
    mkdirSync(join(good, 'MISC'), { mode: 0o000 });
    const res = await runCliAs(kit.svc, dataDir, addArgs(kit.structure(), [bad, good]), { uid: NOBODY, gid: NOBODY });
    expect(res.code, res.stderr).toBe(0);
    expect(res.stdout).toContain(`not queued: ${bad}: A folder that cannot be read (EACCES)`);
    expect(res.stdout).toContain(`not queued: ${join(good, 'MISC')}: A sub-folder that cannot be read (EACCES)`);
    expect(res.stdout).toMatch(/queued capture 1 .*\n {4}VID_20261123_080000_00_001\.insv/);
    expect(existsSync(join(dataDir, 'queue.db'))).toBe(true);
  });
});
