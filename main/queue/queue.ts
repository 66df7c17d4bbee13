import type Database from 'better-sqlite3';
import { captureLabel } from '../../shared/capture-label.js';
import type { CaptureRequest } from '../api/gateway.js';
import type { ManifestEntry } from '../api/schemas.js';
import { ActivityLog } from './activity.js';
import { QueueBatch } from './batch.js';
import type { CopyRoute } from './copy-holds.js';
import { routeNewFile } from './copy-holds.js';
import { statementCache } from './statements.js';
import { BATCH_FROM_KEY, QueueMeta } from './meta.js';
import { QueueSchedule } from './schedule.js';
import type { StoredTotals } from './totals.js';
import { storedTotals } from './totals.js';
import type {
  CaptureRowRaw,
  FileRowRaw,
  NewFile,
  QueuedCapture,
  QueuedFile,
  QueuedPart,
  CaptureState,
  FileState,
} from './rows.js';
import { now, toCapture, toFile } from './rows.js';

export type { CaptureState, FileIdentity, FileState, NewFile, QueuedCapture, QueuedFile, QueuedPart } from './rows.js';

/**
 * The upload queue: captures, their files and the files' parts, in SQLite. With its helpers
 * (activity, meta, batch, schedule; reader.ts and writer.ts for other folders' rows) the only writer
 * of the database (docs/decisions/0016-queue-db-owner.md). Every value goes in as a bound parameter.
 * Throws better-sqlite3's SqliteError on a storage failure, and Error for a call that names a row
 * that does not exist.
 */
export class UploadQueue {
  /** What happened to captures, files and the queue, oldest first. */
  readonly activity: ActivityLog;
  /** Facts about the queue as a whole (the service's part size, the queue-wide holds). */
  readonly meta: QueueMeta;
  /** A person's actions on many rows at once, each one transaction with one activity line. */
  readonly batch: QueueBatch;
  /** When captures and files are due, and the claims that take them. */
  readonly schedule: QueueSchedule;

  /**
   * Set by the desktop app's card imports while it imports cards: a file queued from a
   * card being copied is held until its copy verifies, or queued at the copy once it has (copy-holds.ts).
   */
  copyRoute?: CopyRoute;

  private readonly sql: (text: string) => Database.Statement;

  constructor(readonly db: Database.Database) {
    this.sql = statementCache(db);
    this.activity = new ActivityLog(db, this.sql);
    this.meta = new QueueMeta(db, this.sql);
    this.batch = new QueueBatch(db, this.sql, this.activity);
    this.schedule = new QueueSchedule(db, this.sql);
  }

  /**
   * `fn` wrapped in one transaction of the queue (better-sqlite3's: call the answer to run it; a
   * throw rolls back every write of `fn`, nested calls become savepoints). For code outside
   * main/queue that makes several of the queue's writes one change (engine/progress/transitions.ts), so it
   * never needs the connection itself (docs/decisions/0016-queue-db-owner.md).
   */
  transaction<T>(fn: () => T): () => T {
    return this.db.transaction(fn);
  }

  /**
   * As `transaction`, but begun with `BEGIN IMMEDIATE`: the write lock is taken first, waiting up to
   * the busy timeout while another process writes, so what `fn` reads is current when it writes.
   * For a change that reads, then writes, while another process (an `import`, a drain) may commit
   * in between: in a deferred transaction SQLite refuses that write at once ("database is
   * locked", SQLITE_BUSY_SNAPSHOT) instead of waiting.
   */
  writeTransaction<T>(fn: () => T): () => T {
    const t = this.db.transaction(fn);
    return () => t.immediate();
  }

  /**
   * Writes a capture and its files in one transaction, before anything is sent (state `queued`,
   * files `waiting`). `request.files` must list the files in the same order as `files`. With a
   * `copyRoute`, a file on a card being imported goes to its verified copy, or is held until it
   * verifies (`awaiting_copy`), decided in this same transaction. Added while the queue holds no
   * unfinished file, the capture opens a new batch (QueueMeta `batchFrom`, docs/progress-batch.md).
   */
  enqueueCapture(label: string, request: CaptureRequest, files: NewFile[]): number {
    return this.db.transaction(() => {
      const t = now();
      // Nothing left unfinished: this capture opens a new batch, whose progress starts at 0 %
      // (docs/progress-batch.md); decided in the same transaction as the rows it counts.
      const open = this.sql(
        `SELECT EXISTS (SELECT 1 FROM files WHERE state NOT IN ('completed', 'cancelled')) AS open`,
      ).get() as { open: number };
      const { lastInsertRowid } = this.sql(
        `INSERT INTO captures (state, label, project, structure, design, request_json, created_at, updated_at)
           VALUES ('queued', ?, ?, ?, ?, ?, ?, ?)`,
      ).run(label, request.project, request.structure, request.design ?? null, JSON.stringify(request), t, t);
      if (!open.open) this.meta.set(BATCH_FROM_KEY, Number(lastInsertRowid));
      const insert = this.sql(
        `INSERT INTO files (capture_row, frame_index, path, file_name, content_type, size, mtime_ms, dev, ino, ctime_ns, fingerprint, state)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'waiting')`,
      );
      files.forEach((given, i) => {
        const { file: f, held } = routeNewFile(this.copyRoute, given);
        const { lastInsertRowid: fileId } = insert.run(
          lastInsertRowid,
          request.files[i]!.frameIndex,
          f.path,
          f.fileName,
          f.contentType,
          f.size,
          Math.trunc(f.mtimeMs),
          f.dev ?? null,
          f.ino ?? null,
          f.ctimeNs ?? null,
          f.fingerprint ?? null,
        );
        if (held) this.sql('UPDATE files SET awaiting_copy = 1 WHERE id = ?').run(fileId);
      });
      return Number(lastInsertRowid);
    })();
  }

  /** The queue in numbers as committed (see StoredTotals): two aggregate queries, no scan of parts. */
  totals(): StoredTotals {
    return storedTotals(this.db, this.sql);
  }

  /**
   * Changes what a capture not registered yet will be registered with (§4.4: structure, design,
   * type, captureDateTime ISO 8601 with zone); answers whether it changed. A capture already
   * registered, or no longer in the queue, is left alone (answers false).
   */
  reviseCapture(
    id: number,
    change: { structure: string; design?: string; type: 'interior' | 'exterior'; captureDateTime: string },
  ): boolean {
    const c = this.capture(id);
    if (!c || !['queued', 'rejected', 'failed'].includes(c.state)) return false;
    const request: CaptureRequest = {
      ...c.request,
      structure: change.structure,
      type: change.type,
      captureDateTime: change.captureDateTime,
    };
    if (change.design) request.design = change.design;
    else delete request.design;
    // A corrected time renames the capture: its label always says the time the platform gets.
    const label =
      c.request.captureDateTime === change.captureDateTime
        ? c.label
        : captureLabel({ capturedAt: change.captureDateTime, fileNames: c.request.files.map((f) => f.fileName) });
    return (
      this.sql(
        `UPDATE captures SET structure = ?, design = ?, request_json = ?, label = ?, updated_at = ? WHERE id = ? AND state IN ('queued', 'rejected', 'failed')`,
      ).run(change.structure, change.design ?? null, JSON.stringify(request), label, now(), id).changes === 1
    );
  }

  /** Moves a capture to another state, with an optional error message (null clears it). */
  setCaptureState(id: number, state: CaptureState, error: string | null = null): void {
    const r = this.sql('UPDATE captures SET state = ?, error = ?, updated_at = ? WHERE id = ?').run(
      state,
      error,
      now(),
      id,
    );
    if (r.changes === 0) throw new Error(`No capture ${id} in the queue`);
  }

  /**
   * Stores the add-capture answer (§4.4) in one transaction: the capture id, each file's upload
   * id, part size and part count, and one row per part; files become `pending`. An entry is
   * matched to its file by `frameIndex`, else by `fileName`, else (one file) as the only one; its
   * part count, when absent, is ⌈size ÷ partSize⌉ (at least 1). Throws when the manifest does not
   * match the queued files (an entry missing, or a size that differs).
   */
  saveRegistration(id: number, captureId: string, manifest: ManifestEntry[]): void {
    this.db.transaction(() => {
      const files = this.filesOf(id);
      if (manifest.length !== files.length)
        throw new Error(`The service registered ${manifest.length} files; ${files.length} were sent`);
      const setFile = this.sql(
        `UPDATE files SET upload_id = ?, part_size = ?, total_parts = ?, state = 'pending' WHERE id = ?`,
      );
      const addPart = this.sql('INSERT INTO parts (file_id, part_number, size) VALUES (?, ?, ?)');
      for (const f of files) {
        const m = manifestEntryFor(manifest, f, files.length);
        if (!m) throw new Error(`The service's manifest has no entry for ${f.fileName} (frameIndex ${f.frameIndex})`);
        if (m.size !== undefined && m.size !== f.size)
          throw new Error(`The service registered ${f.fileName} with ${m.size} bytes; the file has ${f.size}`);
        const totalParts = m.totalParts ?? Math.max(1, Math.ceil(f.size / m.partSize));
        setFile.run(m.uploadId, m.partSize, totalParts, f.id);
        for (let n = 1; n <= totalParts; n++)
          addPart.run(f.id, n, Math.max(0, Math.min(m.partSize, f.size - (n - 1) * m.partSize)));
      }
      this.sql(
        `UPDATE captures SET state = 'registered', capture_id = ?, error = NULL, updated_at = ? WHERE id = ?`,
      ).run(captureId, now(), id);
    })();
  }

  /**
   * The platform's id (§4.4 captureId) of the capture registered last, or null when the queue holds
   * none: for a GET of the capture service that registers nothing (§4.8). Throws SqliteError on a
   * storage failure.
   */
  lastCaptureId(): string | null {
    const row = this.sql(
      `SELECT capture_id FROM captures WHERE capture_id IS NOT NULL ORDER BY id DESC LIMIT 1`,
    ).get() as { capture_id: string } | undefined;
    return row?.capture_id ?? null;
  }

  /**
   * After a restart: a capture left `registering` whose add-capture was committed as sent may or
   * may not be registered, so it becomes `registration_unknown` for a person to decide; one only
   * claimed (the app stopped while signing in, nothing sent) goes back to `queued`, due at once.
   * Files left `uploading` go back to `pending`. Returns how many of each were found.
   */
  recoverInterrupted(): { unknownRegistrations: number; requeuedRegistrations: number; resumedFiles: number } {
    return this.db.transaction(() => {
      const a = this.sql(
        `UPDATE captures SET state = 'registration_unknown', updated_at = ?, error = ? WHERE state = 'registering' AND sent_at IS NOT NULL`,
      ).run(
        now(),
        'The app stopped while registering this capture; the service may or may not have it. Register it again, or drop it if it already appears on the platform.',
      );
      const q = this.sql(
        `UPDATE captures SET state = 'queued', sent_at = NULL, next_attempt_at = NULL, updated_at = ? WHERE state = 'registering' AND sent_at IS NULL`,
      ).run(now());
      const b = this.sql(`UPDATE files SET state = 'pending' WHERE state = 'uploading'`).run();
      return { unknownRegistrations: a.changes, requeuedRegistrations: q.changes, resumedFiles: b.changes };
    })();
  }

  /** A capture by row id, or undefined. */
  capture(id: number): QueuedCapture | undefined {
    const r = this.sql('SELECT * FROM captures WHERE id = ?').get(id) as CaptureRowRaw | undefined;
    return r && toCapture(r);
  }

  /** Captures in the given states (all when none given), in queue order: those moved to the front first (the last moved first), then oldest first. */
  captures(states?: CaptureState[]): QueuedCapture[] {
    const rows = (
      states?.length
        ? this.sql(
            `SELECT * FROM captures WHERE state IN (${states.map(() => '?').join(',')}) ORDER BY priority DESC, id`,
          ).all(...states)
        : this.sql('SELECT * FROM captures ORDER BY priority DESC, id').all()
    ) as CaptureRowRaw[];
    return rows.map(toCapture);
  }

  /** Every file of the queue, by capture and frame index (one query, for views of the whole queue). */
  allFiles(): QueuedFile[] {
    return (this.sql('SELECT * FROM files ORDER BY capture_row, frame_index').all() as FileRowRaw[]).map(toFile);
  }

  /** The files of a capture, by frame index. */
  filesOf(captureRow: number): QueuedFile[] {
    return (
      this.sql('SELECT * FROM files WHERE capture_row = ? ORDER BY frame_index').all(captureRow) as FileRowRaw[]
    ).map(toFile);
  }

  /** A file by id, or undefined. */
  file(id: number): QueuedFile | undefined {
    const r = this.sql('SELECT * FROM files WHERE id = ?').get(id) as FileRowRaw | undefined;
    return r && toFile(r);
  }

  /** Files in the given states, oldest first; a file replaced by a new capture of its recording is not one of them. */
  files(states: FileState[]): QueuedFile[] {
    return (
      this.sql(
        `SELECT * FROM files WHERE state IN (${states.map(() => '?').join(',')}) AND replaced_by IS NULL ORDER BY id`,
      ).all(...states) as FileRowRaw[]
    ).map(toFile);
  }

  /** A file already in the queue with this path, size and modification time, unless it was cancelled. */
  findQueuedFile(
    f: Pick<NewFile, 'path' | 'size' | 'mtimeMs' | 'dev' | 'ino' | 'fingerprint'>,
  ): QueuedFile | undefined {
    // The same recording whatever the path or mount point it is reached by: the same inode on the
    // same device, or the same content fingerprint; rows from before fingerprints by path. A file
    // cancelled or changed on disk no longer stands for its recording.
    const r = this.sql(
      `SELECT * FROM files WHERE state != 'cancelled' AND changed = 0 AND size = ? AND (
           (dev IS NOT NULL AND dev = ? AND ino = ?) OR (fingerprint IS NOT NULL AND fingerprint = ?) OR (fingerprint IS NULL AND path = ? AND mtime_ms = ?)
         ) ORDER BY id DESC LIMIT 1`,
    ).get(f.size, f.dev ?? null, f.ino ?? null, f.fingerprint ?? null, f.path, Math.trunc(f.mtimeMs)) as
      | FileRowRaw
      | undefined;
    return r && toFile(r);
  }

  /** Marks a file as changed on disk since it was queued (see QueuedFile.changed). */
  markChanged(id: number): void {
    this.sql('UPDATE files SET changed = 1 WHERE id = ?').run(id);
  }

  /**
   * The queued files that stand for `f`'s recording but changed on disk since (QueuedFile.changed)
   * and are not replaced yet: at the same path, or the same device and inode. Reads only.
   */
  changedMatches(f: Pick<NewFile, 'path' | 'dev' | 'ino'>): QueuedFile[] {
    const rows = this.sql(
      `SELECT * FROM files WHERE changed = 1 AND replaced_by IS NULL AND (path = ? OR (dev IS NOT NULL AND dev = ? AND ino = ?)) ORDER BY id`,
    ).all(f.path, f.dev ?? null, f.ino ?? null) as FileRowRaw[];
    return rows.map(toFile);
  }

  /**
   * Capture `by` was just queued for recordings that changed on disk: the earlier capture of each
   * file that changed (changedMatches of one of `files`, in another capture) is replaced whole by
   * `by`, as its recording is registered again whole (§4.4: a new capture). Each of that capture's
   * files not replaced yet gets `replacedBy` = `by` (QueuedFile.replacedBy) and an activity entry;
   * one not completed becomes `cancelled` with the reason, a completed one stays completed (its
   * object is stored). In one transaction. Returns the replaced files.
   */
  replaceChanged(by: number, files: readonly Pick<NewFile, 'path' | 'dev' | 'ino'>[]): QueuedFile[] {
    return this.db.transaction(() => {
      const replaced: QueuedFile[] = [];
      const changed = new Set(
        files
          .flatMap((f) => this.changedMatches(f))
          .filter((r) => r.captureRow !== by)
          .map((r) => r.id),
      );
      const captures = new Set(
        files
          .flatMap((f) => this.changedMatches(f))
          .filter((r) => r.captureRow !== by)
          .map((r) => r.captureRow),
      );
      for (const capture of captures) {
        const rows = this.sql(`SELECT * FROM files WHERE capture_row = ? AND replaced_by IS NULL ORDER BY id`).all(
          capture,
        ) as FileRowRaw[];
        for (const r of rows) {
          const message = changed.has(r.id)
            ? `Replaced by capture ${by}: the recording changed on disk and was added again as a new capture.`
            : `Replaced by capture ${by}: another file of its recording changed on disk, and the recording was added again whole as a new capture.`;
          const state = r.state === 'completed' ? 'completed' : 'cancelled';
          const error = state === 'completed' ? r.error : message;
          this.sql(`UPDATE files SET replaced_by = ?, state = ?, error = ?, next_attempt_at = NULL WHERE id = ?`).run(
            by,
            state,
            error,
            r.id,
          );
          this.activity.add({
            captureRow: r.capture_row,
            fileId: r.id,
            subject: r.file_name,
            kind: 'replaced',
            message,
          });
          replaced.push(toFile({ ...r, replaced_by: by, state, error }));
        }
      }
      return replaced;
    })();
  }

  /** The parts of a file, ascending. */
  parts(fileId: number): QueuedPart[] {
    return this.sql(
      'SELECT part_number AS partNumber, size, etag, unanswered_at AS unansweredAt FROM parts WHERE file_id = ? ORDER BY part_number',
    ).all(fileId) as QueuedPart[];
  }

  /** Marks parts sent in full but unanswered when their work stopped, at `at` (ms since 1970), or clears it (null): engine/parts/in-doubt.ts. */
  markUnanswered(fileId: number, partNumbers: readonly number[], at: number | null): void {
    const stmt = this.sql('UPDATE parts SET unanswered_at = ? WHERE file_id = ? AND part_number = ?');
    this.db.transaction(() => partNumbers.forEach((n) => stmt.run(at, fileId, n)))();
  }

  /** Stores accepted parts (ETag exactly as storage returned it) of any files, in one transaction. */
  recordParts(done: { fileId: number; partNumber: number; etag: string }[]): void {
    if (done.length === 0) return;
    const t = now();
    const stmt = this.sql('UPDATE parts SET etag = ?, uploaded_at = ? WHERE file_id = ? AND part_number = ?');
    this.db.transaction(() => {
      for (const d of done) stmt.run(d.etag, t, d.fileId, d.partNumber);
    })();
  }

  /**
   * Moves a file from one of `from` to `to` and answers whether it moved; a file no longer in
   * `from` (a person paused, cancelled or removed it meanwhile) is left as it is, so the last
   * word is never overwritten by work that was unwinding. `change` sets the error, a retry time
   * (ms since epoch; counts one more attempt) or starts the attempts over.
   */
  moveFile(
    id: number,
    from: FileState[],
    to: FileState,
    change: { error?: string | null; retryAt?: number; transient?: boolean; resetAttempts?: boolean } = {},
  ): boolean {
    const attempts = change.resetAttempts ? '0' : change.retryAt !== undefined ? 'attempts + 1' : 'attempts';
    return (
      this.sql(
        `UPDATE files SET state = ?, error = ?, next_attempt_at = ?, transient = ?, attempts = ${attempts},
             completed_at = CASE WHEN ? = 'completed' THEN ? ELSE completed_at END
           WHERE id = ? AND state IN (${from.map(() => '?').join(',')})`,
      ).run(to, change.error ?? null, change.retryAt ?? null, change.transient ? 1 : 0, to, now(), id, ...from)
        .changes === 1
    );
  }

  /** Removes one file and its parts from the queue (its capture stays; nothing on the service is touched). */
  removeFile(id: number): void {
    this.sql('DELETE FROM files WHERE id = ?').run(id);
  }

  /** Marks the capture completed once every one of its files is. */
  completeCaptureIfDone(captureRow: number): boolean {
    const open = this.sql(`SELECT COUNT(*) AS n FROM files WHERE capture_row = ? AND state != 'completed'`).get(
      captureRow,
    ) as { n: number };
    if (open.n > 0) return false;
    this.setCaptureState(captureRow, 'completed');
    return true;
  }

  /** Removes a capture and its files and parts from the queue (nothing on the service is touched). */
  removeCapture(id: number): void {
    this.sql('DELETE FROM captures WHERE id = ?').run(id);
  }

  /** Records that the default sheets of a project were exported, and the design time known then (§4.2, §4.3). */
  recordSheetExport(project: string, designsUpdatedAt: string | null): void {
    this.sql(
      `INSERT INTO sheet_exports (project, requested_at, designs_updated_at) VALUES (?, ?, ?)
         ON CONFLICT (project) DO UPDATE SET requested_at = excluded.requested_at, designs_updated_at = excluded.designs_updated_at`,
    ).run(project, now(), designsUpdatedAt);
  }

  /** The last export of a project's default sheets, if any. */
  lastSheetExport(project: string): { requestedAt: string; designsUpdatedAt: string | null } | undefined {
    return this.sql(
      'SELECT requested_at AS requestedAt, designs_updated_at AS designsUpdatedAt FROM sheet_exports WHERE project = ?',
    ).get(project) as { requestedAt: string; designsUpdatedAt: string | null } | undefined;
  }
}

/**
 * The manifest entry (§2) of a queued file: by `frameIndex`; for an entry without one, by
 * `fileName`; with neither, the only entry of a one-file capture. Undefined when none fits.
 */
function manifestEntryFor(
  manifest: ManifestEntry[],
  f: { frameIndex: number; fileName: string },
  fileCount: number,
): ManifestEntry | undefined {
  return (
    manifest.find((e) => e.frameIndex === f.frameIndex) ??
    manifest.find((e) => e.frameIndex === undefined && e.fileName === f.fileName) ??
    (fileCount === 1 && manifest.length === 1 && manifest[0]!.frameIndex === undefined ? manifest[0] : undefined)
  );
}
