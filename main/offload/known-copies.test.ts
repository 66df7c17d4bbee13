import type { Database } from '../testing/queue-backdoors.js';
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, utimesSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { describeKnownCard } from '../../shared/card-offer.js';
import { writeFakeCard } from '../card/fake-card.js';
import { openQueueDatabase } from '../queue/db.js';
import { findKnownCopies, summarizeKnown } from './known-copies.js';
import type { OffloadedFile, OffloadOptions } from './offload.js';
import { offloadCard } from './offload.js';
import { listOffloads, OffloadRecorder } from './record.js';
import { fileSha256, MiB, overwriteAt, useWorkDir } from '../testing/kit.js';

// A card put back is known by what it holds (docs/decisions/0020-card-known-by-content.md): the
// recordings whose verified copies are in the library are not copied again, wherever the card is
// mounted now, and only what is new is copied.
const work = useWorkDir('known-copies-test');

/** Every file under `dir`, relative, with its size and SHA-256: what the library holds. */
function tree(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isDirectory()) walk(p);
      else out[relative(dir, p)] = `${statSync(p).size}:${fileSha256(p)}`;
    }
  };
  walk(dir);
  return out;
}

/** Puts a queue row for each copy, in `state` (what the upload engine would have left). */
function queueCopies(db: Database.Database, copies: readonly string[], state: 'completed' | 'pending'): void {
  const at = '2026-11-26T18:00:00.000Z';
  const capture = Number(
    db
      .prepare(
        `INSERT INTO captures (state, label, project, structure, request_json, created_at, updated_at) VALUES (?, 'walk', 'p1', 's1', '{}', ?, ?)`,
      )
      .run(state === 'completed' ? 'completed' : 'registered', at, at).lastInsertRowid,
  );
  copies.forEach((copy, i) => {
    const st = statSync(copy);
    db.prepare(
      `INSERT INTO files (capture_row, frame_index, path, file_name, content_type, size, mtime_ms, state) VALUES (?, ?, ?, ?, 'video/insv', ?, ?, ?)`,
    ).run(capture, i + 1, copy, copy.split('/').pop(), st.size, Math.trunc(st.mtimeMs), state);
  });
}

describe('a card put back the next morning', () => {
  it('is known by its content at another mount point: nothing is copied again, the result says how many are uploaded, queued or not placed, and a new recording alone is copied', async () => {
    const { db } = openQueueDatabase(join(work, 'queue.db'));
    const library = join(work, 'library');
    const card = writeFakeCard(join(work, 'mnt-a', 'X4_CARD'), { recordings: 3, bytes: 3 * MiB + 5 });
    const handed: OffloadedFile[][] = [];
    const opts = (at: string): OffloadOptions => ({
      library,
      now: () => new Date(at),
      journal: new OffloadRecorder(() => db),
      knownCopies: (files) => findKnownCopies(db, files),
      onRecording: (files) => void handed.push(files),
    });

    const first = await offloadCard(card.root, opts('2026-11-26T17:00:00Z'));
    expect(first.verified).toBe(true);
    expect(first.files).toHaveLength(6);
    const copyOf = new Map(first.files.map((f) => [f.source.split('/').pop()!, f.copy]));
    const copiesOf = (n: number) =>
      card.recordings.slice(2 * n, 2 * n + 2).map((p) => copyOf.get(p.split('/').pop()!)!);
    // Overnight: the first recording uploaded, the second queued, the third never placed.
    queueCopies(db, copiesOf(0), 'completed');
    queueCopies(db, copiesOf(1), 'pending');
    const libraryBefore = tree(library);

    // The next morning the card is mounted elsewhere (another reader, another name for its mount).
    mkdirSync(join(work, 'mnt-b'));
    const again = join(work, 'mnt-b', 'X4_CARD');
    renameSync(card.root, again);
    handed.length = 0;
    const second = await offloadCard(again, opts('2026-11-27T08:00:00Z'));
    expect(second.files).toEqual([]);
    expect(second.bytes).toBe(0);
    expect(second.verified).toBe(true);
    expect(second.destination).toBe(first.destination);
    expect(second.alreadyCopied!.map((r) => r.map((c) => c.copy))).toEqual([copiesOf(0), copiesOf(1), copiesOf(2)]);
    // No second copy: the library holds the same files with the same bytes, and no offload was recorded.
    expect(tree(library)).toEqual(libraryBefore);
    expect(listOffloads(db).map((o) => o.files.length)).toEqual([6]);
    const summary = summarizeKnown(second.recordings + second.alreadyCopied!.length, second.alreadyCopied!);
    expect(summary).toMatchObject({
      recordings: 3,
      known: 3,
      uploaded: 1,
      queued: 1,
      copied: 1,
      importedAt: first.startedAt,
      destination: first.destination,
    });
    expect(describeKnownCard(summary, { locale: 'en-GB', now: Date.parse('2026-11-27T08:00:00Z') })).toBe(
      `Already imported on 26 Nov to ${first.destination}: 3 of 3 recordings (1 uploaded, 1 waiting to upload, 1 not placed yet)`,
    );
    // The recording never placed is handed on from its existing copies, as a new one would be.
    expect(handed.map((r) => r.map((f) => f.copy))).toEqual([copiesOf(2)]);

    // A recording added to the card since: it alone is copied, into a folder of its own.
    const added = writeFakeCard(again, {
      recordings: 1,
      start: new Date(2026, 10, 27, 7, 30, 0),
      firstSegment: 4,
      bytes: 2 * MiB + 9,
    });
    const third = await offloadCard(again, opts('2026-11-27T08:05:00Z'));
    expect(third.verified).toBe(true);
    expect(third.files.map((f) => f.source.split('/').pop())).toEqual(added.recordings.map((p) => p.split('/').pop()));
    expect(third.alreadyCopied).toHaveLength(3);
    expect(third.recordings).toBe(1);
    const offloads = listOffloads(db);
    expect(offloads.map((o) => o.files.length)).toEqual([6, 2]);
    expect(offloads[1]!.bytes).toBe(2 * (2 * MiB + 9));
    const now = tree(library);
    const newFiles = Object.keys(now).filter((p) => !(p in libraryBefore));
    expect(newFiles.filter((p) => p.endsWith('.insv')).sort()).toEqual(
      third.files.map((f) => relative(library, f.copy)).sort(),
    );
    db.close();
  });

  it('copies a file whose name, size and time match a copy but whose first MiB differs, and one whose copy is gone from the library', async () => {
    const { db } = openQueueDatabase(join(work, 'queue-2.db'));
    const library = join(work, 'library-2');
    const card = writeFakeCard(join(work, 'mnt-c', 'X4_OTHER'), { recordings: 2, bytes: 3 * MiB });
    const opts: OffloadOptions = {
      library,
      journal: new OffloadRecorder(() => db),
      knownCopies: (files) => findKnownCopies(db, files),
    };
    const first = await offloadCard(card.root, opts);
    expect(first.files).toHaveLength(4);

    // Another card's recording under the same name, size and time: one byte differs in the first MiB.
    const changed = card.recordings[0]!;
    const st = statSync(changed);
    overwriteAt(changed, 1000, Buffer.from([readFileSync(changed)[1000]! ^ 0xff]));
    utimesSync(changed, st.atime, st.mtime);
    // The second recording's copy was removed from the library by hand.
    rmSync(first.files.find((f) => f.source === card.recordings[2])!.copy);

    const second = await offloadCard(card.root, opts);
    expect(second.alreadyCopied ?? []).toEqual([]);
    expect(second.files.map((f) => f.source).sort()).toEqual([...card.recordings].sort());
    expect(second.verified).toBe(true);
    db.close();
  });

  it('copies everything again when the person asks (no knownCopies): a second offload of every file', async () => {
    const { db } = openQueueDatabase(join(work, 'queue-3.db'));
    const card = writeFakeCard(join(work, 'mnt-d', 'X4_AGAIN'), { recordings: 1 });
    const journal = () => new OffloadRecorder(() => db);
    await offloadCard(card.root, {
      library: join(work, 'library-3'),
      journal: journal(),
      knownCopies: (files) => findKnownCopies(db, files),
    });
    const asked = await offloadCard(card.root, {
      library: join(work, 'library-3'),
      journal: journal(),
      now: () => new Date(Date.now() + 2000),
    });
    expect(asked.files).toHaveLength(2);
    expect(listOffloads(db).map((o) => o.files.length)).toEqual([2, 2]);
    db.close();
  });
});
