import type { QueueDatabase } from './db.js';
import { offloadFileSources } from './reader.js';

// The statements that change queue.db on behalf of code outside main/queue (the engine's clock,
// the settings check, the offload's record, the part MD5s, the retention sweep): main/queue is the
// one writer of the file (docs/decisions/0016-queue-db-owner.md). Reads are in reader.ts; the queue's
// own rows (captures, files, parts) change through UploadQueue and its helpers. Each function
// commits before it returns (one statement, or one transaction), so a state change is in the
// queue before the work it describes moves on (CONVENTIONS.md, "The upload engine"). All throw
// better-sqlite3's SqliteError when the queue cannot be written.

/**
 * Moves every stored retry time (ms since the epoch) of pending files and queued captures by
 * `stepMs` (negative: earlier), in one transaction: the wall clock stepped (engine/scheduling/clock.ts).
 */
export function shiftRetryTimes(db: QueueDatabase, stepMs: number): void {
  db.transaction(() => {
    db.prepare(
      `UPDATE files SET next_attempt_at = next_attempt_at + ? WHERE state = 'pending' AND next_attempt_at IS NOT NULL`,
    ).run(stepMs);
    db.prepare(
      `UPDATE captures SET next_attempt_at = next_attempt_at + ? WHERE state = 'queued' AND next_attempt_at IS NOT NULL`,
    ).run(stepMs);
  })();
}

/**
 * Sets to `nowMs` every retry time of pending files and queued captures later than `limitMs`
 * (both ms since the epoch), in one transaction; answers how many rows changed (engine/scheduling/clock.ts
 * clampFuture: a step back of the clock while no engine ran).
 */
export function dueRetryTimesBeyond(db: QueueDatabase, nowMs: number, limitMs: number): number {
  return db.transaction(
    () =>
      db
        .prepare(`UPDATE files SET next_attempt_at = ? WHERE state = 'pending' AND next_attempt_at > ?`)
        .run(nowMs, limitMs).changes +
      db
        .prepare(`UPDATE captures SET next_attempt_at = ? WHERE state = 'queued' AND next_attempt_at > ?`)
        .run(nowMs, limitMs).changes,
  )();
}

/**
 * Clears the retry time of every queued capture and pending file (attempts are kept), so each is
 * due at once; answers how many of each changed. Runs inside the caller's transaction when there
 * is one (settings/settings-change.ts).
 */
export function clearRetryTimes(db: QueueDatabase): { captures: number; files: number } {
  const captures = db
    .prepare(`UPDATE captures SET next_attempt_at = NULL WHERE state = 'queued' AND next_attempt_at IS NOT NULL`)
    .run().changes;
  const files = db
    .prepare(`UPDATE files SET next_attempt_at = NULL WHERE state = 'pending' AND next_attempt_at IS NOT NULL`)
    .run().changes;
  return { captures, files };
}

/** An offload as it starts (main/offload/offload.ts OffloadStart): times ISO 8601, `bytes` the recordings' total. */
export interface OffloadStartRow {
  card: string;
  cardName: string;
  destination: string;
  startedAt: string;
  files: number;
  bytes: number;
}

/** One checked file of an offload (main/offload/offload.ts OffloadedFile): `xxh64` 16 hex digits, `mtimeMs` ms since the epoch. */
export interface OffloadFileRow {
  source: string;
  copy: string;
  size: number;
  mtimeMs: number;
  xxh64?: string;
  verified: boolean;
  error?: string;
}

/** An offload's end (main/offload/offload.ts OffloadResult): `finishedAt` ISO 8601, `bytes` the recordings' total. */
export interface OffloadEndRow {
  finishedAt: string;
  files: readonly OffloadFileRow[];
  bytes: number;
  verified: boolean;
  mhlPath?: string;
}

/** Inserts an offload's row as it starts (`copying`, not verified, no end; migrations 8 and 14); answers its id. */
export function insertOffload(db: QueueDatabase, s: OffloadStartRow): number {
  return Number(
    db
      .prepare(
        `INSERT INTO offloads (card_path, card_name, destination, started_at, finished_at, files, bytes, verified, mhl_path, state) VALUES (?, ?, ?, ?, NULL, ?, ?, 0, NULL, 'copying')`,
      )
      .run(s.card, s.cardName, s.destination, s.startedAt, s.files, s.bytes).lastInsertRowid,
  );
}

/** Inserts one checked file's row of offload `id` (its XXH64, its copy, verified or not). */
export function insertOffloadFile(db: QueueDatabase, id: number, f: OffloadFileRow): void {
  db.prepare(
    `INSERT INTO offload_files (offload_id, source_path, copy_path, size, mtime_ms, xxh64, verified, error) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
  ).run(id, f.source, f.copy, f.size, f.mtimeMs, f.xxh64 ?? null, f.verified ? 1 : 0, f.error ?? null);
}

/**
 * Ends offload `id` as `finished` with the end's counts, verdict and MHL, in one transaction that
 * also inserts the rows of any of its files not recorded yet.
 */
export function finishOffloadRow(db: QueueDatabase, id: number, r: OffloadEndRow): void {
  const known = new Set(offloadFileSources(db, id));
  db.transaction(() => {
    for (const f of r.files) if (!known.has(f.source)) insertOffloadFile(db, id, f);
    db.prepare(
      `UPDATE offloads SET finished_at = ?, files = ?, bytes = ?, verified = ?, mhl_path = ?, state = 'finished' WHERE id = ?`,
    ).run(r.finishedAt, r.files.length, r.bytes, r.verified ? 1 : 0, r.mhlPath ?? null, id);
  })();
}

/** Inserts a whole offload (its start, every file, its end) in one transaction; answers its id. */
export function insertWholeOffload(db: QueueDatabase, s: OffloadStartRow, r: OffloadEndRow): number {
  return db.transaction(() => {
    const id = insertOffload(db, s);
    finishOffloadRow(db, id, r);
    return id;
  })();
}

/** Marks `interrupted` each of the offloads `ids` still `copying`, in one transaction. */
export function markOffloadsInterrupted(db: QueueDatabase, ids: readonly number[]): void {
  const mark = db.prepare(`UPDATE offloads SET state = 'interrupted' WHERE id = ? AND state = 'copying'`);
  db.transaction(() => ids.forEach((id) => mark.run(id)))();
}

/** Marks offload `id` `interrupted`, whatever its state (it failed part-way in this process). */
export function interruptOffload(db: QueueDatabase, id: number): void {
  db.prepare(`UPDATE offloads SET state = 'interrupted' WHERE id = ?`).run(id);
}

/** Deletes the part MD5s kept for `path` (its copy was removed). */
export function deletePartMd5s(db: QueueDatabase, path: string): void {
  db.prepare('DELETE FROM part_md5s WHERE path = ?').run(path);
}

/** Records that the retention sweep removed the copy of offload file row `id`, at `at` (ISO 8601). */
export function markCopyRemoved(db: QueueDatabase, id: number, at: string): void {
  db.prepare('UPDATE offload_files SET removed_at = ? WHERE id = ?').run(at, id);
}
