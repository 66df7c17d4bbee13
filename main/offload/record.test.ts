import { Database, memoryQueueAt } from '../testing/queue-backdoors.js';
import { existsSync, mkdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { writeFakeCard } from '../card/fake-card.js';
import { migrate, openQueueDatabase } from '../queue/db.js';
import { MIGRATIONS } from '../queue/migrations/index.js';
import { openUploader } from '../service/uploader.js';
import { libraryUsage } from './library-usage.js';
import { offloadCard } from './offload.js';
import { killed, stuckInAnotherProcess } from '../testing/offload-child.js';
import { unreachableGatewayConfig, useWorkDir } from '../testing/kit.js';
import { listOffloads, OffloadRecorder } from './record.js';
import { DEFAULT_RETENTION_MS, removeFinishedCopies } from './retention.js';

// The offload is recorded as it goes, so a stop mid-import (a crash, a quit, a power
// cut) leaves its verified copies known to the queue.
const work = useWorkDir('record-test');
const DAY = 24 * 60 * 60 * 1000;
const gateway = unreachableGatewayConfig('p1');

/** Rows as stored, read beside the writer's connection. */
const rows = (file: string) => {
  const db = new Database(file, { readonly: true });
  try {
    return {
      offloads: db
        .prepare('SELECT state, finished_at AS finishedAt, verified, files, mhl_path AS mhl FROM offloads ORDER BY id')
        .all() as { state: string; finishedAt: string | null; verified: number; files: number; mhl: string | null }[],
      files: db
        .prepare('SELECT source_path AS source, copy_path AS copy, xxh64, verified FROM offload_files ORDER BY id')
        .all() as { source: string; copy: string; xxh64: string | null; verified: number }[],
    };
  } finally {
    db.close();
  }
};

describe('the offload record, kept as it goes', () => {
  it("has its row when the copy starts and each file's as it is checked, each committed before the next file is done, then finished", async () => {
    const card = writeFakeCard(join(work, 'GOING'), { recordings: 3 });
    mkdirSync(join(work, 'going'));
    const file = join(work, 'going', 'queue.db');
    const { db } = openQueueDatabase(file);
    const last = card.recordings.at(-1)!.split('/').pop()!;
    let open!: () => void;
    const gate = new Promise<void>((r) => (open = r));
    let seen: ReturnType<typeof rows> | undefined;
    const done = offloadCard(card.root, {
      library: join(work, 'going', 'library'),
      journal: new OffloadRecorder(() => db),
      // The last file waits; the other lane has finished the rest by then.
      afterWrite: async (_partial, dest) => {
        if (dest.endsWith(`/${last}`)) await gate;
      },
    });
    await vi.waitFor(() => {
      seen = rows(file);
      expect(seen.files).toHaveLength(5);
    });
    expect(seen!.offloads).toEqual([{ state: 'copying', finishedAt: null, verified: 0, files: 6, mhl: null }]);
    expect(seen!.files.map((f) => f.source).sort()).toEqual(card.recordings.slice(0, 5).sort());
    expect(seen!.files.every((f) => f.verified === 1 && /^[0-9a-f]{16}$/.test(f.xxh64!) && existsSync(f.copy))).toBe(
      true,
    );
    open();
    const r = await done;
    // offloadCard ends the record itself, once the MHL is written.
    const end = rows(file);
    expect(end.offloads).toEqual([
      { state: 'finished', finishedAt: r.finishedAt, verified: 1, files: 6, mhl: r.mhlPath },
    ]);
    expect(end.files.map((f) => [f.source, f.copy, f.xxh64, f.verified]).sort()).toEqual(
      r.files.map((f) => [f.source, f.copy, f.xxh64, 1]).sort(),
    );
    db.close();
  });

  it("found copying at the next open is interrupted; its verified copies count in the library's use and go after the retention once placed and completed", async () => {
    const dataDir = join(work, 'stopped');
    const library = join(work, 'stopped', 'library');
    mkdirSync(dataDir);
    // The app stops (its process is killed) while the last file is written: the offload never returns.
    const app = await stuckInAnotherProcess({
      dataDir,
      library,
      card: join(work, 'STOPPED'),
      at: '2026-11-25T08:00:00Z',
      recordings: 3,
    });
    await vi.waitFor(() => expect(rows(join(dataDir, 'queue.db')).files).toHaveLength(5));
    await killed(app.child);

    const u = openUploader({ dataDir, gateway });
    try {
      const [offload] = listOffloads(u.queue.db);
      expect(offload).toMatchObject({ state: 'interrupted', finishedAt: null, verified: false, fileCount: 6 });
      const copies = offload!.files.map((f) => f.copy);
      expect(copies).toHaveLength(5);
      expect(await libraryUsage(u.queue.db, library)).toEqual({
        copies: 5,
        bytes: copies.reduce((n, c) => n + statSync(c).size, 0),
      });

      // The first recording's copies were placed and completed 8 days ago; the rest never placed.
      const now = Date.parse('2026-11-25T09:00:00Z');
      const at = new Date(now - 8 * DAY).toISOString();
      const capture = Number(
        u.queue.db
          .prepare(
            `INSERT INTO captures (state, label, project, structure, request_json, created_at, updated_at) VALUES ('completed', 'walk', 'p1', 's1', '{}', ?, ?)`,
          )
          .run(at, at).lastInsertRowid,
      );
      const first = copies.filter((c) => c.includes('_001.insv'));
      first.forEach((c, i) =>
        u.queue.db
          .prepare(
            `INSERT INTO files (capture_row, frame_index, path, file_name, content_type, size, mtime_ms, state, completed_at) VALUES (?, ?, ?, 'x.insv', 'video/insv', 1, 1, 'completed', ?)`,
          )
          .run(capture, i + 1, c, at),
      );
      expect((await removeFinishedCopies(u.queue.db, now, DEFAULT_RETENTION_MS)).map((x) => x.copy).sort()).toEqual(
        first.sort(),
      );
      expect(copies.map((c) => existsSync(c))).toEqual(copies.map((c) => !first.includes(c)));
      expect(await libraryUsage(u.queue.db, library)).toEqual({ copies: 3, bytes: expect.any(Number) });
    } finally {
      await u.close();
    }
  });

  it('14: a queue of version 13 opens with its offloads finished and their files as they were', () => {
    const db = memoryQueueAt(13);
    db.prepare(
      `INSERT INTO offloads (id, card_path, card_name, destination, started_at, finished_at, files, bytes, verified, mhl_path) VALUES (3, '/media/X4', 'X4', '/lib/X4_1', 'a', 'b', 2, 20, 1, '/lib/X4_1/ascmhl/x.mhl')`,
    ).run();
    db.prepare(
      `INSERT INTO offload_files (id, offload_id, source_path, copy_path, size, mtime_ms, xxh64, verified, error, removed_at) VALUES (5, 3, '/media/X4/a', '/lib/X4_1/a', 10, 1.5, 'abc', 1, NULL, 'r'), (6, 3, '/media/X4/b', '/lib/X4_1/b', 10, 2, NULL, 0, 'bad', NULL)`,
    ).run();
    const files = db.prepare('SELECT * FROM offload_files ORDER BY id').all();
    migrate(db, ':memory:', MIGRATIONS, 14);
    expect(db.prepare('SELECT * FROM offloads').all()).toEqual([
      {
        id: 3,
        card_path: '/media/X4',
        card_name: 'X4',
        destination: '/lib/X4_1',
        started_at: 'a',
        finished_at: 'b',
        files: 2,
        bytes: 20,
        verified: 1,
        mhl_path: '/lib/X4_1/ascmhl/x.mhl',
        state: 'finished',
      },
    ]);
    expect(db.prepare('SELECT * FROM offload_files ORDER BY id').all()).toEqual(files);
    // The files still belong to their offload: forgetting it forgets them.
    expect(db.pragma('foreign_key_check')).toEqual([]);
    db.prepare('DELETE FROM offloads WHERE id = 3').run();
    expect(db.prepare('SELECT COUNT(*) FROM offload_files').pluck().get()).toBe(0);
  });
});
