import type { RetryPolicy } from '../api/errors.js';
import type { CaptureGateway } from '../api/gateway.js';
import type { UploadQueue } from '../queue/queue.js';
import type { Logger } from './events.js';
import type { PartLedger } from './progress/ledger.js';
import type { Limiter } from './scheduling/limiter.js';
import type { OutageRecord } from './outages/outage-record.js';
import type { GatewayMonitor } from './outages/gateway-watch.js';
import type { LinkMonitor } from './outages/link.js';
import type { ProgressTracker } from './progress/progress.js';
import type { RetrySchedule } from './scheduling/retry-schedule.js';
import type { Bandwidth } from './scheduling/bandwidth.js';
import type { Transitions } from './progress/transitions.js';

/**
 * What the engine's parts share: the queue and the one way to change it, the gateway, the shared
 * request limit, bandwidth and link view, the part ledger and progress tracker, and the settings.
 * Built once by UploadEngine; times in ms.
 */
export interface EngineContext {
  queue: UploadQueue;
  gateway: CaptureGateway;
  transitions: Transitions;
  limiter: Limiter;
  bandwidth: Bandwidth;
  link: LinkMonitor;
  /** The engine's view of the capture gateway's calls: tells a silent gateway (gateway-watch.ts). */
  gatewayWatch: GatewayMonitor;
  ledger: PartLedger;
  tracker: ProgressTracker;
  /** The outage the tracker sees, kept in the queue's meta table for other processes. */
  outages: OutageRecord;
  log: Logger;
  partRetry: RetryPolicy;
  retrySchedule: RetrySchedule;
  stallTimeoutMs: number;
  /** How long a part in doubt is asked about before it is sent again (EngineOptions.answerSettleMs; in-doubt.ts). */
  answerSettleMs: number;
  maxResigns: number;
  maxRounds: number;
  /**
   * Whether storage's ETags are plain MD5 digests of the part (S3 without KMS encryption): learnt
   * from answers, undefined until one arrives. Decides whether a lost ETag can be rebuilt from the bytes.
   */
  etagsAreMd5?: boolean;
  /** Tells listeners something a person should know (once per cause). */
  warn(message: string): void;
  /**
   * The gateway answered an ask about parts in doubt (the status read or presign-missing, which
   * read storage's own list): the network is up, so an outage at storage said "network down" is
   * over (docs/engine.md, "A silent link").
   */
  storageAsked(): void;
  /**
   * Stops the engine for good when the queue database cannot be written (QueueStorageError or an
   * SQLite storage error); answers whether `err` was such an error (otherwise nothing happens).
   */
  fatal(err: unknown): boolean;
}
