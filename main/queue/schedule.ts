import type Database from 'better-sqlite3';
import type { CaptureRowRaw, CaptureState, FileRowRaw, QueuedCapture, QueuedFile } from './rows.js';
import { now, toCapture, toFile } from './rows.js';
import { statementCache } from './statements.js';

/**
 * When captures and files are due, and the claims that take them: a capture claimed
 * for registration in one committed statement, its add-capture marked as sent, moved between
 * states with a retry time, and the files due to start. Reads and writes the `captures` and
 * `files` tables of the upload queue; throws better-sqlite3's SqliteError on a storage failure.
 */
export class QueueSchedule {
  constructor(
    private readonly db: Database.Database,
    private readonly sql: (text: string) => Database.Statement = statementCache(db),
  ) {}

  /**
   * Claims the first `queued` capture in queue order (moved to the front first, then oldest) that is due (no retry time, or one at or before `at`, ms)
   * by moving it to `registering` (not yet sent) in one statement, so no two callers ever send the
   * same capture (§4.4 add-capture is not idempotent). Returns it, or undefined when none is due.
   *
   * The row is handed back only once its commit succeeded: the UPDATE runs to completion inside
   * an explicit transaction, whose COMMIT throws on failure. (Read with `.get()` in autocommit, the
   * commit happens when the statement is reset and its error is lost: on a full disk the same
   * row, never claimed, came back again and again:.)
   *
   * With `sent` the same commit also carries the sent mark (as markCaptureSent), for a caller that
   * will send add-capture at once, with no sign-in between: one commit per claim instead of two,
   * and each commit waits for the disk (synchronous=FULL).
   * Throws SqliteError (SQLITE_FULL, SQLITE_READONLY, SQLITE_IOERR...) when it cannot be written.
   */
  claimDueCapture(at: number, sent = false): QueuedCapture | undefined {
    const t = now();
    // Two lookups, each read from an index in the order it wants, so a claim reads about one row
    // however many captures are queued: the captures in front (index captures_in_front, a few;
    // `+state` keeps SQLite from starting at every queued capture instead), else the oldest in the
    // queue's own order (captures_by_state is (state, id)). A single ORDER BY priority DESC, id
    // over the queued captures would sort all of them at each claim, and an add of 5,000 captures
    // claims 5,000 times (main/queue/schedule.test.ts reads the plan). A priority is 0 or above
    // (setFront), never below.
    const due = '(next_attempt_at IS NULL OR next_attempt_at <= @at)';
    const rows = this.db.transaction(
      () =>
        this.sql(
          `UPDATE captures SET state = 'registering', sent_at = @sent, updated_at = @t
             WHERE id = COALESCE(
                 (SELECT id FROM captures WHERE priority > 0 AND +state = 'queued' AND ${due}
                    ORDER BY priority DESC, id LIMIT 1),
                 (SELECT id FROM captures INDEXED BY captures_by_state
                    WHERE state = 'queued' AND priority = 0 AND ${due} ORDER BY id LIMIT 1))
               AND state = 'queued'
             RETURNING *`,
        ).all({ sent: sent ? t : null, t, at }) as CaptureRowRaw[],
    )();
    return rows[0] && toCapture(rows[0]);
  }

  /**
   * Records, durably, that the add-capture request (§4.4) of a claimed capture is about to leave:
   * from this commit on a restart treats it as possibly registered. Called after signing in and
   * just before the body is sent. Throws SqliteError when it cannot be written (then nothing may
   * be sent), and Error when the capture is no longer `registering` (a person dropped it meanwhile).
   */
  markCaptureSent(id: number): void {
    const r = this.sql(`UPDATE captures SET sent_at = ?, updated_at = ? WHERE id = ? AND state = 'registering'`).run(
      now(),
      now(),
      id,
    );
    if (r.changes !== 1) throw new Error(`Capture ${id} is no longer being registered`);
  }

  /**
   * Moves a capture from one of `from` to `to`, with `error` (null clears it); answers whether it
   * moved. A capture no longer in `from` (changed or removed meanwhile) is left alone.
   * `retryAt` (ms since epoch) schedules the next registration attempt and counts one more attempt.
   */
  moveCapture(
    id: number,
    from: CaptureState[],
    to: CaptureState,
    error: string | null = null,
    retryAt?: number,
  ): boolean {
    const counted = retryAt === undefined ? 'attempts' : 'attempts + 1';
    return (
      this.sql(
        `UPDATE captures SET state = ?, error = ?, next_attempt_at = ?, attempts = ${counted}, updated_at = ?
           WHERE id = ? AND state IN (${from.map(() => '?').join(',')})`,
      ).run(to, error, retryAt ?? null, now(), id, ...from).changes === 1
    );
  }

  /** Makes every queued capture due sooner than `at` (ms since epoch) wait until then, without counting an attempt. */
  deferQueuedCaptures(at: number): void {
    this.sql(
      `UPDATE captures SET next_attempt_at = ? WHERE state = 'queued' AND (next_attempt_at IS NULL OR next_attempt_at < ?)`,
    ).run(at, at);
  }

  /**
   * Pending files due by `at` (ms since epoch), at most `limit`, in the order they are to start
   * (docs/decisions/0005-fair-order.md):
   * 1. the person's order: files of captures moved to the front (highest priority first);
   * 2. within one priority, a file whose retry is due (a retry time at or before `at`) before any
   *    file without one (not yet tried, or stopped without a failure), so a passing failure never
   *    sends a file behind every capture that arrived after it;
   * 3. then the order of registration (file id).
   * `exclude` lists file ids to skip (already running); `waiting` the ids of files that wait for
   * their card, pulled out (removed-cards.ts). Files awaiting their verified copy and files whose
   * retry is not yet due are never returned. Throws SqliteError on a storage failure.
   *
   * Three ordered runs, each cut to `limit`, merged: the first starts from the few captures in
   * front (index captures_in_front), the second from the retries due (index files_due), the
   * third walks the untried files in id order (files_due, next_attempt_at IS NULL) and stops
   * after `limit`. So a call reads about `limit` rows plus the retries due, not every pending
   * file: 10,000 queued files cost no sort of 10,000 rows (npm run bench:queue prints it).
   * A priority is 0 (the queue's order) or above (setFront), never below.
   */
  dueFiles(at: number, limit: number, exclude: readonly number[] = [], waiting: readonly number[] = []): QueuedFile[] {
    const skip = JSON.stringify([...exclude, ...waiting]);
    const pending = `f.state = 'pending' AND f.awaiting_copy = 0 AND f.id NOT IN (SELECT value FROM json_each(@skip))`;
    return (
      this.sql(
        `SELECT * FROM (
             SELECT c.priority AS in_line, f.next_attempt_at IS NULL AS untried, f.* FROM captures c CROSS JOIN files f ON f.capture_row = c.id
             WHERE c.priority > 0 AND ${pending} AND (f.next_attempt_at IS NULL OR f.next_attempt_at <= @at)
             ORDER BY c.priority DESC, untried, f.id LIMIT @limit)
           UNION ALL SELECT * FROM (
             SELECT c.priority, 0, f.* FROM files f JOIN captures c ON c.id = f.capture_row
             WHERE c.priority = 0 AND ${pending} AND f.next_attempt_at <= @at
             ORDER BY f.id LIMIT @limit)
           UNION ALL SELECT * FROM (
             SELECT c.priority, 1, f.* FROM files f JOIN captures c ON c.id = f.capture_row
             WHERE c.priority = 0 AND ${pending} AND f.next_attempt_at IS NULL
             ORDER BY f.id LIMIT @limit)
           ORDER BY in_line DESC, untried, id LIMIT @limit`,
      ).all({ at, limit, skip }) as FileRowRaw[]
    ).map(toFile);
  }

  /**
   * Moves a capture to the front of the queue (`front`: one more than the highest priority so far,
   * so the last one moved goes first) or back to its own place by age (priority 0), in one
   * statement. Answers its priority now, or null when there is no such capture.
   * Throws SqliteError when it cannot be written.
   */
  setFront(captureRow: number, front: boolean): number | null {
    // Run to completion in a transaction (as claimDueCapture): a failed commit throws, never lost.
    const rows = this.db.transaction(
      () =>
        this.sql(
          `UPDATE captures SET priority = CASE WHEN ? THEN (SELECT COALESCE(MAX(priority), 0) + 1 FROM captures) ELSE 0 END, updated_at = ?
             WHERE id = ? RETURNING priority`,
        ).all(front ? 1 : 0, now(), captureRow) as { priority: number }[],
    )();
    return rows[0]?.priority ?? null;
  }

  /** The priority of each file's capture (0: the queue's own order), for the files given; absent ids are left out. */
  priorities(fileIds: readonly number[]): Map<number, number> {
    if (fileIds.length === 0) return new Map();
    const rows = this.sql(
      `SELECT f.id AS id, c.priority AS priority FROM files f JOIN captures c ON c.id = f.capture_row WHERE f.id IN (${fileIds.map(() => '?').join(',')})`,
    ).all(...fileIds) as { id: number; priority: number }[];
    return new Map(rows.map((r) => [r.id, r.priority]));
  }

  /**
   * The earliest scheduled retry of a pending file or queued capture (ms since epoch), or null when
   * none waits; the `waiting` files (ids; their card was pulled out) are not due at any time.
   */
  nextDueAt(waiting: readonly number[] = []): number | null {
    const r = this.sql(
      `SELECT MIN(t) AS t FROM (
           SELECT MIN(next_attempt_at) AS t FROM files WHERE state = 'pending' AND awaiting_copy = 0 AND id NOT IN (SELECT value FROM json_each(?))
           UNION ALL SELECT MIN(next_attempt_at) FROM captures WHERE state = 'queued')`,
    ).get(JSON.stringify(waiting)) as { t: number | null };
    return r.t;
  }
}
