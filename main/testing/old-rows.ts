import { basename } from 'node:path';
import type { FileFacts } from '../intake/file-identity.js';
import type { Database } from './queue-backdoors.js';
import { memoryQueueAt } from './queue-backdoors.js';

// Rows as an older version of the queue wrote them, for the migration tests: raw SQL, since
// today's queue code writes the later versions' columns. Each builder gives only the columns every
// version has; a test adds the columns of its version to the record.

/** A column's value as SQLite stores it. */
export type SqlValue = string | number | null | Buffer;

/**
 * Inserts `rows` into `table` of `db`, each a record of column name → value (SQL names, as
 * `files.mtime_ms`), in order. Throws SqliteError when a column is not there at the database's version.
 */
export function insertRows(db: Database.Database, table: string, rows: readonly Record<string, SqlValue>[]): void {
  for (const row of rows) {
    const columns = Object.keys(row);
    db.prepare(`INSERT INTO ${table} (${columns.join(', ')}) VALUES (${columns.map(() => '?').join(', ')})`).run(
      ...Object.values(row),
    );
  }
}

/**
 * The `captures` columns of capture `id` every version has: `state`, `label`, project `p1`,
 * structure `s1`, an empty request, created and updated at `at` (ISO 8601).
 */
export function oldCapture(id: number, state: string, label: string, at: string): Record<string, SqlValue> {
  return { id, state, label, project: 'p1', structure: 's1', request_json: '{}', created_at: at, updated_at: at };
}

/**
 * The `files` columns of file `id` every version has: frame `id` of capture 1, at `path` (its file
 * name the path's last part), video/insv, `size` bytes, modified at `mtimeMs` (ms since the epoch), in `state`.
 */
export function oldFile(
  id: number,
  path: string,
  size: number,
  mtimeMs: number,
  state: string,
): Record<string, SqlValue> {
  return {
    id,
    capture_row: 1,
    frame_index: id,
    path,
    file_name: basename(path),
    content_type: 'video/insv',
    size,
    mtime_ms: mtimeMs,
    state,
  };
}

/**
 * A queue in memory at `version` (see memoryQueueAt) holding capture 1, `walk`, in `state`, written
 * as that version wrote it at 2026-11-20T10:00:00.000Z: where a migration test puts its files.
 */
export function oldQueueWithWalk(version: number, state = 'registered'): Database.Database {
  const db = memoryQueueAt(version);
  insertRows(db, 'captures', [oldCapture(1, state, 'walk', '2026-11-20T10:00:00.000Z')]);
  return db;
}

/**
 * The part MD5s an earlier offload kept for a verified copy (migration 11's `part_md5s`): the
 * copy's identity as stat gave it once in place, the part size in bytes, and the digests (16 bytes
 * each, part order), kept at `at` (ISO 8601).
 */
export function oldPartMd5s(
  db: Database.Database,
  c: FileFacts & { path: string },
  partSize: number,
  md5s: Buffer,
  at = new Date().toISOString(),
): void {
  insertRows(db, 'part_md5s', [
    {
      path: c.path,
      size: c.size,
      mtime_ms: Math.trunc(c.mtimeMs),
      dev: c.dev,
      ino: c.ino,
      ctime_ns: c.ctimeNs,
      part_size: partSize,
      md5s,
      created_at: at,
    },
  ]);
}
