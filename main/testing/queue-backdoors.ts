import Database from 'better-sqlite3';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { migrate, openQueueDatabase } from '../queue/db.js';
import { LATEST_VERSION, MIGRATIONS } from '../queue/migrations/index.js';
import type { CaptureState, FileState, UploadQueue } from '../queue/queue.js';

// Doors into queue.db that production code must never use: they set rows as a test or a bench
// needs them, past the engine's transitions (engine/progress/transitions.ts) and past main/queue's reader
// and writer. They live here, under main/testing/, which no production module imports, and
// eslint lets only main/queue/, main/office/records-store.ts and this folder import better-sqlite3
// (docs/decisions/0016-queue-db-owner.md).

/**
 * better-sqlite3's Database, for a test that opens a database file on its own connection
 * (queue.db read-only to check what was committed, records.db, a file made damaged on purpose).
 */
export { Database };

/**
 * Writes `<dir>/queue.db` (folders made as needed) as a newer version of the app would leave it:
 * its user_version one past LATEST_VERSION, which this version refuses to open (QueueTooNewError).
 */
export function writeNewerQueue(dir: string): void {
  mkdirSync(dir, { recursive: true });
  const raw = new Database(join(dir, 'queue.db'));
  raw.pragma(`user_version = ${LATEST_VERSION + 1}`);
  raw.close();
}

/**
 * A queue database in memory migrated to `version` (the latest when not given), as a version of
 * the app left it, for a migration test that writes that version's rows by hand; foreign keys on
 * unless `foreignKeys` is false. Throws what `migrate` throws.
 */
export function memoryQueueAt(version?: number, foreignKeys = true): Database.Database {
  const db = new Database(':memory:');
  if (foreignKeys) db.pragma('foreign_keys = ON');
  migrate(db, ':memory:', MIGRATIONS, version);
  return db;
}

/**
 * Moves file `id` to `state` with an optional error (null clears it), stamping `completed_at`
 * (ISO 8601) when `state` is `completed`, whatever state it was in: no transition is checked and
 * no activity is written. Throws Error when there is no such file, SqliteError on a storage failure.
 */
export function setFileState(queue: UploadQueue, id: number, state: FileState, error: string | null = null): void {
  const completedAt = state === 'completed' ? new Date().toISOString() : null;
  const r = queue.db
    .prepare('UPDATE files SET state = ?, error = ?, completed_at = ? WHERE id = ?')
    .run(state, error, completedAt, id);
  if (r.changes === 0) throw new Error(`No file ${id} in the queue`);
}

/**
 * Moves every file of the queue to `state` (only those in `from` when given), setting `error` when
 * given and leaving it as it is otherwise; no transition is checked, `completed_at` is untouched.
 * For a bench that needs a whole queue in one state (a retry of all, a crash mid-drain).
 */
export function setEveryFileState(
  queue: UploadQueue,
  state: FileState,
  o: { from?: FileState; error?: string } = {},
): void {
  const set = o.error === undefined ? 'state = ?' : 'state = ?, error = ?';
  const where = o.from === undefined ? '' : ' WHERE state = ?';
  const params = [state, ...(o.error === undefined ? [] : [o.error]), ...(o.from === undefined ? [] : [o.from])];
  queue.db.prepare(`UPDATE files SET ${set}${where}`).run(...params);
}

/** Moves every capture of the queue to `state`, past the transitions (a bench's "everything uploaded"). */
export function setEveryCaptureState(queue: UploadQueue, state: CaptureState): void {
  queue.db.prepare('UPDATE captures SET state = ?').run(state);
}

/** Forgets every file's retry: no retry time, no attempts, no error, not transient. */
export function clearEveryRetry(queue: UploadQueue): void {
  queue.db.prepare('UPDATE files SET next_attempt_at = NULL, attempts = 0, error = NULL, transient = 0').run();
}

/** Gives every part of file `fileId` the ETag `etag` (quoted, as storage returns it), as if all were stored. */
export function storeEveryPart(queue: UploadQueue, fileId: number, etag: string): void {
  queue.db.prepare('UPDATE parts SET etag = ? WHERE file_id = ?').run(etag, fileId);
}

/**
 * ms each of `n` one-row commits waited for, on a probe table in a database at `file` opened as
 * the queue opens its own (WAL, synchronous=FULL; main/queue/db.ts openQueueDatabase). `file`
 * must not be a queue. In commit order.
 */
export function commitTimes(file: string, n: number): number[] {
  const { db } = openQueueDatabase(file);
  try {
    db.exec('CREATE TABLE probe (n INTEGER)');
    const insert = db.prepare('INSERT INTO probe (n) VALUES (?)');
    const times: number[] = [];
    for (let i = 0; i < n; i++) {
      const t0 = performance.now();
      insert.run(i);
      times.push(performance.now() - t0);
    }
    return times;
  } finally {
    db.close();
  }
}

/**
 * Writes at `file` a queue as the first release left it (schema version 1, raw SQL in the columns
 * version 1 has): `captures` completed captures of two files of `parts` stored parts each, for a
 * bench of the opening and its migrations at scale. Throws what better-sqlite3 throws.
 */
export function writeEarlyQueue(file: string, captures: number, parts: number): void {
  const db = new Database(file);
  db.pragma('foreign_keys = ON');
  migrate(db, file, MIGRATIONS, 1);
  const at = '2026-11-20T10:00:00.000Z';
  const request = JSON.stringify({
    project: 'p1',
    structure: 's1',
    captureDateTime: at,
    type: 'interior',
    mode: '360 Video',
    sourceType: 'bot',
    files: [],
  });
  const capture = db.prepare(
    `INSERT INTO captures (id, state, label, project, structure, request_json, capture_id, created_at, updated_at) VALUES (?, 'completed', ?, 'p1', 's1', ?, ?, ?, ?)`,
  );
  const fileRow = db.prepare(
    `INSERT INTO files (id, capture_row, frame_index, path, file_name, content_type, size, mtime_ms, state, upload_id, part_size, total_parts)
     VALUES (?, ?, ?, ?, ?, 'video/insv', 104857600, 1700000000123, 'completed', ?, 5242880, ?)`,
  );
  const part = db.prepare(
    `INSERT INTO parts (file_id, part_number, size, etag) VALUES (?, ?, 5242880, '"0123456789abcdef0123456789abcdef"')`,
  );
  db.transaction(() => {
    let id = 0;
    for (let c = 1; c <= captures; c++) {
      capture.run(c, `VID_${c}`, request, `cap-${c}`, at, at);
      for (const frame of [1, 2]) {
        id++;
        fileRow.run(id, c, frame, `/card/VID_${c}_${frame}.insv`, `VID_${c}_${frame}.insv`, `u-${id}`, parts);
        for (let n = 1; n <= parts; n++) part.run(id, n);
      }
    }
  })();
  db.close();
}

/**
 * Whether the newest offload recorded in `queue` has finished with every file verified (its row
 * as main/offload/record.ts commits it), for a bench that times when the record says so.
 */
export function newestOffloadVerified(queue: UploadQueue): boolean {
  const row = queue.db.prepare(`SELECT state, verified FROM offloads ORDER BY id DESC LIMIT 1`).get() as
    | { state: string; verified: number }
    | undefined;
  return row?.state === 'finished' && row.verified === 1;
}

/** The copies' paths (in the library) of every Insta360 `VID_….insv` the queue's offloads recorded, sorted. */
export function offloadedRecordingCopies(queue: UploadQueue): string[] {
  return (
    queue.db
      .prepare(`SELECT copy_path AS copy FROM offload_files WHERE copy_path LIKE '%/VID\\_%.insv' ESCAPE '\\'`)
      .all() as { copy: string }[]
  )
    .map((r) => r.copy)
    .sort();
}
