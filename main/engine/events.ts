import type { EngineSettings } from '../../shared/settings-table.js';
import type { RetryPolicy } from '../api/errors.js';
import type { CaptureGateway } from '../api/gateway.js';
import type { ActivityEntry } from '../queue/activity.js';
import type { QueueHold } from '../queue/meta.js';
import type { CaptureState, FileState, QueuedCapture, QueuedFile, UploadQueue } from '../queue/queue.js';
import type { FileProgress, OverallProgress } from './progress/progress.js';
import type { RetrySchedule } from './scheduling/retry-schedule.js';

/** Where the engine writes what a person or a log reader should know (never a secret). */
export interface Logger {
  info(message: string): void;
  warn(message: string): void;
}

/** Where and how often the mount folders are watched for a pulled card. Times in ms. */
export interface CardWatchOptions {
  /**
   * Folders cards are mounted under (default: main/intake/detect.ts mountRoots, and on Windows every drive
   * letter). The folder a pulled card was mounted in, and its own old root, are always watched too.
   */
  mountRoots?: readonly string[];
  /** How often the mount folders are looked at while a card is away (default 2000). */
  intervalMs?: number;
  /**
   * The waits (ms) before each new try of a file whose read failed with a device error (EIO,
   * ENXIO, ENODEV, ESTALE) while its card or drive still looked mounted (default 2,000, 5,000 and
   * 10,000): a card on its way out answers so for a moment before its mount goes. After the last,
   * the file fails as unreadable.
   */
  deviceRetryMs?: readonly number[];
}

/**
 * Engine settings. Times in ms, bandwidth in bytes per second. Those a person tunes
 * (EngineSettings: `concurrency`, …) are declared once in shared/settings-table.ts, with their
 * defaults, bounds and units, and reach the engine in this one named object.
 */
export interface EngineOptions extends Partial<EngineSettings> {
  queue: UploadQueue;
  gateway: CaptureGateway;
  /** Bandwidth limit for all part uploads together, or null (default). */
  bandwidthBytesPerSecond?: number | null;
  /** Retries of one part (default §8 recommended: 4 retries, 500 ms × 2^attempt + 0–500 ms). */
  partRetry?: RetryPolicy;
  /** When files and registrations that failed for a passing reason are tried again (default: 15 s doubling to 15 min). */
  retrySchedule?: RetrySchedule;
  /**
   * The stall timeout (default STALL_TIMEOUT_MS, 30 000): a part that moves no byte this long
   * while sending is aborted and retried; the link counts as silent ("Waiting for storage") after
   * this long without a sign of life from storage while parts are in flight; a part waits for its
   * answer at most twice this long (docs/engine.md, "A silent link").
   */
  stallTimeoutMs?: number;
  /**
   * The slowest link the engine is built for, bytes per second (default 16 KiB/s): assumed only
   * for a part smaller than the system's buffers, all of it taken at once, before any part was
   * answered, to bound its wait for an answer by its own bytes at this rate.
   */
  minLinkRate?: number;
  /**
   * How long a part whose every byte left but whose answer was lost (or whose work stopped before
   * the answer, at the next start) is asked about before it is sent again (default 15 000, on the
   * monotonic clock; in-doubt.ts): storage may still be storing it (MD5, encryption, replication).
   */
  answerSettleMs?: number;
  /** Presign-again rounds after storage 403/AccessDenied for one part before it fails (default 3). */
  maxResigns?: number;
  /** Resume-loop rounds without fewer missing parts before the file fails (default 3). */
  maxRounds?: number;
  /** Minimum time between progress events (default 100: ten a second at most). */
  progressIntervalMs?: number;
  /** Where a card pulled out mid-upload is looked for while it is away (default: the system's mount folders). */
  cards?: CardWatchOptions;
  /** The queue database's file, to name it in errors and to notice it being deleted during a drain. */
  queueFile?: string;
  log?: Logger;
}

/**
 * What the engine tells its listeners. Each event carries what changed, so a listener applies it
 * instead of reloading the queue: `file` and `capture` carry the row as committed, `removed` the
 * ids that left the queue, `activity` the log line written with the change.
 */
export type EngineEvent =
  | { type: 'progress'; files: FileProgress[]; overall: OverallProgress }
  | {
      type: 'file';
      fileId: number;
      captureRow: number;
      fileName: string;
      state: FileState;
      error: string | null;
      /** Whether the last error may pass by itself (the file is waiting to be retried at `file.nextAttemptAt`). */
      transient: boolean;
      file: QueuedFile;
    }
  | {
      type: 'capture';
      captureRow: number;
      label: string;
      state: CaptureState;
      error: string | null;
      capture: QueuedCapture;
    }
  | { type: 'removed'; captureRow: number; fileIds: number[] }
  /**
   * Storage's own list of an upload's parts (the §4.9 status read, which syncs from ListParts)
   * lacks parts it had acknowledged (`partNumbers`, `bytes` in all): their ETags are forgotten and
   * they are sent again. Said once per loss; a file restarted or resumed never says it.
   */
  | { type: 'lost'; fileId: number; captureRow: number; fileName: string; partNumbers: number[]; bytes: number }
  /**
   * A person's batch ("Pause all", "Resume all", "Retry all", "Clear completed") committed in one
   * transaction: these rows changed or left; read them as committed (one event for 10,000 rows).
   */
  | { type: 'batch'; fileIds: number[]; captureRows: number[] }
  /** The queue-wide hold in force changed (see QueueHold): a hold began, moved or ended (null). */
  | { type: 'hold'; hold: QueueHold | null }
  | { type: 'activity'; entry: ActivityEntry }
  /** The service refuses the queue's credentials (message), or no longer (null). */
  | { type: 'blocked'; message: string | null }
  /** The queue database cannot be written any more (full disk, read-only, deleted): the engine stopped. */
  | { type: 'fatal'; message: string }
  | { type: 'warning'; message: string };

/** The queue once a drain stopped: files and captures by outcome. */
export interface DrainSummary {
  completed: QueuedFile[];
  /** Failed for a reason that needs a person (refused, changed on disk, unreadable). */
  failed: QueuedFile[];
  paused: QueuedFile[];
  cancelled: QueuedFile[];
  /** Pending files waiting for their scheduled retry after a passing failure (`nextAttemptAt`). */
  waiting: QueuedFile[];
  /** Captures queued for a registration retry, or not yet sent because the queue stopped. */
  queued: QueuedCapture[];
  /** Captures that need a person: registration_unknown, rejected, failed. */
  needsAttention: QueuedCapture[];
  /** Why the whole queue stopped (credentials refused), or null. */
  blocked: string | null;
  /** Why the engine stopped for good (the queue database cannot be written: full disk, read-only, deleted), or null. */
  fatal: string | null;
  /**
   * "Card removed: put it back to continue (48 recordings waiting)" when files wait for a card
   * pulled out mid-upload (they are among `waiting`), else null or absent.
   */
  cardRemoved?: string | null;
}

/** What `drain` does when nothing can run right now. Times in ms since epoch. */
export interface DrainOptions {
  /** Keep going through outages: sleep until the next scheduled retry instead of returning. */
  wait?: boolean;
  /** With `wait`: stop waiting (and stop uploads in flight, kept for next time) at this time. */
  deadline?: number;
}
