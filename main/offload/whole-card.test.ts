import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join, relative } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { ImportView } from '../../shared/ipc.js';
import { writeFakeCard } from '../card/fake-card.js';
import { openQueueDatabase } from '../queue/db.js';
import { LibrarySettingsStore } from '../settings/library-settings.js';
import { runCardImport } from './card-import.js';
import type { OffloadedFile } from './offload.js';
import { findKnownCopies } from './known-copies.js';
import { offloadCard } from './offload.js';
import { OffloadRecorder } from './record.js';

// "Copy the whole card" (docs/offload.md, docs/decisions/0028-copy-whole-card.md): every file
// of the card, not only the recordings, is copied and verified, so "safe to remove" means the card
// may be formatted; recordings first, and only recordings handed on for upload.

const work = mkdtempSync(join(tmpdir(), 'whole-card-test-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));
const sha256 = (p: string) => createHash('sha256').update(readFileSync(p)).digest('hex');
const noJournal = { begin: () => {}, interrupt: () => {}, finish: () => {} };

/** A fake card with, beside the camera's LRV/THM/MISC files, a file in a folder of its own at the root. */
function cardWithExtras(name: string, recordings = 3) {
  const card = writeFakeCard(join(work, name), { recordings, bytes: 1024 * 1024 + 7 });
  mkdirSync(join(card.root, 'MISC', 'log'), { recursive: true });
  writeFileSync(join(card.root, 'MISC', 'log', 'camera.log'), 'boot\n'.repeat(1000));
  writeFileSync(join(card.root, 'readme.txt'), 'owner: site team\n');
  const others = [...card.others, join(card.root, 'MISC', 'log', 'camera.log'), join(card.root, 'readme.txt')];
  return { ...card, others };
}

describe('offloadCard, the whole card', () => {
  it('copies every file byte for byte, recordings first, lists each in the MHL and the report, and hands on only recordings', async () => {
    const card = cardWithExtras('WHOLE_A');
    const checked: string[] = [];
    const handedOn: string[] = [];
    const result = await offloadCard(card.root, {
      library: join(work, 'lib-a'),
      wholeCard: true,
      journal: { ...noJournal, file: (f) => void checked.push(f.source) },
      onRecording: (files: OffloadedFile[]) => void handedOn.push(...files.map((f) => f.source)),
    });

    expect(result.verified).toBe(true);
    expect(result.files.map((f) => f.source).sort()).toEqual([...card.recordings].sort());
    expect(result.others.map((f) => f.source).sort()).toEqual([...card.others].sort());
    expect(result.otherBytes).toBe(card.others.reduce((n, p) => n + readFileSync(p).length, 0));
    // Every file of the card is in the library, the same bytes at the same place.
    for (const f of [...card.recordings, ...card.others]) {
      const copy = join(result.destination, relative(card.root, f));
      expect(sha256(copy), copy).toBe(sha256(f));
    }
    // Recordings first: no other file was checked before the last recording file.
    const lastRecording = Math.max(...card.recordings.map((p) => checked.indexOf(p)));
    const firstOther = Math.min(...card.others.map((p) => checked.indexOf(p)));
    expect(checked).toHaveLength(card.recordings.length + card.others.length);
    expect(lastRecording).toBeLessThan(firstOther);
    // Only recordings are ever handed on (queued for upload).
    expect(handedOn.sort()).toEqual([...card.recordings].sort());
    // The ASC MHL and the transfer report list every file; nothing is said left on the card.
    const mhl = readFileSync(result.mhlPath!, 'utf8');
    const report = readFileSync(result.reportPath!, 'utf8');
    for (const f of [...card.recordings, ...card.others]) {
      const rel = relative(card.root, f);
      expect(mhl).toContain(`>${rel}</path>`);
      expect(report).toContain(`<td class="path">${rel}</td>`);
    }
    expect(mhl.match(/<hash>/g)).toHaveLength(card.recordings.length + card.others.length);
    expect(report).toContain('Verified: 6 files of 3 recordings and 9 other files (the whole card)');
    expect(report).not.toContain('Not copied');
    expect(result.skipped).toEqual([]);
  });

  it('with the option off copies only the recordings: previews, thumbnails and MISC stay on the card, named in the report', async () => {
    const card = cardWithExtras('WHOLE_B', 2);
    const result = await offloadCard(card.root, { library: join(work, 'lib-b'), wholeCard: false });
    expect(result.verified).toBe(true);
    expect(result.others).toEqual([]);
    expect(result.files.map((f) => f.source).sort()).toEqual([...card.recordings].sort());
    for (const f of card.others) expect(existsSync(join(result.destination, relative(card.root, f)))).toBe(false);
    expect(readFileSync(result.mhlPath!, 'utf8').match(/<hash>/g)).toHaveLength(card.recordings.length);
    expect(readFileSync(result.reportPath!, 'utf8')).toContain('Not copied');
  });

  it('put back with a recording added, copies only what is new: that recording and its preview and thumbnail', async () => {
    const card = cardWithExtras('WHOLE_E', 2);
    const { db } = openQueueDatabase(join(work, 'queue-e.db'));
    const again = () =>
      offloadCard(card.root, {
        library: join(work, 'lib-e'),
        wholeCard: true,
        journal: new OffloadRecorder(() => db),
        knownCopies: (files) => findKnownCopies(db, files),
      });
    const first = await again();
    expect(first.others).toHaveLength(card.others.length);
    const added = writeFakeCard(card.root, {
      recordings: 1,
      start: new Date(2026, 10, 27, 7, 0, 0),
      firstSegment: 9,
      bytes: 4096,
    });
    // writeFakeCard wrote MISC/version.txt anew (same bytes, a new modification time): it counts as new.
    const second = await again();
    db.close();
    expect(second.files.map((f) => f.source).sort()).toEqual([...added.recordings].sort());
    expect(second.others.map((f) => f.source).sort()).toEqual([...added.others].sort());
    expect(second.verified).toBe(true);
  });
});

describe('runCardImport, the whole card', () => {
  it('says safe to remove only once the last other file verified, and counts them in the bytes', async () => {
    const card = cardWithExtras('WHOLE_C', 2);
    const views: ImportView[] = [];
    const last = await runCardImport({
      id: 3,
      root: card.root,
      library: join(work, 'lib-c'),
      wholeCard: true,
      throttleMs: 0,
      onUpdate: (v) => views.push(v),
    });
    expect(last.safeToRemove).toBe(true);
    expect(last.others).toEqual({
      files: card.others.length,
      bytes: card.others.reduce((n, p) => n + readFileSync(p).length, 0),
      verified: card.others.length,
      failed: 0,
    });
    expect(last.bytesDone).toBe(last.bytesTotal);
    expect(last.bytesTotal).toBe([...card.recordings, ...card.others].reduce((n, p) => n + readFileSync(p).length, 0));
    // The rows are the recordings' files only: the other files are counted, not listed.
    expect(last.files.map((f) => f.source).sort()).toEqual([...card.recordings].sort());
    // Every recording was offered while other files were still to be checked.
    expect(views.some((v) => v.verifiedCopies.length === 4 && v.others!.verified < card.others.length)).toBe(true);
    expect(views.filter((v) => v.safeToRemove).every((v) => v.others!.verified === card.others.length)).toBe(true);
  });

  it('keeps the card when a thumbnail fails verification twice: not safe to remove, though every recording verified', async () => {
    const card = cardWithExtras('WHOLE_D', 1);
    const thm = card.others.find((p) => p.endsWith('.thm'))!;
    const last = await runCardImport({
      id: 4,
      root: card.root,
      library: join(work, 'lib-d'),
      wholeCard: true,
      throttleMs: 0,
      onUpdate: () => {},
      // The thumbnail's copy is damaged after each write, before its read-back.
      afterWrite: async (partial, dest) => {
        if (basename(dest) === basename(thm)) writeFileSync(partial, 'damaged');
      },
    });
    expect(last.phase).toBe('done');
    expect(last.verifiedCopies).toHaveLength(2);
    expect(last.others!.failed).toBe(1);
    expect(last.safeToRemove).toBe(false);
    expect(readFileSync(last.reportPath!, 'utf8')).toContain('Failed: 1 of');
  });
});

describe('LibrarySettingsStore, "Copy the whole card"', () => {
  it('is on by default, and kept off once turned off', () => {
    const kept = new Map<string, unknown>();
    const store = new LibrarySettingsStore({ get: (k) => kept.get(k), set: (k, v) => kept.set(k, v) }, '/lib');
    expect(store.get().wholeCard).toBe(true);
    store.save({ ...store.get(), wholeCard: false });
    expect(new LibrarySettingsStore({ get: (k) => kept.get(k), set: () => {} }, '/lib').get().wholeCard).toBe(false);
    // A save that does not say keeps what was chosen.
    store.save({ library: '/lib', keepDays: 3, uploadFromCard: false });
    expect(store.get().wholeCard).toBe(false);
  });
});
