import { randomBytes } from 'node:crypto';
import {
  copyFileSync,
  existsSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import xxhash from 'xxhash-wasm';
import { describe, expect, it } from 'vitest';
import { writeFakeCard } from '../card/fake-card.js';
import { migrate, openQueueDatabase } from '../queue/db.js';
import { MIGRATIONS } from '../queue/migrations/index.js';
import { c4Id } from './mhl.js';
import { copyVerified } from './copy.js';
import { NotEnoughSpaceError, offloadCard } from './offload.js';
import { listOffloads, recordOffload } from './record.js';
import { fileSha256, useWorkDir } from '../testing/kit.js';
import { insertRows, oldFile, oldQueueWithWalk } from '../testing/old-rows.js';

const work = useWorkDir('offload-test');
const xxh64 = async (p: string) => (await xxhash()).h64Raw(readFileSync(p)).toString(16).padStart(16, '0');
/** Every file's SHA-256 and mtime: what "the card is never written to" is checked against. */
const snapshot = (paths: string[]) => paths.map((p) => [p, fileSha256(p), statSync(p).mtimeMs]);
const fixtures = fileURLToPath(new URL('../../../shared/fixtures/', import.meta.url));

describe('offloadCard', () => {
  it('stopped by its signal mid-copy: rejects within a second, no .partial left, no copy in place, the journal interrupted', async () => {
    // One recording: its two lenses are copied at once (two lanes), so only the copy's own checks can stop it.
    const card = writeFakeCard(join(work, 'STOP_CARD'), { recordings: 1, bytes: 96 * 1024 * 1024 });
    const library = join(work, 'stop-library');
    const journal = { calls: [] as string[], files: [] as { copy: string; verified: boolean }[] };
    const ac = new AbortController();
    let abortedAt = 0;
    const stopped = offloadCard(card.root, {
      library,
      signal: ac.signal,
      journal: {
        begin: () => journal.calls.push('begin'),
        file: (f) => journal.files.push(f),
        finish: () => journal.calls.push('finish'),
        interrupt: () => journal.calls.push('interrupt'),
      },
      // Stopped once the copy is under way: 16 MiB of the 192 copied.
      onProgress: (p) => {
        if (p.bytesDone >= 16 * 1024 * 1024 && !ac.signal.aborted) {
          abortedAt = performance.now();
          ac.abort(new Error('Cancelled'));
        }
      },
    });
    await expect(stopped).rejects.toThrow('Cancelled');
    expect(performance.now() - abortedAt).toBeLessThan(1000);
    expect(journal.calls).toEqual(['begin', 'interrupt']);
    // Nothing half-written: no .partial, and every copy in the library is whole and was verified.
    const left = (readdirSync(library, { recursive: true }) as string[])
      .map((p) => join(library, p))
      .filter((p) => statSync(p).isFile());
    expect(left.filter((p) => p.endsWith('.partial'))).toEqual([]);
    // Neither lens finished: nothing is in place, and neither was recorded as copied.
    expect(left.filter((p) => !p.endsWith('.mhl') && !p.includes('ascmhl'))).toEqual([]);
    expect(journal.files).toEqual([]);
  }, 120_000);

  it('stopped while a verified recording is being handed on: waits for that hand-off, rejects with the stop, and leaves no rejection unhandled', async () => {
    // `import --structure` stopped by SIGTERM: the first recording's registration fails with the
    // stop while the second recording's copy is cut short. Both rejections must reach the caller's
    // await, or Node ends the process with exit 1 instead of the signal's 143.
    const card = writeFakeCard(join(work, 'HANDOFF_CARD'), { recordings: 2, bytes: 24 * 1024 * 1024 });
    const ac = new AbortController();
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    let handOffSettled = false;
    try {
      const stopped = offloadCard(card.root, {
        library: join(work, 'handoff-library'),
        wholeCard: false,
        signal: ac.signal,
        onRecording: async () => {
          ac.abort(new Error('Stopped by SIGTERM'));
          await new Promise((r) => setTimeout(r, 300));
          handOffSettled = true;
          throw new Error('registration stopped');
        },
      });
      await expect(stopped).rejects.toThrow('Stopped by SIGTERM');
      expect(handOffSettled).toBe(true);
      // A turn of the event loop after the offload answered: Node reports unhandled rejections then.
      await new Promise((r) => setTimeout(r, 50));
      expect(unhandled).toEqual([]);
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
  }, 60_000);

  it('a hand-off that fails while the next recording is still being copied: no rejection left unhandled, the failure is the offload’s', async () => {
    // The first recording's registration refused at once, while the lanes copy the second: the
    // failed hand-off is awaited only once both lanes end, and Node must not see it unhandled
    // meanwhile (it would end `import --structure` with exit 1 mid-copy).
    const card = writeFakeCard(join(work, 'EARLY_FAIL_CARD'), { recordings: 2, bytes: 24 * 1024 * 1024 });
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    let handOffs = 0;
    try {
      const offload = offloadCard(card.root, {
        library: join(work, 'early-fail-library'),
        wholeCard: false,
        onRecording: () => {
          handOffs++;
          return Promise.reject(new Error('registration refused'));
        },
      });
      await expect(offload).rejects.toThrow('registration refused');
      await new Promise((r) => setTimeout(r, 50));
      expect(unhandled).toEqual([]);
      // The chain stops at its first failure: the second recording is not handed on after it.
      expect(handOffs).toBe(1);
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
  }, 60_000);

  it("copies every recording byte for byte under the card's layout, with each XXH64, an ASC MHL, and the card untouched", async () => {
    const card = writeFakeCard(join(work, 'X4_CARD'), { recordings: 3, bytes: 9 * 1024 * 1024 + 7 });
    // A real recording too, whose XXH64 is checked against the reference implementation.
    const real = join(card.root, 'DCIM', 'Camera01', 'VID_20231121_201609_00_007.insv');
    copyFileSync(join(fixtures, 'sample.insv'), real);
    const all = [...card.recordings, real, ...card.others];
    const before = snapshot(all);
    const seen: number[] = [];
    const r = await offloadCard(card.root, {
      library: join(work, 'library'),
      onProgress: (p) => seen.push(p.bytesDone),
    });

    expect(r.verified).toBe(true);
    expect(r.files.map((f) => f.source).sort()).toEqual([...card.recordings, real].sort());
    for (const f of r.files) {
      expect(relative(r.destination, f.copy)).toBe(relative(card.root, f.source));
      expect(fileSha256(f.copy)).toBe(fileSha256(f.source));
      expect(f.xxh64).toBe(await xxh64(f.source));
      expect(Math.abs(statSync(f.copy).mtimeMs - statSync(f.source).mtimeMs)).toBeLessThan(0.01);
      expect(f.attempts).toBe(1);
    }
    expect(r.bytes).toBe(r.files.reduce((n, f) => n + f.size, 0));
    expect(seen.at(-1)).toBe(r.bytes);
    // Previews, thumbnails and MISC are neither copied nor lost track of.
    expect(r.skipped.map((s) => s.path).sort()).toEqual([...card.others].sort());
    expect(snapshot(all)).toEqual(before);

    // The MHL lists each copy with its size and XXH64; the chain file names it by its C4 id.
    const mhl = readFileSync(r.mhlPath!, 'utf8');
    expect(mhl).toMatch(/^<\?xml version="1.0" encoding="UTF-8"\?>\n<hashlist version="2.0" xmlns="urn:ASC:MHL:v2.0">/);
    for (const f of r.files) {
      expect(mhl).toContain(
        `<path size="${f.size}" lastmodificationdate="${new Date(Math.floor(f.mtimeMs / 1000) * 1000).toISOString().replace('.000Z', '+00:00')}">${relative(r.destination, f.copy)}</path>\n      <xxh64 action="original"`,
      );
      expect(mhl).toContain(`>${f.xxh64}</xxh64>`);
    }
    expect(mhl.match(/<hash>/g)).toHaveLength(r.files.length);
    // The tool that wrote it is this app at its own version (package.json), not a placeholder.
    const version = (
      JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }
    ).version;
    expect(mhl).toContain(`<tool version="${version}">capture-uploader</tool>`);
    const chain = readFileSync(join(r.destination, 'ascmhl', 'ascmhl_chain.xml'), 'utf8');
    expect(chain).toContain(`<c4>${c4Id(readFileSync(r.mhlPath!))}</c4>`);
  });

  it('copies a file whose copy reads back wrong once more; one that fails twice is named, and the card is not said safe', async () => {
    const card = writeFakeCard(join(work, 'BAD_CARD'), { recordings: 2 });
    const [flaky, broken] = [card.recordings[0]!, card.recordings[3]!];
    const damaged: string[] = [];
    const r = await offloadCard(card.root, {
      library: join(work, 'library-bad'),
      // A disk that flips a byte: the flaky file's first copy only, the broken file's every copy.
      afterWrite: async (partial, dest) => {
        const name = dest.split('/').pop()!;
        if ((name === flaky.split('/').pop() && !damaged.includes(name)) || name === broken.split('/').pop()) {
          damaged.push(name);
          const b = readFileSync(partial);
          b[10] = b[10]! ^ 0xff;
          writeFileSync(partial, b);
        }
      },
    });
    expect(r.verified).toBe(false);
    const byName = new Map(r.files.map((f) => [f.source, f]));
    expect(byName.get(flaky)).toMatchObject({ verified: true, attempts: 2 });
    expect(fileSha256(byName.get(flaky)!.copy)).toBe(fileSha256(flaky));
    expect(byName.get(broken)).toMatchObject({
      verified: false,
      attempts: 2,
      error: expect.stringContaining(`${broken}: the copy read back differs from the card`),
    });
    // A copy that did not verify is not left where it could be uploaded.
    expect(existsSync(byName.get(broken)!.copy)).toBe(false);
    expect(r.files.filter((f) => !f.verified).map((f) => f.source)).toEqual([broken]);
    // The MHL lists the verified copies only: the broken one is gone from the folder it covers, and
    // listing it would make `ascmhl verify` report it missing for ever. The comment names it.
    const mhl = readFileSync(r.mhlPath!, 'utf8');
    expect(mhl.match(/<hash>/g)).toHaveLength(3);
    expect(mhl).not.toContain(`>${relative(r.destination, byName.get(broken)!.copy)}</path>`);
    expect(mhl).toContain(`its copy failed verification`);
    expect(mhl).toContain(
      `${relative(r.destination, byName.get(broken)!.copy)} (XXH64 on the card ${byName.get(broken)!.xxh64}`,
    );
  });

  it('hands each recording on as soon as its files are verified, before the rest of the card is copied', async () => {
    const card = writeFakeCard(join(work, 'EARLY_CARD'), { recordings: 3, bytes: 3 * 1024 * 1024 });
    const calls: { sources: string[]; lastCopied: boolean }[] = [];
    let lastCopy = '';
    const r = await offloadCard(card.root, {
      library: join(work, 'library-early'),
      onProgress: (p) => {
        if (!lastCopy && p.file === card.recordings.at(-1)) lastCopy = p.file;
      },
      onRecording: (files) => {
        calls.push({ sources: files.map((f) => f.source), lastCopied: lastCopy !== '' });
      },
    });
    expect(calls.map((c) => c.sources)).toEqual([0, 2, 4].map((i) => card.recordings.slice(i, i + 2)));
    // The first recording was handed on before the card's last file had a byte copied.
    expect(calls[0]!.lastCopied).toBe(false);
    expect(r.verified).toBe(true);
  });

  it('writes and reads the copy back with O_DIRECT where the file system takes it (the bytes read back come from the disk), through the cache elsewhere; both verify', async () => {
    const { constants, openSync, closeSync, existsSync: exists } = await import('node:fs');
    /** Whether a folder's file system opens files with O_DIRECT (ext4 does; tmpfs refuses with EINVAL). */
    const takesDirect = (dir: string) => {
      if (constants.O_DIRECT === undefined) return false;
      try {
        closeSync(openSync(join(dir, '.probe'), constants.O_CREAT | constants.O_WRONLY | constants.O_DIRECT));
        return true;
      } catch {
        return false;
      } finally {
        rmSync(join(dir, '.probe'), { force: true });
      }
    };
    // 9 MiB + 7: whole 8 MiB chunk, then a tail that is not a whole block (written through the cache).
    const card = writeFakeCard(join(work, 'DIRECT_CARD'), { recordings: 1, bytes: 9 * 1024 * 1024 + 7 });
    const folders = [work, ...(exists('/dev/shm') ? [mkdtempSync('/dev/shm/offload-test-')] : [])];
    for (const folder of folders) {
      const r = await copyVerified(card.recordings[0]!, join(folder, 'copy', 'a.insv'));
      expect(r.verified).toBe(true);
      expect(r.readBackFromDisk).toBe(takesDirect(folder));
      expect(fileSha256(join(folder, 'copy', 'a.insv'))).toBe(fileSha256(card.recordings[0]!));
      if (folder !== work) rmSync(folder, { recursive: true, force: true });
    }
  });

  it('copies a recording whose name is the 255 bytes a file system allows (UTF-8), its copy under that name', async () => {
    const card = writeFakeCard(join(work, 'LONG_CARD'), { recordings: 1 });
    // 'é' is two bytes in UTF-8: 125 of them, 'x' and '.mp4' make 250 + 1 + 4 = 255 bytes.
    const name = `${'é'.repeat(125)}x.mp4`;
    expect(Buffer.byteLength(name)).toBe(255);
    const long = join(card.root, 'DCIM', 'Camera01', name);
    writeFileSync(long, randomBytes(3 * 1024 * 1024 + 5));
    const r = await offloadCard(card.root, { library: join(work, 'library-long') });
    expect(r.verified).toBe(true);
    const copy = r.files.find((f) => f.source === long);
    expect(copy?.verified).toBe(true);
    expect(relative(r.destination, copy!.copy)).toBe(join('DCIM', 'Camera01', name));
    expect(fileSha256(copy!.copy)).toBe(fileSha256(long));
  });

  it('checks the free space first and copies nothing when the recordings do not fit', async () => {
    const card = writeFakeCard(join(work, 'BIG_CARD'), { recordings: 2 });
    const library = join(work, 'library-small');
    const err = await offloadCard(card.root, { library, freeBytes: async () => 1024 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(NotEnoughSpaceError);
    expect((err as Error).message).toMatch(
      new RegExp(`^Not enough free space in ${library}: the recordings need \\d+ bytes, 1024 are free`),
    );
    expect(existsSync(join(library))).toBe(true);
    const { readdirSync } = await import('node:fs');
    expect(readdirSync(library)).toEqual([]);
  });

  it('refuses a folder without recordings, naming it', async () => {
    const empty = mkdtempSync(join(work, 'empty-'));
    await expect(offloadCard(empty, { library: join(work, 'library-empty') })).rejects.toThrow(
      `No recordings found in ${empty} (looked for .insv, .mp4, .csv)`,
    );
  });
});

describe('the offload record in the queue (migration 8)', () => {
  it("keeps each offload and its files' hashes", async () => {
    const card = writeFakeCard(join(work, 'REC_CARD'), { recordings: 1 });
    const r = await offloadCard(card.root, { library: join(work, 'library-rec') });
    const { db } = openQueueDatabase(join(work, 'queue.db'));
    const id = recordOffload(db, r);
    expect(listOffloads(db)).toEqual([
      {
        id,
        card: r.card,
        cardName: 'REC_CARD',
        destination: r.destination,
        startedAt: r.startedAt,
        finishedAt: r.finishedAt,
        state: 'finished',
        fileCount: 2,
        bytes: r.bytes,
        verified: true,
        mhlPath: r.mhlPath,
        files: r.files.map((f) => ({
          source: f.source,
          copy: f.copy,
          size: f.size,
          mtimeMs: f.mtimeMs,
          xxh64: f.xxh64,
          verified: true,
        })),
      },
    ]);
    db.close();
  });

  it('8: a queue of version 7 opens with its rows as they were and no offloads', () => {
    const db = oldQueueWithWalk(7, 'queued');
    insertRows(db, 'files', [oldFile(1, '/lib/a.insv', 10, 1, 'pending')]);
    const before = [db.prepare('SELECT * FROM captures').all(), db.prepare('SELECT * FROM files').all()];
    migrate(db, ':memory:', MIGRATIONS, 8);
    expect(db.pragma('user_version', { simple: true })).toBe(8);
    expect([db.prepare('SELECT * FROM captures').all(), db.prepare('SELECT * FROM files').all()]).toEqual(before);
    expect(listOffloads(db)).toEqual([]);
  });
});
