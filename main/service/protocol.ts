// The messages between the Electron main process (the host, main/service/host.ts) and the upload
// service's worker thread (main/service/worker.ts). Calls carry a channel of shared/ipc.ts and
// its already-parsed argument; answers come back by `seq` in the same envelope the renderer sees
// (`{ ok, value } | { ok: false, error }`, as Signal Desktop's SQL worker answers); events are the
// contract's own events with their deltas. Everything here is structured-clone data: no functions.
import type { Channel, Envelope, EventName, EventPayload, QueueTotals } from '../../shared/ipc.js';
import type { LocalServiceReady } from './local-service.js';
import type { CardWatchOptions } from './card-desk.js';

/**
 * Engine settings the tests shorten, as data (a worker cannot receive functions): the part retry
 * policy (`recommendedRetryPolicy(baseMs, jitterMs, retries)`, ms), the durable retry schedule
 * (`overnightRetrySchedule(baseMs, maxMs)`, ms), and plain numbers passed to the engine as they are.
 */
export interface EngineTuning {
  partRetry?: { baseMs: number; jitterMs: number; retries?: number };
  retrySchedule?: { baseMs: number; maxMs: number };
  stallTimeoutMs?: number;
  progressIntervalMs?: number;
  maxRounds?: number;
}

/**
 * Where the worker finds the local test service: `find` loads the package beside the app
 * (main/service/local-service.ts `findLocalService`), `{ info }` is one already running elsewhere (tests,
 * whose service outlives app restarts), null where it is not offered (the packaged app).
 */
export type LocalServiceSource = 'find' | { info: LocalServiceReady } | null;

/** What the host gives the worker at start (`workerData`). */
export interface ServiceStart {
  /** The app's user-data folder (the queue in `<dataDir>/queue`). */
  dataDir: string;
  /** Whether the host can seal secrets (Electron's safeStorage with a real keyring). */
  secretsAvailable: boolean;
  /**
   * Secrets the host unsealed for the worker: sealed form → clear text. The worker never sees
   * safeStorage; what it must seal anew (a new password) it asks for with a `sync` message.
   */
  unsealed: Record<string, string>;
  localService: LocalServiceSource;
  engine?: EngineTuning;
  /** Announcer's gathering time (ms), shortened by tests. */
  gatherMs?: number;
  /** Where the card desk looks for cards and how often (tests: a folder of their own); default the system's mount folders. */
  cards?: CardWatchOptions;
  /** The buffer synchronous answers come back in (see `SYNC_BYTES`). */
  sync: SharedArrayBuffer;
  /** The module to run, for the tsx bootstrap (main/service/tsx-boot.mjs) under tests. */
  entry?: string;
}

/** Size of the synchronous answer buffer: an Int32 flag, an Int32 length, then UTF-8 JSON. */
export const SYNC_BYTES = 1024 * 1024;

/**
 * Questions AppCore asks synchronously (its SecretBox, KeyValueStore and `busy` are synchronous):
 * seal or unseal a secret, read a settings key (JSON; cached by the worker, which is its only
 * writer), take or release the power-save blocker (answers whether the computer is kept awake).
 */
export type SyncOp = { op: 'seal'; plain: string } | { op: 'unseal'; sealed: string } | { op: 'storeGet'; key: string } | { op: 'busy'; working: boolean };

/** Host → worker. */
export type HostMessage =
  | { type: 'call'; seq: number; channel: Channel; args: unknown }
  /** The caller gave up: the worker answers the call at once with an error and drops its late result. */
  | { type: 'cancel'; seq: number }
  /** The answer to a worker's `request`. */
  | { type: 'reply'; seq: number; answer: Envelope<unknown> }
  /** Stop uploads and close the queue, then answer `closed`. */
  | { type: 'close' };

/**
 * The worker's start: `queueError` says why the queue could not be opened (a newer version, a
 * folder that cannot be written, a full disk, another process holding it), or null. The worker
 * then still answers calls (settings), and the window shows the error.
 */
export interface StartedMessage {
  type: 'started';
  queueError: string | null;
}

/** Worker → host. */
export type WorkerMessage =
  | StartedMessage
  | { type: 'result'; seq: number; answer: Envelope<unknown> }
  | { [E in EventName]: { type: 'event'; event: E; payload: EventPayload<E> } }[EventName]
  | { type: 'notify'; title: string; body: string }
  | { type: 'totals'; totals: QueueTotals }
  /** A settings store write, for the host to keep (electron-store). */
  | { type: 'store'; key: string; value: unknown }
  | { type: 'log'; level: 'info' | 'warn'; message: string }
  /** Something only the host can do, answered by a `reply`: the file dialog. */
  | { type: 'request'; seq: number; op: 'pickFiles' }
  /** A question answered in the `sync` buffer while the worker waits (Atomics.wait). */
  | ({ type: 'sync' } & SyncOp)
  | { type: 'closed' };

/**
 * Writes a synchronous answer into the buffer and wakes the waiting worker. `answer` is JSON
 * data; an answer longer than the buffer is replaced by an error envelope.
 */
export function writeSyncAnswer(buf: SharedArrayBuffer, answer: Envelope<unknown>): void {
  let bytes = new TextEncoder().encode(JSON.stringify(answer));
  if (bytes.length > SYNC_BYTES - 8) bytes = new TextEncoder().encode(JSON.stringify({ ok: false, error: 'The answer is too long' }));
  new Uint8Array(buf, 8, bytes.length).set(bytes);
  const flag = new Int32Array(buf, 0, 2);
  flag[1] = bytes.length;
  Atomics.store(flag, 0, 1);
  Atomics.notify(flag, 0);
}

/**
 * Posts a `sync` question and blocks the worker thread until the host answers (at most
 * `timeoutMs`, default 10 s). Returns the value; throws Error with the host's message, or on timeout.
 */
export function syncAsk(buf: SharedArrayBuffer, post: (m: WorkerMessage) => void, q: SyncOp, timeoutMs = 10_000): unknown {
  const flag = new Int32Array(buf, 0, 2);
  Atomics.store(flag, 0, 0);
  post({ type: 'sync', ...q });
  if (Atomics.wait(flag, 0, 0, timeoutMs) === 'timed-out') throw new Error(`The app did not answer (${q.op})`);
  const answer = JSON.parse(new TextDecoder().decode(new Uint8Array(buf, 8, flag[1]!).slice())) as Envelope<unknown>;
  if (!answer.ok) throw new Error(answer.error);
  return answer.value;
}
