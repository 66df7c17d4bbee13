import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { migrate, openQueueDatabase } from '../db.js';
import { UploadQueue } from '../queue.js';
import { LATEST_VERSION, MIGRATIONS } from './index.js';

const work = mkdtempSync(join(tmpdir(), 'migrations-test-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('the migrations, one file each', () => {
  it('are listed in order, numbered 1..n without a gap, and the latest is the last', () => {
    expect(MIGRATIONS.map((m) => m.version)).toEqual(Array.from({ length: LATEST_VERSION }, (_, i) => i + 1));
    expect(LATEST_VERSION).toBe(MIGRATIONS.at(-1)!.version);
  });
});

describe('the schema at the latest version', () => {
  it('indexes the child column of every foreign key, so deleting a parent row is a lookup, not a scan of the child table', () => {
    // Clear completed on 5,000 captures took 2.3 s while files.replaced_by (version 7) had no index.
    const { db } = openQueueDatabase(join(work, 'foreign-keys.db'));
    const tables = (db.prepare(`SELECT name FROM sqlite_master WHERE type = 'table'`).all() as { name: string }[]).map(
      (t) => t.name,
    );
    const unindexed: string[] = [];
    for (const table of tables) {
      const leading = new Set(
        (db.pragma(`index_list(${table})`) as { name: string }[]).map(
          (i) =>
            (db.pragma(`index_info(${i.name})`) as { seqno: number; name: string }[]).find((c) => c.seqno === 0)?.name,
        ),
      );
      const pk = (db.pragma(`table_info(${table})`) as { name: string; pk: number }[]).find((c) => c.pk === 1)?.name;
      for (const fk of db.pragma(`foreign_key_list(${table})`) as { from: string; table: string }[]) {
        if (!leading.has(fk.from) && fk.from !== pk) unindexed.push(`${table}.${fk.from} → ${fk.table}`);
      }
    }
    db.close();
    expect(unindexed).toEqual([]);
  });
});

describe('a queue made by each earlier version opens at the latest with its rows intact', () => {
  const at = '2026-11-20T10:00:00.000Z';
  const request = {
    project: 'p1',
    structure: 's1',
    captureDateTime: '2026-11-20T15:04:05Z',
    type: 'interior',
    mode: '360 Video',
    sourceType: 'bot',
    files: [],
  };

  it.each(MIGRATIONS.slice(0, -1).map((m) => m.version))('version %i', (version) => {
    const file = join(work, `v${version}.db`);
    // The queue as that version left it: its schema, and rows in the columns every version has
    // (raw SQL: today's queue code writes later versions' columns).
    const old = new Database(file);
    old.pragma('foreign_keys = ON');
    migrate(old, file, MIGRATIONS, version);
    expect(old.pragma('user_version', { simple: true })).toBe(version);
    old
      .prepare(
        `INSERT INTO captures (id, state, label, project, structure, request_json, capture_id, created_at, updated_at) VALUES (1, 'registered', 'walk', 'p1', 's1', ?, 'cap-1', ?, ?)`,
      )
      .run(JSON.stringify(request), at, at);
    old
      .prepare(
        `INSERT INTO files (id, capture_row, frame_index, path, file_name, content_type, size, mtime_ms, state, upload_id, part_size, total_parts)
       VALUES (1, 1, 1, '/card/a.insv', 'a.insv', 'video/insv', 12000000, 1700000000123, 'pending', 'u1', 5242880, 3)`,
      )
      .run();
    old
      .prepare(
        `INSERT INTO parts (file_id, part_number, size, etag) VALUES (1, 1, 5242880, '"abc"'), (1, 2, 5242880, NULL), (1, 3, 1515520, NULL)`,
      )
      .run();
    old.close();

    const { db, setAside } = openQueueDatabase(file);
    try {
      expect(setAside).toBeUndefined();
      expect(db.pragma('user_version', { simple: true })).toBe(LATEST_VERSION);
      const q = new UploadQueue(db);
      expect(q.captures()).toEqual([
        expect.objectContaining({
          id: 1,
          state: 'registered',
          label: 'walk',
          project: 'p1',
          structure: 's1',
          captureId: 'cap-1',
          request,
          createdAt: at,
          updatedAt: at,
          priority: 0,
        }),
      ]);
      expect(q.file(1)).toMatchObject({
        captureRow: 1,
        frameIndex: 1,
        path: '/card/a.insv',
        fileName: 'a.insv',
        contentType: 'video/insv',
        size: 12_000_000,
        mtimeMs: 1_700_000_000_123,
        state: 'pending',
        uploadId: 'u1',
        partSize: 5_242_880,
        totalParts: 3,
        replacedBy: null,
        // Migration 5 counts what storage already holds (the one part with an ETag) for rows older than it.
        storedBytes: 5_242_880,
        storedParts: 1,
      });
      expect(q.parts(1).map((p) => [p.partNumber, p.size, p.etag])).toEqual([
        [1, 5_242_880, '"abc"'],
        [2, 5_242_880, null],
        [3, 1_515_520, null],
      ]);
    } finally {
      db.close();
    }
  });
});
