// The upload service's process: AppCore (queue, engine, registrar, scheduler, API clients, office
// desk) and its IPC handlers, out of the Electron main process, which Electron asks never to block,
// and where a native crash (better-sqlite3, the hashing) ends only this process, which the host
// starts again. Started by main/service-host/host.ts through main/service-host/spawn.ts; it talks only in
// main/service/protocol.ts messages. What it needs of Electron (secrets sealed with safeStorage,
// the file dialog, the power-save blocker, notifications, the settings file) it asks the host for,
// never waiting for an answer by blocking.
import { join } from 'node:path';
import type { Channel, Envelope, ShellChannel } from '../../shared/ipc.js';
import { CancelledError, reasonOf, recommendedRetryPolicy } from '../api/errors.js';
import { queueErrorMessage } from './queue-error.js';
import { AppCore } from './app-core.js';
import type { AppCoreOptions } from './app-core.js';
import type { IpcHandlers } from '../ipc/dispatch.js';
import { overnightRetrySchedule } from '../engine/scheduling/retry-schedule.js';
import { findLocalService } from './local-service.js';
import type { LocalServiceStarter } from './local-service.js';
import type {
  EngineTuning,
  HostMessage,
  HostRequest,
  LocalServiceSource,
  ServiceStart,
  WindowEvent,
  WorkerMessage,
} from './protocol.js';
import { SEALING_PREFIX } from './protocol.js';
import { hostChannel } from './host-channel.js';
import type { WindowPort } from './host-channel.js';
import { SupportLog } from '../support/log-file.js';
import { gatherReport } from '../support/support-report.js';

const channel = hostChannel();
const post = (m: WorkerMessage) => channel.post(m);

/** The engine options a tuning stands for. */
function engineOptions(t: EngineTuning | undefined): AppCoreOptions['engine'] {
  if (!t) return undefined;
  const { partRetry, retrySchedule, ...plain } = t;
  return {
    ...plain,
    ...(partRetry && { partRetry: recommendedRetryPolicy(partRetry.baseMs, partRetry.jitterMs, partRetry.retries) }),
    ...(retrySchedule && { retrySchedule: overnightRetrySchedule(retrySchedule.baseMs, retrySchedule.maxMs) }),
  };
}

function localStarter(source: LocalServiceSource): LocalServiceStarter | undefined {
  if (source === 'find') return findLocalService();
  if (source === null) return undefined;
  // Already running elsewhere and outliving this process: closing the app does not stop it.
  return async () => ({ info: source.info, close: async () => {} });
}

let nextRequest = 0;
const requests = new Map<number, (answer: Envelope<unknown>) => void>();
const ask = (q: HostRequest) =>
  new Promise<Envelope<unknown>>((resolve) => {
    const seq = ++nextRequest;
    requests.set(seq, resolve);
    post({ type: 'request', seq, ...q });
  });

/** Secrets sealed so far: stand-ins not yet sealed by the host, and what the host unsealed, → clear text. */
let unsealed = new Map<string, string>();
let nextSeal = 0;

/** The stand-ins (`SEALING_PREFIX…`) in a value about to be stored, with their clear text, for the host to seal. */
function sealsIn(value: unknown, out: Record<string, string> = {}): Record<string, string> {
  if (typeof value === 'string' && value.startsWith(SEALING_PREFIX)) {
    const plain = unsealed.get(value);
    if (plain !== undefined) out[value] = plain;
  } else if (value && typeof value === 'object') {
    for (const v of Object.values(value)) sealsIn(v, out);
  }
  return out;
}

/** Opens the queue with what the host gave at start; answers `started`. */
async function open(start: ServiceStart): Promise<void> {
  // The settings file as it was at start; this process is its only writer, so its copy stays true.
  const store = new Map<string, unknown>(Object.entries(start.store));
  unsealed = new Map(Object.entries(start.unsealed));
  // Every secret held in clear (what the host unsealed, and what was sealed since) is hidden in its lines.
  const support = new SupportLog({
    dir: start.logDir ?? join(start.dataDir, 'logs'),
    source: 'service',
    secrets: () => unsealed.values(),
  });
  reporting = { start, store };
  const core = new AppCore({
    dataDir: start.dataDir,
    store: {
      get: (k) => store.get(k),
      set: (k, v) => {
        store.set(k, v);
        const seal = sealsIn(v);
        post({ type: 'store', key: k, value: v, ...(Object.keys(seal).length > 0 && { seal }) });
      },
    },
    secrets: {
      available: () => start.secretsAvailable,
      encrypt: (plain) => {
        const standIn = `${SEALING_PREFIX}${++nextSeal}`;
        unsealed.set(standIn, plain);
        return standIn;
      },
      decrypt: (sealed) => {
        const plain = unsealed.get(sealed);
        // The host unsealed every sealed value of the settings file at start: one it could not
        // unseal (another keyring) is not readable here either.
        if (plain === undefined)
          throw new Error(
            'A saved password or key could not be read from this computer’s keychain; enter it again in Settings.',
          );
        return plain;
      },
    },
    emit: (event, payload) => toWindow({ event, payload } as WindowEvent),
    pickFiles: async () => {
      const answer = await ask({ op: 'pickFiles' });
      if (!answer.ok) throw new Error(answer.error);
      return answer.value as string[];
    },
    startLocalService: localStarter(start.localService),
    notify: (title, body) => post({ type: 'notify', title, body }),
    // The host holds the power-save blocker; its answer (kept awake or not) comes back as a message.
    busy: async (working) => {
      const answer = await ask({ op: 'busy', working });
      return answer.ok && answer.value === true;
    },
    totals: (totals) => post({ type: 'totals', totals }),
    log: {
      info: (message) => post({ type: 'log', level: 'info', message }),
      warn: (message) => post({ type: 'log', level: 'warn', message }),
    },
    // The support log: the engine's events, one line each (the host writes the log messages it relays).
    engineEvents: (e) => support.event(e),
    engine: engineOptions(start.engine),
    gatherMs: start.gatherMs,
    cards: start.cards,
  });
  let queueError: string | null = null;
  try {
    await core.start();
  } catch (err) {
    queueError = queueErrorMessage(err, join(start.dataDir, 'queue'));
  }
  // While another process holds the queue, the core waits for it and says so (AppCore.queueWait).
  service = {
    core,
    handlers: {
      ...core.handlers(),
      'capture:service.status': async () => ({ queueError: queueError ?? core.queueWait }),
    },
  };
  post({ type: 'started', queueError: queueError ?? core.queueWait });
  started();
}

/** The window's own port, once the host handed one over (utility process only); else events go through the host. */
let windowPort: WindowPort | undefined;

/**
 * Sends one event to the window: on its port when there is one (docs/decisions/0029-service-port.md),
 * with the tray's part of a queue event (its hold and what blocks it) to the host; else through
 * the host's relay. The service's status always goes through the host, which keeps it.
 */
function toWindow(e: WindowEvent): void {
  if (!windowPort || e.event === 'capture:event.service') return post({ type: 'event', ...e } as WorkerMessage);
  windowPort.postMessage(e);
  if (e.event === 'capture:event.rows') post({ type: 'stops', hold: e.payload.hold, blocked: e.payload.blocked });
}

/** Keeps the window's new port (a reloaded window's replaces the last); a port whose window closed is let go. */
function keepWindowPort(port: WindowPort): void {
  windowPort?.close();
  windowPort = port;
  port.on('close', () => {
    if (windowPort === port) windowPort = undefined;
  });
  port.start();
}

let service: { core: AppCore; handlers: Omit<IpcHandlers, ShellChannel> } | undefined;
/** What the support report reads: the start message and the settings as this process keeps them. */
let reporting: { start: ServiceStart; store: Map<string, unknown> } | undefined;

/**
 * Writes the support report (main/support/support-report.ts gatherReport) for the host's Help menu
 * and answers its `result`: the queue read read-only (status --json, log --summary), the support
 * log, the settings without secrets, every secret held in clear hidden. Made in slices with the
 * event loop turning between them, so the heartbeat and the calls are answered meanwhile; the
 * host's `cancel` of its `seq` (its deadline passed) stops it and leaves nothing at `out`.
 */
async function report(seq: number, out: string, versions: Record<string, string | undefined>): Promise<void> {
  const ac = new AbortController();
  const call: { ac: AbortController; cancelledAt?: number } = { ac };
  pending.set(seq, call);
  let reply: Envelope<unknown>;
  try {
    await opened;
    if (!reporting) throw new Error('The upload service has not started; try again in a moment.');
    const { start, store } = reporting;
    reply = {
      ok: true,
      value: await gatherReport(
        {
          out,
          queueDir: join(start.dataDir, 'queue'),
          logDir: start.logDir ?? join(start.dataDir, 'logs'),
          settings: Object.fromEntries(store),
          secrets: unsealed.values(),
          madeBy: 'Capture Uploader desktop app',
          versions,
        },
        { signal: ac.signal },
      ),
    };
  } catch (err) {
    reply = { ok: false, error: err instanceof Error ? err.message : String(err) };
  }
  pending.delete(seq);
  if (call.cancelledAt === undefined) return post({ type: 'result', seq, answer: reply });
  const after = Math.round(performance.now() - call.cancelledAt);
  post({ type: 'log', level: 'info', message: `The report for support stopped ${after} ms after it was cancelled.` });
}
let started!: () => void;
/** Settled once `open` has answered `started`. */
const opened = new Promise<void>((resolve) => (started = resolve));
/** The calls under way: each one's abort controller, aborted by the host's `cancel`, and when it was. */
const pending = new Map<number, { ac: AbortController; cancelledAt?: number }>();

/**
 * Runs one call's handler with its own signal and posts its answer by `seq`. A cancelled call's
 * answer is dropped (the host answered it already), and the log says how it ended: stopped (the
 * handler rejected with the signal's reason) or finished anyway, and how long after the cancel.
 */
async function answer(seq: number, channel: Channel, args: unknown): Promise<void> {
  const ac = new AbortController();
  const call: { ac: AbortController; cancelledAt?: number } = { ac };
  pending.set(seq, call);
  let reply: Envelope<unknown>;
  let stopped = false;
  try {
    // A call that came before the queue opened (the tray's Pause all at start) waits for it.
    await opened;
    if (!service) throw new Error('The upload service has not started; try again in a moment.');
    const handler = (service.handlers as Partial<Record<Channel, unknown>>)[channel] as
      | ((a: unknown, signal: AbortSignal) => Promise<unknown>)
      | undefined;
    // The main process answers its own channels (SHELL_CHANNELS); none of them reaches here.
    if (!handler) throw new Error(`Unknown request ${channel}`);
    reply = { ok: true, value: await handler(args, ac.signal) };
  } catch (err) {
    reply = { ok: false, error: err instanceof Error ? err.message : String(err) };
    // The signal's own reason, a request the signal aborted (got's AbortError), or the gateway's
    // CancelledError for a call its signal stopped (main/api/gateway.ts).
    stopped =
      ac.signal.aborted &&
      (err === ac.signal.reason ||
        err instanceof CancelledError ||
        (err instanceof Error && err.name === 'AbortError'));
  }
  pending.delete(seq);
  if (call.cancelledAt === undefined) return post({ type: 'result', seq, answer: reply });
  // A cancelled call was answered by the host already; its late result is dropped.
  const after = Math.round(performance.now() - call.cancelledAt);
  post({
    type: 'log',
    level: stopped ? 'info' : 'warn',
    message: stopped
      ? `${channel} stopped ${after} ms after it was cancelled.`
      : `${channel} ran to its end ${after} ms after it was cancelled.`,
  });
}

/** The reason a cancelled call's signal carries: what its handler rejects with. */
const CANCELLED = 'Cancelled';

channel.onMessage((m: HostMessage, port) => {
  switch (m.type) {
    case 'ping':
      // Answered here, on the event loop, whatever work is under way: silence means the loop is not turning.
      post({ type: 'pong', seq: m.seq });
      break;
    case 'window-port':
      if (port) keepWindowPort(port);
      break;
    case 'start':
      void open(m.start).catch((err: unknown) => {
        // AppCore could not even be made: the host restarts the process, then shows the failure.
        post({ type: 'log', level: 'warn', message: `The upload service could not start: ${reasonOf(err)}` });
        process.exit(70);
      });
      break;
    case 'call':
      void answer(m.seq, m.channel, m.args);
      break;
    case 'cancel': {
      const call = pending.get(m.seq);
      if (!call) break;
      call.cancelledAt = performance.now();
      call.ac.abort(new Error(CANCELLED));
      break;
    }
    case 'reply':
      requests.get(m.seq)?.(m.answer);
      requests.delete(m.seq);
      break;
    case 'report':
      void report(m.seq, m.out, m.versions);
      break;
    case 'close':
      void opened.then(() => service?.core.close()).finally(() => channel.end({ type: 'closed' }));
      break;
  }
});
