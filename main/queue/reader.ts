import Database from 'better-sqlite3';
import { existsSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { QueueDatabase } from './db.js';
import { QUEUE_CORE_TABLES, queueDamage } from './db.js';
import type { QueueHold } from './meta.js';
import { LATEST_VERSION } from './migrations/index.js';
import type { QueuedCapture, QueuedFile } from './queue.js';
import { UploadQueue } from './queue.js';

// The queries that read queue.db on behalf of code outside main/queue (the CLI's status and log,
// the office's day, the offload's record, the library's use, the thumbnails, the live queue):
// main/queue owns every statement on the file (docs/decisions/0016-queue-db-owner.md). None of these
// writes; writes are in writer.ts. All throw better-sqlite3's SqliteError when the queue cannot
// be read, unless they say otherwise.

/** One statement per connection and text, prepared once (the live queue reads its views per tick). */
const prepared = new WeakMap<QueueDatabase, Map<string, Database.Statement>>();
function cached(db: QueueDatabase, text: string): Database.Statement {
  let m = prepared.get(db);
  if (!m) prepared.set(db, (m = new Map()));
  let s = m.get(text);
  if (!s) m.set(text, (s = db.prepare(text)));
  return s;
}

/**
 * Runs `read` over the queue file `file`, opened read-only without the lock (SQLite's WAL lets a
 * reader see the last committed state while a drain writes), and closes it. Throws Error naming
 * the file when there is none, it is damaged (queueDamage: said with the fix, left where it is),
 * or it needs a newer or older version.
 */
export function withQueueFileReadOnly<T>(file: string, read: (queue: UploadQueue) => T): T {
  const none = `No upload queue at ${file} yet: add files first (or give --data-dir).`;
  if (!existsSync(file)) throw new Error(none);
  const sizeBefore = statSync(file).size;
  const walOrShmBefore = existsSync(`${file}-wal`) || existsSync(`${file}-shm`);
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    const version = db.pragma('user_version', { simple: true }) as number;
    // Never taken for an empty queue, nor for one "from an older version" (db.ts queueDamage);
    // moving it aside is for a command that takes the lock, not for this reader.
    const damage = queueDamage(db, {
      sizeBefore,
      walOrShmBefore,
      usedBefore: existsSync(join(dirname(file), 'queue.lock')),
      coreTables: QUEUE_CORE_TABLES,
    });
    if (damage && version <= LATEST_VERSION) {
      throw new Error(
        `The upload queue ${file} is damaged: ${damage}. Run \`capture-uploader drain\` (or start the app) to move it aside and start a new queue; nothing was changed.`,
      );
    }
    if (version === 0) throw new Error(none);
    if (version !== LATEST_VERSION) {
      throw new Error(
        version > LATEST_VERSION
          ? `The upload queue ${file} was written by a newer version of Capture Uploader (schema ${version}); install it to read this queue.`
          : `The upload queue ${file} is from an older version (schema ${version}); run \`capture-uploader drain\` once to bring it up to date.`,
      );
    }
    return read(new UploadQueue(db));
  } finally {
    db.close();
  }
}

/**
 * How many captures the queue file `file` holds and how many of them are not completed, read
 * from it read-only (a corrupt queue moved aside); undefined when SQLite cannot read that much.
 * Never throws, never writes to the file.
 */
export function captureCountsOfFile(file: string): { captures: number; open: number } | undefined {
  let db: Database.Database | undefined;
  try {
    db = new Database(file, { readonly: true, fileMustExist: true });
    const { n, open } = db
      .prepare(`SELECT COUNT(*) AS n, COALESCE(SUM(state != 'completed'), 0) AS open FROM captures`)
      .get() as { n: number; open: number };
    return { captures: n, open };
  } catch {
    return undefined;
  } finally {
    db?.close();
  }
}

// `status --json` with 10,000 files queued spent most of its time building 15,000 JS objects
// (rows mapped to QueuedFile/QueuedCapture, each capture's request parsed, then everything
// copied and stringified again): a third of it in the garbage collector. SQLite's JSON functions
// build the same document in C in one statement, and the CLI writes the string it returns.
// The keys, their order and their values are those of toCapture/toFile (main/queue/rows.ts) plus
// partsDone and bytesDone; main/cli/status.test.ts holds this document equal to the one built from those
// mappings, so a column added there and not here fails the test.

const FILE_JSON = `json_object(
  'id', f.id, 'captureRow', f.capture_row, 'frameIndex', f.frame_index, 'path', f.path, 'fileName', f.file_name,
  'contentType', f.content_type, 'size', f.size, 'mtimeMs', f.mtime_ms, 'state', f.state, 'uploadId', f.upload_id,
  'partSize', f.part_size, 'totalParts', f.total_parts, 'error', f.error, 'attempts', f.attempts,
  'nextAttemptAt', f.next_attempt_at, 'transient', json(iif(f.transient = 1, 'true', 'false')),
  'changed', json(iif(f.changed = 1, 'true', 'false')), 'replacedBy', f.replaced_by, 'awaitingCopy', json(iif(f.awaiting_copy = 1, 'true', 'false')), 'completedAt', f.completed_at, 'dev', f.dev, 'ino', f.ino,
  'ctimeNs', f.ctime_ns, 'fingerprint', f.fingerprint, 'storedBytes', f.stored_bytes, 'storedParts', f.stored_parts,
  'partsDone', f.stored_parts, 'bytesDone', iif(f.state = 'completed', f.size, f.stored_bytes)
)`;

const CAPTURE_JSON = `json_object(
  'id', c.id, 'state', c.state, 'label', c.label, 'project', c.project, 'structure', c.structure, 'design', c.design,
  'request', json(c.request_json), 'captureId', c.capture_id, 'error', c.error, 'attempts', c.attempts,
  'nextAttemptAt', c.next_attempt_at, 'sentAt', c.sent_at, 'priority', c.priority, 'createdAt', c.created_at, 'updatedAt', c.updated_at,
  'files', json(coalesce(l.list, '[]'))
)`;

// The files of each capture in frame order, then every capture in queue order (moved to the
// front first, then by id): the order statusOutput gives. Stored bytes and parts come from the
// files' own columns (migration 5), so no part row is read. One row per capture, joined into the
// document here: the captures gathered by SQLite too (json_group_array) cost as much again, as
// each capture's text is parsed once more to be put in the array (209-253 ms against 88-103 ms
// at 10,000 files, the same text).
const STATUS_CAPTURES = `
  WITH file_lists AS (
    SELECT f.capture_row, json_group_array(json(${FILE_JSON}) ORDER BY f.frame_index) AS list
    FROM files f
    GROUP BY f.capture_row
  )
  SELECT ${CAPTURE_JSON}
  FROM captures c LEFT JOIN file_lists l ON l.capture_row = c.id
  ORDER BY c.priority DESC, c.id`;

/**
 * The `status --json` document of the queue in `db`: one `{ type: 'status', state, hold, captures }`
 * object: `state` the queue's state as the app shows it (main/status/status-document.ts statusState: `kind`,
 * `headline`, `detail`, `nextTry` ms, `bytesDone` acknowledged and `bytesTotal` bytes) or null; `hold` the queue-wide hold in force (`{ until, by }`, main/queue/meta.ts QueueHold) or
 * null; captures (in queue order: moved to the front first, then by id) carry their files (in frame order) with `partsDone` and
 * `bytesDone` (bytes), times as the queue keeps them (ISO 8601 text; retry times in ms since the
 * epoch). Returned as compact JSON text, each capture built by SQLite. Throws SqliteError if the
 * schema is not the latest (the caller checks the version first).
 */
export function statusJson(db: QueueDatabase, hold: QueueHold | null = null, state: object | null = null): string {
  const captures = cached(db, STATUS_CAPTURES).pluck().all() as string[];
  return `{"type":"status","state":${JSON.stringify(state)},"hold":${JSON.stringify(hold)},"captures":[${captures.join(',')}]}`;
}

/** A file as `status` prints it (main/cli/status.ts statusOutput): sizes in bytes, the retry time in ms since the epoch. */
export interface StatusFileRow {
  id: number;
  captureRow: number;
  fileName: string;
  size: number;
  state: QueuedFile['state'];
  storedBytes: number;
  replacedBy: number | null;
  nextAttemptAt: number | null;
  attempts: number;
  error: string | null;
  /** SQLite's 0 or 1: placed while its card was imported, waiting for the verified copy. */
  awaitingCopy: number;
}

/** A capture as `status` prints it (main/cli/status.ts statusOutput). */
export interface StatusCaptureRow {
  id: number;
  state: QueuedCapture['state'];
  label: string;
  captureId: string | null;
  error: string | null;
}

/**
 * What `status` prints of the queue in `db`, and no more: the captures in queue order (moved to
 * the front first, then by id) and the files by capture, in frame order. The columns it does not
 * print are not read: at 10,000 files the whole rows, mapped to QueuedFile, were most of its time.
 */
export function statusRows(db: QueueDatabase): { captures: StatusCaptureRow[]; files: StatusFileRow[] } {
  return {
    captures: cached(
      db,
      'SELECT id, state, label, capture_id AS captureId, error FROM captures ORDER BY priority DESC, id',
    ).all() as StatusCaptureRow[],
    files: cached(
      db,
      `SELECT id, capture_row AS captureRow, file_name AS fileName, size, state, stored_bytes AS storedBytes,
         replaced_by AS replacedBy, next_attempt_at AS nextAttemptAt, attempts, error,
         COALESCE(awaiting_copy, 0) AS awaitingCopy
       FROM files ORDER BY capture_row, frame_index`,
    ).all() as StatusFileRow[],
  };
}

/**
 * A capture of `project` whose registered captureDateTime (§4.4, ISO 8601 with zone) falls on
 * `date` (YYYY-MM-DD, its own date part): `files` not cancelled, `filesUploaded` of them,
 * `lastCompleted` the latest completion (ISO 8601) among them or null.
 */
export interface DayCaptureRow {
  captureRow: number;
  label: string;
  structure: string;
  state: string;
  capturedAt: string;
  files: number;
  filesUploaded: number;
  lastCompleted: string | null;
}

/** The captures of `project` taken on `date` (YYYY-MM-DD), in one query, oldest first (main/office/day-captures.ts). */
export function dayCaptureRows(db: QueueDatabase, project: string, date: string): DayCaptureRow[] {
  return db
    .prepare(
      `SELECT c.id AS captureRow, c.label, c.structure, c.state,
              json_extract(c.request_json, '$.captureDateTime') AS capturedAt,
              COUNT(f.id) AS files,
              COALESCE(SUM(f.state = 'completed'), 0) AS filesUploaded,
              MAX(f.completed_at) AS lastCompleted
         FROM captures c LEFT JOIN files f ON f.capture_row = c.id AND f.state != 'cancelled'
        WHERE c.project = ? AND substr(json_extract(c.request_json, '$.captureDateTime'), 1, 10) = ?
        GROUP BY c.id
        ORDER BY capturedAt, c.id`,
    )
    .all(project, date) as DayCaptureRow[];
}

/**
 * Every file as the screen lists it (main/service/live-queue.ts), shaped by SQLite: bytes and
 * parts as committed (a completed file counts whole), the retry time (ms since the epoch) of a
 * pending one, `awaitingCopy` as SQLite's 0 or 1. One prepared statement per connection.
 */
export function fileViewRows<T>(db: QueueDatabase): T[] {
  return cached(
    db,
    `SELECT id, capture_row AS captureRow, file_name AS fileName, path, size, state, error,
       CASE WHEN state = 'completed' THEN size ELSE stored_bytes END AS bytesSent,
       CASE WHEN state = 'completed' THEN COALESCE(total_parts, 0) ELSE stored_parts END AS partsDone,
       COALESCE(total_parts, 0) AS partsTotal, 0 AS bytesInFlight, 0 AS bytesPerSecond, NULL AS etaSeconds,
       CASE WHEN state = 'pending' THEN next_attempt_at END AS retryAt, attempts, replaced_by AS replacedBy, awaiting_copy AS awaitingCopy
     FROM files`,
  ).all() as T[];
}

/** Every queued file's path and content fingerprint (null for a row queued before fingerprints): what the thumbnail cache keeps. */
export function queuedPathsAndFingerprints(db: QueueDatabase): { path: string; fingerprint: string | null }[] {
  return db.prepare('SELECT path, fingerprint FROM files').all() as { path: string; fingerprint: string | null }[];
}

/** Whether a file of the queue, in any state, has the path `path`. */
export function isQueuedPath(db: QueueDatabase, path: string): boolean {
  return db.prepare('SELECT 1 FROM files WHERE path = ? LIMIT 1').get(path) !== undefined;
}

/**
 * The part MD5s (16 bytes each, part order) kept last for a copy with exactly this identity and
 * part size (bytes; migration 11), or undefined.
 */
export function partMd5sOf(
  db: QueueDatabase,
  c: { path: string; size: number; mtimeMs: number; dev: string; ino: string; ctimeNs: string; partSize: number },
): Buffer | undefined {
  const row = db
    .prepare(
      `SELECT md5s FROM part_md5s WHERE path = ? AND size = ? AND mtime_ms = ? AND dev = ? AND ino = ? AND ctime_ns = ? AND part_size = ? ORDER BY id DESC LIMIT 1`,
    )
    .get(c.path, c.size, Math.trunc(c.mtimeMs), c.dev, c.ino, c.ctimeNs, c.partSize) as { md5s: Buffer } | undefined;
  return row?.md5s;
}

/** An offload's row as kept (migrations 8 and 14): times ISO 8601, `verified` 0 or 1. */
export interface OffloadDbRow {
  id: number;
  card_path: string;
  card_name: string;
  destination: string;
  started_at: string;
  finished_at: string | null;
  state: 'copying' | 'finished' | 'interrupted';
  files: number;
  bytes: number;
  verified: number;
  mhl_path: string | null;
}

/** An offload file's row as kept (migration 8): `mtime_ms` ms since the epoch, `verified` 0 or 1. */
export interface OffloadFileDbRow {
  source_path: string;
  copy_path: string;
  size: number;
  mtime_ms: number;
  xxh64: string | null;
  verified: number;
  error: string | null;
}

/** Every offload's row, oldest first, each with its files' rows in the order they were checked. */
export function offloadRows(db: QueueDatabase): { offload: OffloadDbRow; files: OffloadFileDbRow[] }[] {
  const rows = db.prepare('SELECT * FROM offloads ORDER BY id').all() as OffloadDbRow[];
  const files = db.prepare('SELECT * FROM offload_files WHERE offload_id = ? ORDER BY id');
  return rows.map((offload) => ({ offload, files: files.all(offload.id) as OffloadFileDbRow[] }));
}

/** The source paths of the files of offload `id` recorded so far. */
export function offloadFileSources(db: QueueDatabase, id: number): string[] {
  return db.prepare('SELECT source_path FROM offload_files WHERE offload_id = ?').pluck().all(id) as string[];
}

/** The ids of the offloads recorded `copying`, ascending. */
export function copyingOffloadIds(db: QueueDatabase): number[] {
  return db.prepare(`SELECT id FROM offloads WHERE state = 'copying' ORDER BY id`).pluck().all() as number[];
}

/** The offloads recorded `interrupted` or `copying`: id, state and destination folder. */
export function unfinishedOffloads(db: QueueDatabase): { id: number; state: string; destination: string }[] {
  return db.prepare(`SELECT id, state, destination FROM offloads WHERE state IN ('interrupted', 'copying')`).all() as {
    id: number;
    state: string;
    destination: string;
  }[];
}

/** The verified copies recorded for the card file `source` and not removed by the sweep, newest first: path, size (bytes), mtime (ms). */
export function verifiedCopiesOf(db: QueueDatabase, source: string): { copy: string; size: number; mtimeMs: number }[] {
  return cached(
    db,
    'SELECT copy_path AS copy, size, mtime_ms AS mtimeMs FROM offload_files WHERE source_path = ? AND verified = 1 AND removed_at IS NULL ORDER BY id DESC',
  ).all(source) as { copy: string; size: number; mtimeMs: number }[];
}

/** The paths of every verified copy not removed by the retention sweep. */
export function keptCopyPaths(db: QueueDatabase): string[] {
  return db
    .prepare('SELECT copy_path FROM offload_files WHERE verified = 1 AND removed_at IS NULL')
    .pluck()
    .all() as string[];
}

/**
 * A verified copy not removed yet, as the retention sweep weighs it: how many queue rows upload
 * it (`queued`), how many of those rows' captures are unfinished (the capture not completed, or
 * any of its files not completed), and the latest completion (ISO 8601) among those captures' files.
 */
export interface RetentionCandidate {
  id: number;
  copy_path: string;
  queued: number;
  unfinished: number;
  completed_at: string | null;
}

/** Every verified copy not removed yet, weighed for the retention sweep (main/offload/retention.ts). */
export function retentionCandidates(db: QueueDatabase): RetentionCandidate[] {
  return db
    .prepare(
      `SELECT o.id, o.copy_path,
              COUNT(f.id) AS queued,
              SUM(CASE WHEN c.state <> 'completed'
                        OR EXISTS (SELECT 1 FROM files g WHERE g.capture_row = c.id AND g.state <> 'completed')
                       THEN 1 ELSE 0 END) AS unfinished,
              (SELECT MAX(g.completed_at) FROM files g WHERE g.capture_row IN (SELECT capture_row FROM files WHERE path = o.copy_path)) AS completed_at
         FROM offload_files o
         LEFT JOIN files f ON f.path = o.copy_path
         LEFT JOIN captures c ON c.id = f.capture_row
        WHERE o.verified = 1 AND o.removed_at IS NULL
        GROUP BY o.id`,
    )
    .all() as RetentionCandidate[];
}

/**
 * A verified copy the offload record lists (offload_files joined to its offload), for recognising
 * a card put back (main/offload/known-copies.ts): `copy` its path in the library, `size` bytes,
 * `mtimeMs` the card file's modification time kept by the copy, the offload's id, start
 * (`importedAt`, ISO 8601), destination folder and ASC MHL path.
 */
export interface VerifiedCopyRow {
  copy: string;
  size: number;
  mtimeMs: number;
  offloadId: number;
  importedAt: string;
  destination: string;
  mhlPath: string | null;
}

/** The verified copies not removed by the retention sweep whose size is `size` bytes, newest first. */
export function verifiedCopiesOfSize(db: QueueDatabase, size: number): VerifiedCopyRow[] {
  return cached(
    db,
    `SELECT f.copy_path AS copy, f.size, f.mtime_ms AS mtimeMs, o.id AS offloadId, o.started_at AS importedAt, o.destination, o.mhl_path AS mhlPath
       FROM offload_files f JOIN offloads o ON o.id = f.offload_id
      WHERE f.verified = 1 AND f.removed_at IS NULL AND f.size = ? ORDER BY f.id DESC`,
  ).all(size) as VerifiedCopyRow[];
}

/** The state of the newest file row not cancelled whose path is `path`, or undefined when none has it. */
export function newestFileStateAt(db: QueueDatabase, path: string): string | undefined {
  return cached(db, `SELECT state FROM files WHERE path = ? AND state != 'cancelled' ORDER BY id DESC LIMIT 1`)
    .pluck()
    .get(path) as string | undefined;
}

/**
 * How many captures have files not finished yet (neither completed nor cancelled, not replaced)
 * whose path starts with `prefix` (a card's root with its separator): the recordings the queue
 * still reads from that card.
 */
export function unfinishedCapturesUnder(db: QueueDatabase, prefix: string): number {
  return (
    cached(
      db,
      `SELECT COUNT(DISTINCT capture_row) AS n FROM files WHERE state NOT IN ('completed', 'cancelled') AND replaced_by IS NULL AND instr(path, ?) = 1`,
    ).get(prefix) as { n: number }
  ).n;
}

/**
 * The places captures of `project` were registered to, the most recent first, one per structure
 * and design with the type last used there (its last capture's §4.4 `type`): the registration
 * table's recent places, whose type is the one remembered for that structure and design. At most
 * `limit` (default 8). Reads only.
 */
export function recentPlacements(
  db: QueueDatabase,
  project: string,
  limit = 8,
): { structure: string; design?: string; type: 'interior' | 'exterior' }[] {
  const rows = cached(
    db,
    `SELECT structure, design, json_extract(request_json, '$.type') AS type FROM captures
      WHERE id IN (SELECT MAX(id) FROM captures WHERE project = ? GROUP BY structure, ifnull(design, ''))
      ORDER BY id DESC LIMIT ?`,
  ).all(project, limit) as { structure: string; design: string | null; type: string }[];
  return rows
    .filter((r) => r.type === 'interior' || r.type === 'exterior')
    .map((r) => ({
      structure: r.structure,
      ...(r.design ? { design: r.design } : {}),
      type: r.type as 'interior' | 'exterior',
    }));
}
