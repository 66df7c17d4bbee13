import type Database from 'better-sqlite3';
import { statementCache } from './statements.js';

/**
 * What happened, in the words the activity log uses. A capture: `queued`, `registered`,
 * `registration-retry` (not registered yet; sent again at the scheduled time), `rejected`,
 * `registration-unknown`, `capture-completed`, `removed`. A file: `started`, `retry-scheduled`,
 * `completed`, `failed`, `paused`, `resumed`, `cancelled`, `removed` (also one line for a batch
 * of files, such as "Pause all": subject `queue`), `replaced` (its recording changed on disk and
 * was added again as a new capture). The queue: `blocked`, `unblocked`, `held` (a queue-wide
 * hold began: "Pause until 07:00" or the timetable's pause hours), `released`.
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
  | 'unblocked'
  | 'held'
  | 'released'
  /** A card was pulled out while its recordings uploaded straight from it, or came back. */
  | 'card-removed'
  | 'card-back'
  /** A capture moved to the front of the queue by a person, or back to its place. */
  | 'moved'
  /** Storage's own list of an upload's parts lacks parts it had acknowledged: they are sent again (engine/file-upload.ts). */
  | 'parts-lost'
  /** Something a person should know about a capture, kept from registration to the finish. */
  | 'warning'
  /** A capture placed by the capture plan and queued with no click (main/service/capture-planner.ts): which walk of which plan day. */
  | 'planned'
  /**
   * The running engine saw an outage (subject `storage` or `capture gateway`): `at` is when it
   * started (its first failure, or a silent link's last sign of life), the message its cause, as
   * the screen says them; `outage-over` when storage answered again or the drain ended
   * (main/engine/outages/outage-record.ts).
   */
  | 'outage'
  | 'outage-over';

/**
 * How many days of lines the activity log keeps (days that have lines, by their own dates: a clock
 * set wrong cannot make them old): a season of nights to read back, not the queue's whole life.
 */
export const ACTIVITY_KEEP_DAYS = 90;

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
    const { lastInsertRowid } = this.sql(
      'INSERT INTO activity (at, capture_row, file_id, subject, kind, message) VALUES (?, ?, ?, ?, ?, ?)',
    ).run(at, e.captureRow, e.fileId, e.subject, e.kind, e.message);
    return {
      id: Number(lastInsertRowid),
      at,
      captureRow: e.captureRow,
      fileId: e.fileId,
      subject: e.subject,
      kind: e.kind,
      message: e.message,
    };
  }

  /**
   * Entries oldest first: those at or after `since` (ISO 8601), at most `limit` (the newest
   * ones when more match; default 1,000).
   */
  list(opts: { since?: string; limit?: number } = {}): ActivityEntry[] {
    const rows = this.sql(
      `SELECT id, at, capture_row AS captureRow, file_id AS fileId, subject, kind, message FROM activity
         WHERE at >= ? ORDER BY id DESC LIMIT ?`,
    ).all(opts.since ?? '', opts.limit ?? 1000) as ActivityEntry[];
    return rows.reverse();
  }

  /** The warnings kept for captures still in the queue, by capture row, oldest first. */
  warnings(): Map<number, string[]> {
    const rows = this.sql(
      `SELECT a.capture_row AS captureRow, a.message FROM activity a JOIN captures c ON c.id = a.capture_row WHERE a.kind = 'warning' ORDER BY a.id`,
    ).all() as { captureRow: number; message: string }[];
    const map = new Map<number, string[]>();
    for (const r of rows) {
      const list = map.get(r.captureRow);
      if (list) list.push(r.message);
      else map.set(r.captureRow, [r.message]);
    }
    return map;
  }

  /** The time of the newest line by its own date (ISO 8601), or null for an empty log. */
  newestAt(): string | null {
    return (this.sql('SELECT MAX(at) AS at FROM activity').get() as { at: string | null }).at;
  }

  /**
   * Keeps the lines of the newest `keepDays` days that have lines (UTC days of their own `at`;
   * default ACTIVITY_KEEP_DAYS) and deletes those of older days; never the lines of `now`'s day
   * (ms since epoch; default Date.now()). A clock that jumps therefore cannot erase history: a run
   * at 2099 adds one day of lines, and the real days stay, the oldest one going for it; a clock at
   * 1970 deletes nothing it wrote. With `maxEntries`, the oldest beyond that many go too. One
   * transaction. Answers how many lines went. Run at open and daily. Throws SqliteError on a
   * storage failure.
   */
  prune(opts: { now?: number; keepDays?: number; maxEntries?: number } = {}): number {
    const today = new Date(opts.now ?? Date.now()).toISOString().slice(0, 10);
    const keepDays = opts.keepDays ?? ACTIVITY_KEEP_DAYS;
    return this.db.transaction(() => {
      // Walked down the index on `at`, a day at a time: the keepDays-th newest day that has lines.
      // 'YYYY-MM-DD' sorts before every time of that day, so `at < day` is the days before it.
      let oldestKept: string | undefined;
      let before = '9999-12-31T99';
      for (let i = 0; i < keepDays; i++) {
        const { at } = this.sql('SELECT MAX(at) AS at FROM activity WHERE at < ?').get(before) as { at: string | null };
        if (at === null) {
          oldestKept = undefined; // fewer days than keepDays: none is old enough to go
          break;
        }
        oldestKept = before = at.slice(0, 10);
      }
      let n = oldestKept
        ? this.sql('DELETE FROM activity WHERE at < ? AND substr(at, 1, 10) <> ?').run(oldestKept, today).changes
        : 0;
      if (opts.maxEntries !== undefined) {
        n += this.sql(
          'DELETE FROM activity WHERE id <= (SELECT id FROM activity ORDER BY id DESC LIMIT 1 OFFSET ?)',
        ).run(opts.maxEntries).changes;
      }
      return n;
    })();
  }
}
