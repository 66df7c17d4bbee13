import type Database from 'better-sqlite3';
import type { ActivityEntry, ActivityKind, ActivityLog } from './activity.js';
import { now } from './rows.js';

/**
 * What one batch changed: the files and captures whose rows moved or left (ids), and the one
 * activity line that says it (absent when nothing changed).
 */
export interface BatchResult {
  fileIds: number[];
  captureRows: number[];
  entry?: ActivityEntry;
}

// Which files each batch takes. Only files registered (an upload id) can be sent again, as
// UploadEngine.resume asks one by one.
const PAUSABLE = `state IN ('pending', 'uploading')`;
const RESUMABLE = `state = 'paused' AND upload_id IS NOT NULL`;
const RETRYABLE = `upload_id IS NOT NULL AND (state IN ('failed', 'cancelled') OR (state = 'pending' AND next_attempt_at IS NOT NULL))`;

/**
 * A person's actions on many rows at once ("Pause all", "Resume all", "Retry all", "Clear
 * completed", forgetting parts' ETags), each one SQL transaction with one activity line instead
 * of one fsync'd commit and one event per row: 10,000 files paused in milliseconds, not seconds
 * Conditional like the one-row moves (UploadQueue.moveFile): only rows in the
 * states named are touched. Each method throws SqliteError on a storage failure (nothing changed).
 */
export class QueueBatch {
  constructor(
    private readonly db: Database.Database,
    private readonly sql: (text: string) => Database.Statement,
    private readonly activity: ActivityLog,
  ) {}

  /** Pauses every pending or uploading file (their own pause: they wait for a person's resume). */
  pauseAll(): BatchResult {
    return this.moveAll(
      `UPDATE files SET state = 'paused', error = NULL, next_attempt_at = NULL WHERE ${PAUSABLE}`,
      'paused',
      (n) => `Paused ${count(n)}, by a person`,
    );
  }

  /** Resumes every paused file: pending again now, its attempts counted afresh. */
  resumeAll(): BatchResult {
    return this.moveAll(
      `UPDATE files SET state = 'pending', error = NULL, next_attempt_at = NULL, transient = 0, attempts = 0 WHERE ${RESUMABLE}`,
      'resumed',
      (n) => `Resumed ${count(n)}, by a person`,
    );
  }

  /** Sends again every failed or cancelled file and tries every file waiting for its retry time now. */
  retryAll(): BatchResult {
    return this.moveAll(
      `UPDATE files SET state = 'pending', error = NULL, next_attempt_at = NULL, transient = 0, attempts = 0 WHERE ${RETRYABLE}`,
      'resumed',
      (n) => `Queued again ${count(n)}, by a person`,
    );
  }

  /** Takes every completed capture, with its files and parts, off this computer's queue (nothing at the platform changes). */
  removeCompletedCaptures(): BatchResult {
    return this.db.transaction((): BatchResult => {
      const fileIds = (
        this.sql(
          `SELECT f.id FROM files f JOIN captures c ON c.id = f.capture_row WHERE c.state = 'completed'`,
        ).all() as { id: number }[]
      ).map((r) => r.id);
      const captureRows = (
        this.sql(`DELETE FROM captures WHERE state = 'completed' RETURNING id`).all() as { id: number }[]
      ).map((r) => r.id);
      if (captureRows.length === 0) return { fileIds: [], captureRows: [] };
      const entry = this.line(
        'removed',
        `Cleared ${captureRows.length.toLocaleString('en')} completed capture(s) from this computer's queue; nothing at the platform changed`,
      );
      return { fileIds, captureRows, entry };
    })();
  }

  /** Forgets these parts' ETags of one file (storage lacks them: they are sent again), in one transaction. Answers how many were set. */
  forgetParts(fileId: number, partNumbers: Iterable<number>): number {
    const stmt = this.sql(
      'UPDATE parts SET etag = NULL, uploaded_at = NULL WHERE file_id = ? AND part_number = ? AND etag IS NOT NULL',
    );
    return this.db.transaction(() => {
      let n = 0;
      for (const p of partNumbers) n += stmt.run(fileId, p).changes;
      return n;
    })();
  }

  private moveAll(update: string, kind: ActivityKind, message: (n: number) => string): BatchResult {
    return this.db.transaction((): BatchResult => {
      const rows = this.sql(`${update} RETURNING id, capture_row AS captureRow`).all() as {
        id: number;
        captureRow: number;
      }[];
      if (rows.length === 0) return { fileIds: [], captureRows: [] };
      return {
        fileIds: rows.map((r) => r.id),
        captureRows: [...new Set(rows.map((r) => r.captureRow))],
        entry: this.line(kind, message(rows.length)),
      };
    })();
  }

  private line(kind: ActivityKind, message: string): ActivityEntry {
    return this.activity.add({ at: now(), captureRow: null, fileId: null, subject: 'queue', kind, message });
  }
}

const count = (n: number) => `${n.toLocaleString('en')} file${n === 1 ? '' : 's'}`;
