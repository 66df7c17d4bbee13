import type { CaptureRequest } from '../api/gateway.js';

// The queue's row types and their mapping from SQLite rows, apart from the UploadQueue class so
// that each file stays readable.

/**
 * Capture states in the queue:
 * `queued` (written, not yet sent) → `registering` (claimed; `sentAt` set once add-capture is on
 * its way, §4.4) → `registered` (manifest stored) → `completed`; or `rejected` (the service refused
 * it, with its message), `registration_unknown` (add-capture was sent and no clear answer was
 * stored: the app stopped, or the service answered 500/502/504, timed out or reset after the body
 * was sent; a person decides, since registering again could create a duplicate), `failed`.
 */
export type CaptureState =
  | 'queued'
  | 'registering'
  | 'registration_unknown'
  | 'registered'
  | 'completed'
  | 'failed'
  | 'rejected';

/**
 * File states: `waiting` (its capture is not registered yet), `pending` (ready to upload),
 * `uploading`, `paused`, `completed` (the service said completed), `failed` (with `error`),
 * `cancelled`.
 */
export type FileState = 'waiting' | 'pending' | 'uploading' | 'paused' | 'completed' | 'failed' | 'cancelled';

/** A capture row. Timestamps ISO 8601. */
export interface QueuedCapture {
  id: number;
  state: CaptureState;
  label: string;
  project: string;
  structure: string;
  design: string | null;
  request: CaptureRequest;
  captureId: string | null;
  error: string | null;
  /** Registration tries that failed for a passing reason since it was queued. */
  attempts: number;
  /** When a registration that failed for a passing reason is sent again (ms since epoch), or null. */
  nextAttemptAt: number | null;
  /**
   * While `registering`: when the add-capture request was committed as sent (ISO 8601), or null
   * when the capture is only claimed (signing in, nothing sent yet). Meaningless in other states.
   */
  sentAt: string | null;
  /** Its place at the front of the queue (migration 9): 0 in the queue's own order, higher goes first. */
  priority: number;
  createdAt: string;
  updatedAt: string;
}

/**
 * What identifies a file's content on disk when it was queued: device and inode (decimal strings:
 * they can exceed 2^53), the status-change time in ns (a decimal string; `touch` cannot set it
 * back, so an in-place change with its mtime restored still shows), and a content fingerprint
 * (hex SHA-256 of the size, the first MiB and the last MiB). Null fields: a row queued before
 * these were kept (migration 4).
 */
export interface FileIdentity {
  dev: string | null;
  ino: string | null;
  ctimeNs: string | null;
  fingerprint: string | null;
}

/** A file row. `size` in bytes, `mtimeMs` the modification time (ms since epoch) when queued. */
export interface QueuedFile extends FileIdentity {
  id: number;
  captureRow: number;
  frameIndex: number;
  path: string;
  fileName: string;
  contentType: string;
  size: number;
  mtimeMs: number;
  state: FileState;
  uploadId: string | null;
  partSize: number | null;
  totalParts: number | null;
  error: string | null;
  /** Automatic tries after failures that may pass by themselves, since the last success or a person's retry. */
  attempts: number;
  /** A `pending` file waits until then (ms since epoch) before it is tried again; null: at once. */
  nextAttemptAt: number | null;
  /** Whether the last error may pass by itself (network, 5xx): true means "retrying", false "needs a person". */
  transient: boolean;
  /** The file changed on disk while queued: it no longer stands for its recording, so adding the recording again is allowed. */
  changed: boolean;
  /**
   * The capture row that replaced this file: its recording changed on disk and was added again
   * (a new capture at the platform). Such a file is `cancelled` and no longer stands for it.
   */
  replacedBy: number | null;
  /**
   * Queued from a card while its import still copies it (migration 13): not started until the
   * import verifies the copy and the file is moved to it, or the hold is released (main/queue/copy-holds.ts).
   */
  awaitingCopy: boolean;
  completedAt: string | null;
  /** Bytes and parts storage accepted so far (parts with an ETag in the queue). */
  storedBytes: number;
  storedParts: number;
}

/**
 * A part row: `etag` (quoted, as storage returned it) is set once storage accepted the part;
 * `unansweredAt` (ms since 1970, wall clock) once every byte was sent but its work stopped before
 * the answer came (migration 10; main/engine/parts/in-doubt.ts), else null.
 */
export interface QueuedPart {
  partNumber: number;
  size: number;
  etag: string | null;
  unansweredAt: number | null;
}

/** A file to queue: where it is (an absolute, resolved path) and what it is. `size` bytes, `mtimeMs` ms since epoch. */
export interface NewFile extends Partial<FileIdentity> {
  path: string;
  fileName: string;
  contentType: string;
  size: number;
  mtimeMs: number;
}

/** Now as ISO 8601, the queue's timestamp format. */
export const now = (): string => new Date().toISOString();

/** A `captures` row as SQLite returns it. */
export interface CaptureRowRaw {
  id: number;
  state: CaptureState;
  label: string;
  project: string;
  structure: string;
  design: string | null;
  request_json: string;
  capture_id: string | null;
  error: string | null;
  attempts: number;
  next_attempt_at: number | null;
  sent_at: string | null;
  /** Absent on a queue read before migration 9 ran (never in practice: every open migrates). */
  priority?: number;
  created_at: string;
  updated_at: string;
}

/** A `files` row as SQLite returns it. */
export interface FileRowRaw {
  id: number;
  capture_row: number;
  frame_index: number;
  path: string;
  file_name: string;
  content_type: string;
  size: number;
  mtime_ms: number;
  state: FileState;
  upload_id: string | null;
  part_size: number | null;
  total_parts: number | null;
  error: string | null;
  attempts: number;
  next_attempt_at: number | null;
  transient: number;
  completed_at: string | null;
  dev: string | null;
  ino: string | null;
  ctime_ns: string | null;
  fingerprint: string | null;
  changed: number;
  replaced_by: number | null;
  awaiting_copy?: number;
  stored_bytes: number;
  stored_parts: number;
}

/** A `captures` row as a QueuedCapture. */
export const toCapture = (r: CaptureRowRaw): QueuedCapture => ({
  id: r.id,
  state: r.state,
  label: r.label,
  project: r.project,
  structure: r.structure,
  design: r.design,
  request: JSON.parse(r.request_json) as CaptureRequest,
  captureId: r.capture_id,
  error: r.error,
  attempts: r.attempts,
  nextAttemptAt: r.next_attempt_at,
  sentAt: r.sent_at ?? null,
  priority: r.priority ?? 0,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

/** A `files` row as a QueuedFile. */
export const toFile = (r: FileRowRaw): QueuedFile => ({
  id: r.id,
  captureRow: r.capture_row,
  frameIndex: r.frame_index,
  path: r.path,
  fileName: r.file_name,
  contentType: r.content_type,
  size: r.size,
  mtimeMs: r.mtime_ms,
  state: r.state,
  uploadId: r.upload_id,
  partSize: r.part_size,
  totalParts: r.total_parts,
  error: r.error,
  attempts: r.attempts,
  nextAttemptAt: r.next_attempt_at,
  transient: r.transient === 1,
  changed: r.changed === 1,
  replacedBy: r.replaced_by,
  awaitingCopy: r.awaiting_copy === 1,
  completedAt: r.completed_at,
  dev: r.dev,
  ino: r.ino,
  ctimeNs: r.ctime_ns,
  fingerprint: r.fingerprint,
  storedBytes: r.stored_bytes,
  storedParts: r.stored_parts,
});
