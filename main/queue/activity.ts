import type Database from 'better-sqlite3';
import { statementCache } from './statements.js';

/**
 * What happened, in the words the activity log uses. A capture: `queued`, `registered`,
 * `registration-retry` (not registered yet; sent again at the scheduled time), `rejected`,
 * `registration-unknown`, `capture-completed`, `removed`. A file: `started`, `retry-scheduled`,
 * `completed`, `failed`, `paused`, `resumed`, `cancelled`, `removed`, `replaced` (its recording
 * changed on disk and was added again as a new capture). The queue: `blocked`,
 * `unblocked`.
 */
export type ActivityKind =
  | 'queued'
  | 'registered'
  | 'registration-retry'
  | 'rejected'
  | 'registration-unknown'
  | 'capture-completed'
  | 'started'
  | 'retry-scheduled'
  | 'completed'
  | 'failed'
  | 'paused'
  | 'resumed'
  | 'cancelled'
  | 'removed'
  | 'replaced'
  | 'blocked'
  | 'unblocked';

/**
 * One line of the activity log. `at` is ISO 8601 UTC; `subject` is the capture's label or the
 * file's name as it was then (the log outlives removed rows, so it names them itself).
 */
export interface ActivityEntry {
  id: number;
  at: string;
  captureRow: number | null;
  fileId: number | null;
  subject: string;
  kind: ActivityKind;
  message: string;
}

/** What to write; `at` defaults to now. */
export type NewActivity = Omit<ActivityEntry, 'id' | 'at'> & { at?: string };

/**
 * The queue's activity log (table `activity`, migration 3): what became of each capture and file,
 * and of the queue, so the night's story can be read in the morning. Written in the same
 * transaction as the state change it describes; never holds a secret (messages come from
 * `reasonOf`, which strips URLs to their path).
 */
export class ActivityLog {
  constructor(
    private readonly db: Database.Database,
    private readonly sql: (text: string) => Database.Statement = statementCache(db),
  ) {}

  /** Appends one entry and returns it with its id and time. Throws SqliteError on a storage failure. */
  add(e: NewActivity): ActivityEntry {
    const at = e.at ?? new Date().toISOString();
    const { lastInsertRowid } = this.sql('INSERT INTO activity (at, capture_row, file_id, subject, kind, message) VALUES (?, ?, ?, ?, ?, ?)')
      .run(at, e.captureRow, e.fileId, e.subject, e.kind, e.message);
    return { id: Number(lastInsertRowid), at, captureRow: e.captureRow, fileId: e.fileId, subject: e.subject, kind: e.kind, message: e.message };
  }

  /**
   * Entries oldest first: those at or after `since` (ISO 8601), at most `limit` (the newest
   * ones when more match; default 1,000).
   */
  list(opts: { since?: string; limit?: number } = {}): ActivityEntry[] {
    const rows = this.sql(
        `SELECT id, at, capture_row AS captureRow, file_id AS fileId, subject, kind, message FROM activity
         WHERE at >= ? ORDER BY id DESC LIMIT ?`,
      )
      .all(opts.since ?? '', opts.limit ?? 1000) as ActivityEntry[];
    return rows.reverse();
  }
}
