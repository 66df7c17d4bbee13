import { z } from 'zod';
import { captureState, fileState, id } from './common.js';

// The Queue screen's schemas of the IPC contract (shared/ipc.ts re-exports them).

/**
 * A queued file with its progress. Bytes; bytes per second; seconds. A `pending` file with a
 * `retryAt` (ms since epoch) failed for a passing reason and is tried again by itself then
 * (`attempts` so far); `error` says why. A file with `replacedBy` changed on disk and its recording
 * was added again as that capture.
 */
export const queueFile = z.object({
  id,
  captureRow: id,
  fileName: z.string(),
  path: z.string(),
  size: z.number(),
  state: fileState,
  error: z.string().nullable(),
  /** Bytes storage acknowledged (parts whose ETag came back). */
  bytesSent: z.number(),
  /** Bytes of parts on the wire not yet acknowledged (drawn apart, like a buffered bar); absent: 0. */
  bytesInFlight: z.number().optional(),
  partsDone: z.number(),
  partsTotal: z.number(),
  bytesPerSecond: z.number(),
  etaSeconds: z.number().nullable(),
  retryAt: z.number().nullable(),
  attempts: z.number(),
  /** The capture row that replaced this (cancelled) file: its recording changed on disk and was added again. */
  replacedBy: z.number().nullable().optional(),
  /** Placed while its card was being imported: not sent until the import verifies its copy; absent: false. */
  awaitingCopy: z.boolean().optional(),
  /** The name of the card this file waits for: it was pulled out while the file uploaded straight from it (absent: none). */
  waitingForCard: z.string().optional(),
});
export type QueueFile = z.infer<typeof queueFile>;

/**
 * A capture in the queue; a `queued` one with `retryAt` (ms since epoch) is registered again by
 * itself then. `structure`, `design`, `type` and `capturedAt` (ISO 8601 with zone) are what it is
 * registered with (§4.4), so a refused capture can be corrected and registered again.
 */
export const queueCapture = z.object({
  id,
  label: z.string(),
  state: captureState,
  error: z.string().nullable(),
  retryAt: z.number().nullable(),
  captureId: z.string().nullable(),
  structure: z.string(),
  design: z.string().nullable(),
  type: z.enum(['interior', 'exterior']),
  capturedAt: z.string(),
  /** Its place at the front of the queue: 0 in the queue's own order (by age), higher goes first; absent: 0. */
  priority: z.number().optional(),
  /** Warnings kept with it since registration (a missing trailer, a lone or vanished lens, a short recording); absent or empty when none. */
  warnings: z.array(z.string()).optional(),
});
export type QueueCapture = z.infer<typeof queueCapture>;

/**
 * An outage seen by the uploads (main/engine/progress/progress.ts Outage): part requests failing for a
 * passing reason at `storage` or at the `gateway` since `since` (ms since epoch), `cause` in the
 * service's words (shared/causes.ts plainCause gives plain words). Nothing is lost meanwhile.
 */
const queueOutage = z.object({ where: z.enum(['storage', 'gateway']), since: z.number(), cause: z.string() });
export type QueueOutage = z.infer<typeof queueOutage>;

/**
 * The batch in numbers (the captures added since the queue last held no unfinished file, and every
 * file not finished: docs/progress-batch.md), from SQL aggregates plus the live bytes of files uploading.
 * Counts of files by what happens next (`queued`: waiting for registration or its turn;
 * `retrying`: waiting for a scheduled retry after a passing failure), `needYou` counts failed
 * files and captures that need a person. Bytes: `bytesTotal` of every file not cancelled,
 * `bytesDone` stored so far of them, `bytesRemaining` still to send of the files that move by
 * themselves (waiting, pending, uploading; paused and failed files are left out, so an ETA from
 * it is honest).
 */
export const queueTotals = z.object({
  files: z.number(),
  captures: z.number(),
  completed: z.number(),
  uploading: z.number(),
  queued: z.number(),
  retrying: z.number(),
  paused: z.number(),
  failed: z.number(),
  cancelled: z.number(),
  needYou: z.number(),
  bytesTotal: z.number(),
  bytesDone: z.number(),
  bytesRemaining: z.number(),
  /** Bytes per second storage acknowledged, a moving average over the last 20 s; 0 when nothing moves. */
  bytesPerSecond: z.number(),
  /** Bytes on the wire not yet acknowledged by storage (not in `bytesDone`); absent: 0. */
  bytesInFlight: z.number().optional(),
  /** Bytes storage had acknowledged and then lost (sent again) since the app started: the only way `bytesDone` goes back; absent: 0. */
  bytesLost: z.number().optional(),
  /** The earliest scheduled retry of a file or capture (ms since epoch), or null/absent when none. */
  nextRetryAt: z.number().nullable().optional(),
  /** Storage or the gateway failing for a passing reason since `since` (ms since epoch), until a part is acknowledged; null/absent when not. */
  outage: queueOutage.nullable().optional(),
  /** Captures in the queue that carry warnings: the finish says so, never plain green; absent: 0. */
  capturesWarned: z.number().optional(),
  /**
   * Cards pulled out while their recordings uploaded straight from them: how many,
   * and the recordings waiting for them; absent when none. Those files wait, nothing failed.
   */
  cardRemoved: z
    .object({ cards: z.number(), recordings: z.number(), names: z.array(z.string()).optional() })
    .optional(),
  /**
   * Files earlier batches completed and their size (bytes): left out of every figure above, which
   * are this batch's (docs/progress-batch.md); absent when none.
   */
  earlier: z.object({ files: z.number(), bytes: z.number() }).optional(),
});
export type QueueTotals = z.infer<typeof queueTotals>;

/**
 * A queue-wide hold (main/queue/meta.ts QueueHold): no file starts until `until` (ISO 8601; null:
 * until a person resumes), set `by` a person ("Pause until 07:00") or the bandwidth timetable's
 * pause hours. Apart from each file's own pause: its end resumes no file a person paused.
 */
export const queueHold = z.object({ until: z.string().nullable(), by: z.enum(['person', 'timetable']) });
export type QueueHoldView = z.infer<typeof queueHold>;

/**
 * The queue; `blocked` says why nothing is sent (the service refuses the queue's credentials), or
 * null; `hold` the queue-wide hold in force, or null; `keptAwake` whether the app keeps the
 * computer from sleeping while the queue has work.
 */
export const queueView = z.object({
  captures: z.array(queueCapture),
  files: z.array(queueFile),
  blocked: z.string().nullable(),
  hold: queueHold.nullable(),
  totals: queueTotals,
  keptAwake: z.boolean(),
});
export type QueueView = z.infer<typeof queueView>;

/** One line of the activity log (main/queue/activity.ts): `at` ISO 8601; what happened to which capture or file. */
export const activityView = z.object({
  id,
  at: z.string(),
  captureRow: z.number().nullable(),
  fileId: z.number().nullable(),
  subject: z.string(),
  kind: z.string(),
  message: z.string(),
});
export type ActivityView = z.infer<typeof activityView>;

/** Whether the project's default designs changed since the last export (§4.3). */
export const designStatus = z.object({
  latestDesignUpdate: z.string().nullable(),
  lastExport: z.object({ requestedAt: z.string(), designsUpdatedAt: z.string().nullable() }).nullable(),
  stale: z.boolean(),
});
export type DesignStatus = z.infer<typeof designStatus>;
