// The messages between the Electron main process (the host, main/service-host/host.ts) and the upload
// service's process (main/service/worker.ts, started by main/service-host/spawn.ts). Calls carry a channel of shared/ipc.ts and
// its already-parsed argument; answers come back by `seq` in the same envelope the renderer sees
// (`{ ok, value } | { ok: false, error }`, as Signal Desktop's SQL worker answers); events are the
// contract's own events with their deltas. Everything here is structured-clone data: no functions.
import type { Channel, Envelope, EventName, EventPayload, QueueTotals } from '../../shared/ipc.js';
import type { LocalServiceReady } from './local-service.js';
import type { ServiceOptions } from './service-options.js';

/**
 * Engine settings the tests shorten, as data (another process cannot receive functions): the part retry
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
 * Where the service finds the local test service: `find` loads the package beside the app
 * (main/service/local-service.ts `findLocalService`), `{ info }` is one already running elsewhere (tests,
 * whose service outlives app restarts), null where it is not offered (the packaged app).
 */
export type LocalServiceSource = 'find' | { info: LocalServiceReady } | null;

/** What the host gives the service at start (its first message, `start`): ServiceOptions' data, and the settings and secrets as the service's copy of them. */
export interface ServiceStart extends Pick<ServiceOptions, 'dataDir' | 'logDir' | 'gatherMs' | 'cards'> {
  /** Whether the host can seal secrets (Electron's safeStorage with a real keyring). */
  secretsAvailable: boolean;
  /**
   * The settings file as it is at start (key → JSON value). The service is the settings' only
   * writer, so it reads its copy and posts each write (`store`) for the host to keep.
   */
  store: Record<string, unknown>;
  /**
   * Secrets the host unsealed for the service: sealed form → clear text. The service never sees
   * safeStorage; what it must seal anew (a new password, a new token) goes to the host with the
   * `store` write that keeps it (see `SEALING_PREFIX`).
   */
  unsealed: Record<string, string>;
  localService: LocalServiceSource;
  engine?: EngineTuning;
}

/**
 * How a secret the service sealed looks until the host has sealed it: the service's SecretBox is
 * synchronous and the keychain is the host's, so `encrypt` answers `SEALING_PREFIX + n` at once
 * and the `store` write carrying it names the clear text in `seal`; the host seals it with
 * safeStorage and writes the sealed form in its place. The service decrypts the stand-in from memory.
 */
export const SEALING_PREFIX = 'sealing-by-host:';

/** Host → service. */
export type HostMessage =
  /** The first message: what the service needs to open the queue. */
  | { type: 'start'; start: ServiceStart }
  | { type: 'call'; seq: number; channel: Channel; args: unknown }
  /** The caller gave up: the service aborts the call's signal and drops its late result (the host answered already). */
  | { type: 'cancel'; seq: number }
  /** The answer to a service's `request`. */
  | { type: 'reply'; seq: number; answer: Envelope<unknown> }
  /**
   * Write the support report (main/support/support-report.ts) to `out`, answered by a `result` with
   * `seq` (the report's path and entries); a `cancel` with its `seq` stops the gathering (nothing
   * is left at `out`). Not a channel of shared/ipc.ts: only the shell's Help
   * menu asks for it, never the window. `versions`: what only the host knows (Electron's, Chrome's).
   */
  | { type: 'report'; seq: number; out: string; versions: Record<string, string | undefined> }
  /**
   * The window's own port (Electron's MessageChannelMain, carried as this message's transfer;
   * docs/decisions/0029-service-port.md): from now on the service posts the window's events on it as
   * {@link WindowEvent}, not through the host. Only in a utility process; never under fork.
   */
  | { type: 'window-port' }
  /**
   * The host's heartbeat (main/service-host/heartbeat.ts, docs/decisions/0035-service-heartbeat.md):
   * answered at once with a `pong` of the same `seq` from the service's event loop, never from
   * work in progress, so a process whose loop does not turn is seen to be silent.
   */
  | { type: 'ping'; seq: number }
  /** Stop uploads and close the queue, then answer `closed` and end. */
  | { type: 'close' };

/** An event as the service posts it on the window's port: the contract's event and its payload. */
export type WindowEvent = { [E in EventName]: { event: E; payload: EventPayload<E> } }[EventName];

/** What the shell's tray shows of a queue event (shared/queue-state.ts): its hold and what blocks it. */
export interface QueueStops {
  hold: EventPayload<'capture:event.rows'>['hold'];
  blocked: string | null;
}

/**
 * The service's start: `queueError` says why the queue could not be opened (a newer version, a
 * folder that cannot be written, a full disk, another process holding it), or null. The service
 * then still answers calls (settings), and the window shows the error.
 */
interface StartedMessage {
  type: 'started';
  queueError: string | null;
}

/**
 * What only the host can do, asked by the service and answered by a `reply` (never waited for
 * by blocking): the file dialog (answers the paths), or taking (`working`) or releasing the
 * power-save blocker (answers whether the computer is kept awake).
 */
export type HostRequest = { op: 'pickFiles' } | { op: 'busy'; working: boolean };

/** Service → host. */
export type WorkerMessage =
  | StartedMessage
  | { type: 'result'; seq: number; answer: Envelope<unknown> }
  | { [E in EventName]: { type: 'event'; event: E; payload: EventPayload<E> } }[EventName]
  | { type: 'notify'; title: string; body: string }
  | { type: 'totals'; totals: QueueTotals }
  /**
   * A settings store write, for the host to keep (electron-store). `seal`: stand-ins in `value`
   * (`SEALING_PREFIX…`) → the clear text the host seals and writes in their place.
   */
  | { type: 'store'; key: string; value: unknown; seal?: Record<string, string> }
  | { type: 'log'; level: 'info' | 'warn'; message: string }
  /** The tray's part of a queue event the service posted on the window's port instead (no rows). */
  | ({ type: 'stops' } & QueueStops)
  | ({ type: 'request'; seq: number } & HostRequest)
  /** The answer to the host's `ping` of that `seq`. */
  | { type: 'pong'; seq: number }
  | { type: 'closed' };
