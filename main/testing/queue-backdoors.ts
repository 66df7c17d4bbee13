import Database from 'better-sqlite3';
import type { FileState, UploadQueue } from '../queue/queue.js';

// Doors into queue.db that production code must never use: they set rows as a test or a bench
// needs them, past the engine's transitions (engine/transitions.ts) and past main/queue's reader
// and writer. They live here, under main/testing/, which no production module imports, and
// eslint lets only main/queue/, main/office/store.ts and this folder import better-sqlite3
// (docs/decisions/queue-db-owner.md).

/**
 * better-sqlite3's Database, for a test that opens a database file on its own connection
 * (queue.db read-only to check what was committed, records.db, a file made damaged on purpose).
 */
export { Database };

/**
 * Moves file `id` to `state` with an optional error (null clears it), stamping `completed_at`
 * (ISO 8601) when `state` is `completed`, whatever state it was in: no transition is checked and
 * no activity is written. Throws Error when there is no such file, SqliteError on a storage failure.
 */
export function setFileState(queue: UploadQueue, id: number, state: FileState, error: string | null = null): void {
  const completedAt = state === 'completed' ? new Date().toISOString() : null;
  const r = queue.db.prepare('UPDATE files SET state = ?, error = ?, completed_at = ? WHERE id = ?').run(state, error, completedAt, id);
  if (r.changes === 0) throw new Error(`No file ${id} in the queue`);
}
