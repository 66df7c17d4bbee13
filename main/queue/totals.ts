import type Database from 'better-sqlite3';
import type { QueueTotals } from '../../shared/ipc.js';
import type { CardWait } from './removed-cards.js';
import { cardWait } from './removed-cards.js';
import { BATCH_FROM_KEY, QueueMeta } from './meta.js';

/**
 * The batch in numbers as committed, from aggregate queries over `files` and `captures` (no join
 * with `parts`: migration 5 keeps bytes stored per file). The batch (docs/progress-batch.md) is
 * the captures added since the queue last held no unfinished file (QueueMeta `batchFrom`) and
 * every file not completed or cancelled, whatever its capture; the files an earlier batch
 * completed are only counted in `earlierFiles`/`earlierBytes`. Counts of files by state,
 * `retrying` the pending files with a scheduled retry; `capturesNeedYou` the captures a person
 * must decide (refused, registration unknown, failed, or queued again after a refusal-like
 * error). Bytes: `bytesTotal` of files not cancelled, `bytesStored` of them in storage
 * (completed files whole), `bytesStoredUploading` the part of it that belongs to files uploading
 * now (a live view replaces it with their live bytes), `bytesOfMoving` the size of files that
 * move by themselves (pending, uploading, or waiting for a capture being registered).
 */
export interface StoredTotals {
  files: number;
  captures: number;
  completed: number;
  uploading: number;
  waiting: number;
  pending: number;
  retrying: number;
  paused: number;
  failed: number;
  cancelled: number;
  capturesNeedYou: number;
  /** Captures in the queue with a warning recorded in the activity log (a damaged recording, a lone lens, …). */
  capturesWarned: number;
  bytesTotal: number;
  bytesStored: number;
  bytesStoredUploading: number;
  bytesOfMoving: number;
  bytesStoredOfMoving: number;
  /** The earliest scheduled retry of a pending file or a queued capture (ms since epoch), or null. */
  nextRetryAt: number | null;
  /** Cards pulled out while their recordings uploaded straight from them, and those recordings (removed-cards.ts). */
  cardWait: CardWait;
  /** Files an earlier batch completed (left out of every figure above) and their size in bytes. */
  earlierFiles: number;
  earlierBytes: number;
  /** The first capture row of the batch (QueueMeta `batchFrom`), 0 when every row is in it. */
  batchFrom: number;
}

/** Whether a file row `f` counts in the batch that begins at capture row `@from` (see StoredTotals). */
const IN_BATCH = `(f.capture_row >= @from OR f.state NOT IN ('completed', 'cancelled'))`;
/** Whether a capture row `w` belongs to the batch: added in it, or with a file still unfinished. */
const CAPTURE_IN_BATCH = `(w.id >= @from OR EXISTS (SELECT 1 FROM files u WHERE u.capture_row = w.id AND u.state NOT IN ('completed', 'cancelled')))`;

/** Reads StoredTotals in one transaction (a consistent snapshot). Throws SqliteError on a storage failure. */
export function storedTotals(db: Database.Database, sql: (text: string) => Database.Statement): StoredTotals {
  return db.transaction(() => {
    const from = new QueueMeta(db, sql).get<number>(BATCH_FROM_KEY) ?? 0;
    // A file waiting for a capture that a person must decide (refused, registration unknown)
    // does not move by itself: it counts with what needs a person, not as queued.
    const f = sql(
      `SELECT
         COUNT(*) AS files,
         COALESCE(SUM(f.state = 'completed'), 0) AS completed,
         COALESCE(SUM(f.state = 'uploading'), 0) AS uploading,
         COALESCE(SUM(f.state = 'waiting' AND c.state IN ('queued', 'registering')), 0) AS waiting,
         COALESCE(SUM(f.state = 'pending' AND f.next_attempt_at IS NULL), 0) AS pending,
         COALESCE(SUM(f.state = 'pending' AND f.next_attempt_at IS NOT NULL), 0) AS retrying,
         COALESCE(SUM(f.state = 'paused'), 0) AS paused,
         COALESCE(SUM(f.state = 'failed'), 0) AS failed,
         COALESCE(SUM(f.state = 'cancelled'), 0) AS cancelled,
         COALESCE(SUM(CASE WHEN f.state != 'cancelled' THEN f.size END), 0) AS bytesTotal,
         COALESCE(SUM(CASE WHEN f.state = 'completed' THEN f.size WHEN f.state != 'cancelled' THEN f.stored_bytes END), 0) AS bytesStored,
         COALESCE(SUM(CASE WHEN f.state = 'uploading' THEN f.stored_bytes END), 0) AS bytesStoredUploading,
         COALESCE(SUM(CASE WHEN f.state IN ('pending', 'uploading') OR (f.state = 'waiting' AND c.state IN ('queued', 'registering')) THEN f.size END), 0) AS bytesOfMoving,
         COALESCE(SUM(CASE WHEN f.state IN ('pending', 'uploading') OR (f.state = 'waiting' AND c.state IN ('queued', 'registering')) THEN f.stored_bytes END), 0) AS bytesStoredOfMoving,
         MIN(CASE WHEN f.state = 'pending' THEN f.next_attempt_at END) AS nextFileRetry
       FROM files f JOIN captures c ON c.id = f.capture_row
       WHERE ${IN_BATCH}`,
    ).get({ from }) as Omit<
      StoredTotals,
      | 'captures'
      | 'capturesNeedYou'
      | 'capturesWarned'
      | 'nextRetryAt'
      | 'cardWait'
      | 'earlierFiles'
      | 'earlierBytes'
      | 'batchFrom'
    > & {
      nextFileRetry: number | null;
    };
    const c = sql(
      `SELECT COUNT(*) AS captures,
         COALESCE(SUM(w.state IN ('registration_unknown', 'rejected', 'failed')), 0) AS capturesNeedYou,
         MIN(CASE WHEN w.state = 'queued' THEN w.next_attempt_at END) AS nextCaptureRetry,
         (SELECT COUNT(DISTINCT a.capture_row) FROM activity a JOIN captures w ON w.id = a.capture_row
           WHERE a.kind = 'warning' AND ${CAPTURE_IN_BATCH}) AS capturesWarned
       FROM captures w
       WHERE ${CAPTURE_IN_BATCH}`,
    ).get({ from }) as Pick<StoredTotals, 'captures' | 'capturesNeedYou' | 'capturesWarned'> & {
      nextCaptureRetry: number | null;
    };
    const earlier = sql(
      `SELECT COUNT(*) AS earlierFiles, COALESCE(SUM(size), 0) AS earlierBytes
       FROM files WHERE capture_row < @from AND state = 'completed'`,
    ).get({ from }) as Pick<StoredTotals, 'earlierFiles' | 'earlierBytes'>;
    const { nextFileRetry, ...files } = f;
    const { nextCaptureRetry, ...captures } = c;
    const retries = [nextFileRetry, nextCaptureRetry].filter((t): t is number => t !== null);
    return {
      ...files,
      ...captures,
      nextRetryAt: retries.length ? Math.min(...retries) : null,
      cardWait: cardWait(sql),
      ...earlier,
      batchFrom: from,
    };
  })();
}

/**
 * The committed totals in the screen's shape (shared/ipc.ts QueueTotals), the one place that
 * shape is made from StoredTotals: what `capture-uploader status` reads from a queue it opens
 * read-only, so its first line says the queue's state with the figures the app shows,
 * and what the running app's live view (main/service/live-queue.ts) lays its live
 * figures over. `moved` (bytes, default 0) is what the files uploading have had acknowledged
 * beyond what the queue holds for them (negative after storage lost parts). Bytes are what
 * storage acknowledged; no speed (it lives in the running app); the outage a running engine
 * recorded is read apart (QueueMeta.outage). Cards pulled out mid-upload come as `cardRemoved`,
 * only when there is one (removed-cards.ts); the files earlier batches completed as `earlier`,
 * only when there are some (docs/progress-batch.md).
 */
export function committedTotals(t: StoredTotals, moved = 0): QueueTotals {
  return {
    files: t.files,
    captures: t.captures,
    completed: t.completed,
    uploading: t.uploading,
    queued: t.waiting + t.pending,
    retrying: t.retrying,
    paused: t.paused,
    failed: t.failed,
    cancelled: t.cancelled,
    needYou: t.failed + t.capturesNeedYou,
    capturesWarned: t.capturesWarned,
    bytesTotal: t.bytesTotal,
    bytesDone: Math.min(t.bytesTotal, Math.max(0, t.bytesStored + moved)),
    bytesRemaining: Math.max(0, t.bytesOfMoving - t.bytesStoredOfMoving - moved),
    bytesPerSecond: 0,
    nextRetryAt: t.nextRetryAt,
    ...(t.cardWait.cards > 0 ? { cardRemoved: t.cardWait } : {}),
    ...(t.earlierFiles > 0 ? { earlier: { files: t.earlierFiles, bytes: t.earlierBytes } } : {}),
  };
}
