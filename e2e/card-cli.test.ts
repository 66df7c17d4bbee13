import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { basename, join } from 'node:path';
import { Database } from '../main/testing/queue-backdoors.js';
import { describe, expect, it } from 'vitest';
import { writeFakeCard } from '../main/card/fake-card.js';
import { sha256, useCliKit } from '../main/testing/kit.js';
import { importArgs } from '../main/testing/e2e-cli.js';

// From the command line: `add` takes a card at any level.

const kit = useCliKit('card-cli');

/** A fresh queue folder (`work/q-XXXXXX`) and a fake card written at `work/<cardPath…>` (see writeFakeCard). */
const queueAndCard = (cardPath: string[], opts: Parameters<typeof writeFakeCard>[1]) => ({
  dataDir: mkdtempSync(join(kit.work, 'q-')),
  card: writeFakeCard(join(kit.work, ...cardPath), opts),
});

/** Runs the CLI to its end; `onStdout` sees all it printed so far each time more comes. */
const cli = (dataDir: string, args: string[], onStdout?: (all: string) => void) => kit.run(dataDir, args, { onStdout });

describe('add', () => {
  it('queues every recording of a card given by its root, and names the folder that holds none', async () => {
    const { dataDir, card } = queueAndCard(['card'], { recordings: 3 });
    const empty = join(kit.work, 'empty-card');
    mkdirSync(join(empty, 'DCIM'), { recursive: true });
    const res = await cli(dataDir, ['add', '--structure', kit.structure(), '--type', 'interior', card.root, empty]);
    expect(res.code, res.stderr).toBe(0);
    expect(res.stdout.match(/^queued capture \d+ /gm)).toHaveLength(3);
    for (const p of card.recordings) expect(res.stdout).toContain(`    ${p.split('/').pop()}\n`);
    expect(res.stdout).toContain(
      `not queued: ${empty}: No recordings found in ${empty} (looked for .insv, .mp4, .csv)`,
    );
  });
});

describe('import', () => {
  it('copies a card with verification, says when it is safe to remove, and uploads from the copies after the card is gone', async () => {
    const { dataDir, card } = queueAndCard(['X4_SD'], { recordings: 3, bytes: 6 * 1024 * 1024 + 11 });
    const library = join(kit.work, 'library');
    const originals = new Map(card.recordings.map((p) => [p.split('/').pop()!, sha256(readFileSync(p))]));
    let removedAt: string | undefined;
    const res = await cli(
      dataDir,
      // The recordings only: the whole card's other files are the subject of a test below.
      importArgs(card.root, { library, recordingsOnly: true, place: { structure: kit.structure() } }),
      (out) => {
        // The person pulls the card the moment they are told they may.
        if (removedAt === undefined && out.includes('Card safe to remove')) {
          removedAt = out;
          rmSync(card.root, { recursive: true, force: true });
        }
      },
    );
    expect(res.code, res.stderr + res.stdout).toBe(0);
    expect(removedAt).toMatch(/Card safe to remove: 6 files of 3 recordings \(.+\) copied and verified in /);
    expect(existsSync(card.root)).toBe(false);
    expect(res.stdout.match(/^queued capture \d+ /gm)).toHaveLength(3);
    // Recordings are queued as they verify, not after the whole card: the first before the card is done.
    expect(res.stdout.indexOf('queued capture')).toBeLessThan(res.stdout.indexOf('Card safe to remove'));

    // The offload is in the queue with each file's hash; the queue's files are the copies.
    const db = new Database(join(dataDir, 'queue.db'), { readonly: true });
    const offload = db.prepare('SELECT * FROM offloads').get() as {
      id: number;
      files: number;
      verified: number;
      destination: string;
      mhl_path: string;
    };
    expect(offload).toMatchObject({ files: 6, verified: 1 });
    const hashes = db.prepare('SELECT copy_path, xxh64, verified FROM offload_files').all() as {
      copy_path: string;
      xxh64: string;
      verified: number;
    }[];
    expect(hashes.every((h) => /^[0-9a-f]{16}$/.test(h.xxh64) && h.verified === 1)).toBe(true);
    const queued = (db.prepare('SELECT path FROM files ORDER BY path').all() as { path: string }[]).map((r) => r.path);
    expect(queued).toEqual(hashes.map((h) => h.copy_path).sort());
    expect(queued.every((p) => p.startsWith(offload.destination))).toBe(true);
    // No part MD5s from the copy pass: the upload computes each part's as it reads it for sending.
    expect(db.prepare('SELECT COUNT(*) AS n FROM part_md5s').get()).toEqual({ n: 0 });
    db.close();
    // ASC MHL v1.0 §6.3: 0001_<the folder it covers>_<UTC start>Z.mhl, the folder being X4_SD_<local start and offset>.
    expect(basename(offload.destination)).toMatch(/^X4_SD_\d{4}-\d{2}-\d{2}_\d{6}[+-]\d{4}$/);
    // In local time with its offset, as the operator remembers the day.
    const [, day, time, sign, hh, mm] = /_(\d{4}-\d{2}-\d{2})_(\d{6})([+-])(\d{2})(\d{2})$/.exec(
      basename(offload.destination),
    )!;
    const at = Date.parse(`${day}T${time!.slice(0, 2)}:${time!.slice(2, 4)}:${time!.slice(4)}${sign}${hh}:${mm}`);
    const mhlName = readdirSync(join(offload.destination, 'ascmhl')).find((n) => n.endsWith('Z.mhl'))!;
    const [, uDay, uTime] = /_(\d{4}-\d{2}-\d{2})_(\d{6})Z\.mhl$/.exec(mhlName)!;
    expect(at).toBe(Date.parse(`${uDay}T${uTime!.slice(0, 2)}:${uTime!.slice(2, 4)}:${uTime!.slice(4)}Z`)); // the same start as the MHL's UTC name
    expect(0 - new Date(at).getTimezoneOffset()).toBe((sign === '-' ? -1 : 1) * (Number(hh) * 60 + Number(mm)) + 0);
    expect(readdirSync(join(offload.destination, 'ascmhl')).sort()).toEqual([
      expect.stringMatching(
        new RegExp(`^0001_${basename(offload.destination).replace(/[+]/g, '\\+')}_\\d{4}-\\d{2}-\\d{2}_\\d{6}Z\\.mhl$`),
      ),
      mhlName.replace(/\.mhl$/, '_transfer-report.html'),
      'ascmhl_chain.xml',
    ]);

    const drained = await cli(dataDir, ['drain']);
    expect(drained.code, drained.stderr).toBe(0);
    // Every stored object has the SHA-256 of the recording as it was on the card.
    const uploads = Object.values(kit.svc.store.state.uploads).filter(
      (u) => u.status === 'completed' && originals.has(u.fileName),
    );
    expect(uploads.map((u) => u.fileName).sort()).toEqual([...originals.keys()].sort());
    for (const u of uploads) {
      const obj = await kit.object(u.key);
      expect(obj.sha256, u.fileName).toBe(originals.get(u.fileName));
    }
    // Kept for the retention period (7 days by default), then removed by a later drain.
    expect(hashes.every((h) => existsSync(h.copy_path))).toBe(true);
    const later = await cli(dataDir, ['drain', '--keep-copies', '0']);
    expect(later.code, later.stderr).toBe(0);
    expect(later.stdout).toContain(
      'Removed 6 imported copies from the library: their captures completed more than 0 days ago.',
    );
    expect(hashes.some((h) => existsSync(h.copy_path))).toBe(false);
    const after = new Database(join(dataDir, 'queue.db'), { readonly: true });
    expect(after.prepare('SELECT COUNT(*) AS n FROM part_md5s').get()).toEqual({ n: 0 }); // none kept by the copy, none left
    after.close();
  });

  it('without placement only copies, and lists what waits; a folder with no recording exits non-zero, naming it', async () => {
    const { dataDir, card } = queueAndCard(['ONLY_COPY'], { recordings: 1 });
    const res = await cli(
      dataDir,
      importArgs(card.root, { library: join(kit.work, 'library-2'), recordingsOnly: true }),
    );
    expect(res.code, res.stderr).toBe(0);
    expect(res.stdout).toMatch(/Card safe to remove: 2 files of 1 recording \(/);
    expect(res.stdout).toMatch(/^Transfer report: ascmhl\/0001_ONLY_COPY_.*Z_transfer-report\.html$/m);
    // Not on a terminal: a line per tenth, each with the copy's rate once bytes moved.
    expect(res.stdout).toMatch(/^copying: 100% \(4\.0 KiB of 4\.0 KiB · [\d.]+ (B|KiB|MiB)\/s\)$/m);
    expect(res.stdout).toMatch(
      /Waiting for placement: 2 files of 1 recording\. Queue them with:\n {2}capture-uploader add --structure ID --type interior\|exterior .*ONLY_COPY_/,
    );
    expect(res.stdout).not.toMatch(/queued capture/);
    const empty = mkdtempSync(join(kit.work, 'blank-'));
    const none = await cli(dataDir, importArgs(empty, { library: join(kit.work, 'library-2') }));
    expect(none.code).not.toBe(0);
    expect(none.stderr).toContain(`No recordings found in ${empty} (looked for .insv, .mp4, .csv)`);
  });

  it('copies the whole card by default (previews, thumbnails, MISC verified and in the MHL); --recordings-only leaves them on the card', async () => {
    const { dataDir, card } = queueAndCard(['WHOLE_CLI'], { recordings: 1 });
    const whole = await cli(dataDir, importArgs(card.root, { library: join(kit.work, 'library-whole') }));
    expect(whole.code, whole.stderr).toBe(0);
    expect(whole.stdout).toMatch(
      /Card safe to remove: 2 files of 1 recording \(4\.0 KiB\) and 3 other files \(.+; the whole card\) copied and verified in /,
    );
    const folder = whole.stdout.match(/copied and verified in (.+)$/m)![1]!;
    for (const f of card.others) {
      const copy = join(folder, f.slice(card.root.length + 1));
      expect(readFileSync(copy).equals(readFileSync(f)), copy).toBe(true);
    }
    const mhlDir = join(folder, 'ascmhl');
    const mhl = readFileSync(join(mhlDir, readdirSync(mhlDir).find((n) => n.endsWith('.mhl'))!), 'utf8');
    expect(mhl.match(/<hash>/g)).toHaveLength(5);
    expect(mhl).toContain('>MISC/version.txt</path>');

    const only = await cli(mkdtempSync(join(kit.work, 'q-')), [
      '--json',
      ...importArgs(card.root, { library: join(kit.work, 'library-only'), recordingsOnly: true }),
    ]);
    expect(only.code, only.stderr).toBe(0);
    const imported = JSON.parse(only.stdout.trim().split('\n').at(-1)!) as {
      destination: string;
      files: unknown[];
      others: unknown[];
    };
    expect(imported.files).toHaveLength(2);
    expect(imported.others).toEqual([]);
    expect(existsSync(join(imported.destination, 'MISC'))).toBe(false);
  });
});

describe('import of a card put back', () => {
  it(
    'the next morning, at another mount, copies nothing, says it was imported and uploaded, and copies only a recording added since',
    { timeout: 120_000 },
    async () => {
      const { dataDir, card } = queueAndCard(['mnt-1', 'X4_BACK'], { recordings: 3, bytes: 3 * 1024 * 1024 + 7 });
      const library = join(kit.work, 'library-back');
      // The recordings only: what an import of the whole card copies again is whole-card.test.ts's.
      const place = ['--recordings-only', '--library', library, '--structure', kit.structure(), '--type', 'interior'];
      const first = await cli(dataDir, ['import', card.root, ...place]);
      expect(first.code, first.stderr + first.stdout).toBe(0);
      const drained = await cli(dataDir, ['drain']);
      expect(drained.code, drained.stderr).toBe(0);
      const listLibrary = () =>
        readdirSync(library, { recursive: true, withFileTypes: true })
          .filter((e) => e.isFile())
          .map((e) => `${join(e.parentPath, e.name)}:${readFileSync(join(e.parentPath, e.name)).length}`)
          .sort();
      const before = listLibrary();
      const uploadsBefore = Object.keys(kit.svc.store.state.uploads).length;

      // Put back the next morning under another mount folder.
      mkdirSync(join(kit.work, 'mnt-2'));
      const again = join(kit.work, 'mnt-2', 'X4_BACK');
      renameSync(card.root, again);
      const second = await cli(dataDir, ['import', again, ...place]);
      expect(second.code, second.stderr + second.stdout).toBe(0);
      expect(second.stdout).toMatch(/^Already imported on .+ to .*X4_BACK_\S+: 3 of 3 recordings \(3 uploaded\)$/m);
      expect(second.stdout).toContain('Card safe to remove: nothing new on it (no file copied)');
      expect(second.stdout).not.toMatch(/queued capture/);
      expect(listLibrary()).toEqual(before);
      const db = new Database(join(dataDir, 'queue.db'), { readonly: true });
      expect(db.prepare('SELECT COUNT(*) AS n FROM offloads').get()).toEqual({ n: 1 });
      expect(db.prepare('SELECT COUNT(*) AS n FROM captures').get()).toEqual({ n: 3 });
      db.close();
      expect(Object.keys(kit.svc.store.state.uploads)).toHaveLength(uploadsBefore);

      // A recording added to the card since: only it is copied and queued.
      const added = writeFakeCard(again, { recordings: 1, start: new Date(2026, 10, 27, 7, 0, 0), firstSegment: 9 });
      const third = await cli(dataDir, ['import', again, ...place]);
      expect(third.code, third.stderr + third.stdout).toBe(0);
      expect(third.stdout).toMatch(/Already imported on .+: 3 of 4 recordings \(3 uploaded\)/);
      expect(third.stdout).toMatch(/Card safe to remove: 2 files of 1 recording \(/);
      expect(third.stdout.match(/^queued capture \d+ /gm)).toHaveLength(1);
      const after = new Database(join(dataDir, 'queue.db'), { readonly: true });
      const copied = after
        .prepare(
          'SELECT source_path FROM offload_files WHERE offload_id = (SELECT MAX(id) FROM offloads) ORDER BY source_path',
        )
        .pluck()
        .all() as string[];
      expect(copied.map((p) => basename(p))).toEqual(added.recordings.map((p) => basename(p)).sort());
      after.close();
    },
  );
});

describe('import --eject', () => {
  it('tries to eject the card once it is said safe to remove; one that cannot be ejected is said with what to do, and exits 1', async () => {
    // A folder, not a mounted volume: nothing is mounted there to eject.
    const { dataDir, card } = queueAndCard(['EJECT_ME'], { recordings: 1 });
    const res = await cli(dataDir, ['import', card.root, '--library', join(kit.work, 'library-eject'), '--eject']);
    expect(res.stdout).toMatch(/Card safe to remove: 2 files of 1 recording/);
    expect(res.stderr).toContain(
      `EJECT_ME could not be ejected: no disk is mounted at ${card.root} any more. If it is still in the reader, eject it from the file manager.`,
    );
    expect(res.code).toBe(1);
  });
});

describe('import without placement holds the queue', () => {
  it(
    'a drain started while it copies stops with 2 naming the import, and the import ends verified',
    { timeout: 120_000 },
    async () => {
      const { dataDir, card } = queueAndCard(['HELD'], { recordings: 4, bytes: 8 * 1024 * 1024 });
      const library = join(kit.work, 'library-held');
      // Frozen mid-copy (SIGSTOP), as a long card's copy is for minutes: it holds the queue meanwhile.
      let frozen = false;
      let atFreeze = '';
      let reachedCopy!: () => void;
      const copying = new Promise<void>((r) => (reachedCopy = r));
      const { child, done } = kit.spawn(dataDir, ['import', card.root, '--library', library], {
        onStdout: (all) => {
          if (frozen || !/copying: /.test(all)) return;
          frozen = child.kill('SIGSTOP');
          atFreeze = all;
          reachedCopy();
        },
      });
      await copying;
      expect(atFreeze, 'frozen before the copy ended').not.toMatch(/Card safe/);
      try {
        const drain = await cli(dataDir, ['drain']);
        expect(drain.code, drain.stderr).toBe(2);
        expect(drain.stderr).toContain(`is in use by another Capture Uploader (process ${child.pid} on`);
      } finally {
        child.kill('SIGCONT');
      }
      const { code, stdout, stderr } = await done;
      expect(code, stderr).toBe(0);
      expect(stdout).toMatch(/Card safe to remove: 8 files of 4 recordings/);
      expect(stdout).not.toMatch(/not verified/);
    },
  );
});
