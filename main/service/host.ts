// The host side of the upload service: starts main/service/worker.ts in a process of its own
// (main/service/spawn.ts: Electron's utilityProcess in the app, child_process.fork under Node),
// relays calls to it and its events out, answers what only the host can (secrets, settings file,
// file dialog, power-save blocker, notifications) by messages, and starts it again when it dies,
// natively or not, the queue intact on disk. Electron-free: the shell (main/electron/main.ts), the
// e2e harness and the tests drive it the same way.
import { join } from 'node:path';
import type { Channel, Envelope, ResultOf, ServiceStatus, ShellChannel } from '../../shared/ipc.js';
import { SHELL_CHANNELS, channels } from '../../shared/ipc.js';
import type { IpcHandlers } from '../ipc/dispatch.js';
import type { KeyValueStore } from '../settings/settings.js';
import type { ReportResult } from '../support/support-report.js';
import type {
  EngineTuning,
  HostMessage,
  HostRequest,
  LocalServiceSource,
  QueueStops,
  ServiceStart,
  WorkerMessage,
} from './protocol.js';
import type { ServiceOptions } from './service-options.js';
import type { ServiceExit, ServiceProcess, UtilityProcessApi } from './spawn.js';
import { SOURCE_ENTRY, spawnService } from './spawn.js';

/** The settings file as the host keeps it: read and written by key, and read whole at the service's start. */
export interface SettingsFile extends KeyValueStore {
  /** Every key with its JSON value (electron-store's `store`). */
  snapshot(): Record<string, unknown>;
}

/**
 * What the host needs from the shell (or a test): the service's duties (ServiceOptions) as
 * host-side functions and the data the service starts with, and how to start its process.
 */
export interface ServiceHostOptions extends ServiceOptions {
  /** The settings file (electron-store in the app); values are JSON. */
  store: SettingsFile;
  /** True while the queue has work (hold a power-save blocker); answers whether the computer is kept awake. */
  busy?(working: boolean): boolean | void;
  localService: LocalServiceSource;
  engine?: EngineTuning;
  /**
   * The service module's path: the bundle's `service-worker.js` in the app. Absent:
   * main/service/worker.ts from source with tsx's loader (tests, `tsx`).
   */
  entry?: string;
  /** Electron's utilityProcess (the app); absent, the service is started with child_process.fork (spawn.ts). */
  utility?: UtilityProcessApi;
  /** Restarts allowed within a minute before the host gives up and shows the failure (default 5). */
  maxRestarts?: number;
  /**
   * The tray's part of each queue event (its hold and what blocks it), whether the event was
   * relayed or went to the window on its port (docs/decisions/service-port.md).
   */
  stops?(stops: QueueStops): void;
  /**
   * Called each time a service process has opened its queue (the first start and every restart):
   * the moment to hand it the window's port again ({@link ServiceHost.connectWindow}), the last
   * one having died with the process.
   */
  serviceStarted?(): void;
}

/** The message shown once for each time the service process died and was started again. */
export const RESTARTED =
  'The upload service stopped unexpectedly and was restarted; the queue carries on where it was.';

interface PendingCall {
  resolve(answer: Envelope<unknown>): void;
}

/**
 * The upload service seen from the Electron main process. `start()` resolves once the service has
 * opened (or failed to open) the queue; it never rejects for a queue problem, which is `status`.
 */
export class ServiceHost {
  private proc?: ServiceProcess;
  private seq = 0;
  private readonly calls = new Map<number, PendingCall>();
  private closing = false;
  private crashes: number[] = [];
  private started?: Promise<ServiceStatus>;
  /** Whether the queue opened: `queueError` says why not, and what to do. */
  status: ServiceStatus = { queueError: null };

  constructor(private readonly opts: ServiceHostOptions) {}

  /** Starts the service process; resolves with its status once it has opened the queue or failed to. */
  start(): Promise<ServiceStatus> {
    const snapshot = this.opts.store.snapshot();
    const start: ServiceStart = {
      dataDir: this.opts.dataDir,
      logDir: this.opts.logDir,
      secretsAvailable: this.opts.secrets.available(),
      store: snapshot,
      unsealed: this.unsealStored(snapshot),
      localService: this.opts.localService,
      engine: this.opts.engine,
      gatherMs: this.opts.gatherMs,
      cards: this.opts.cards,
    };
    const proc = spawnService(this.opts.entry ?? SOURCE_ENTRY, this.opts.utility);
    this.proc = proc;
    this.started = new Promise<ServiceStatus>((resolve) => {
      proc.onMessage((m: WorkerMessage) => {
        if (this.proc !== proc) return;
        if (m.type === 'started') {
          this.status = { queueError: m.queueError };
          resolve(this.status);
          this.opts.emit('capture:event.service', this.status);
          this.opts.serviceStarted?.();
        }
        this.onMessage(m);
      });
      proc.onExit((exit) => {
        if (this.proc !== proc) return;
        this.proc = undefined;
        this.failCalls(
          this.closing
            ? 'The app is closing.'
            : `The upload service stopped (${exitText(exit)}) before answering; try again.`,
        );
        if (this.closing) return;
        // Its power-save blocker is the host's: released until the new service says it works.
        this.opts.busy?.(false);
        void this.restart(resolve, exit);
      });
    });
    proc.post({ type: 'start', start });
    return this.started;
  }

  /**
   * Calls a channel of shared/ipc.ts in the service with an already-parsed argument; resolves with
   * its envelope (never rejects). Aborting `signal` answers `{ ok: false, error: 'Cancelled' }` at
   * once and aborts the handler's own signal in the service (`cancel`).
   */
  call<C extends Channel>(channel: C, args: unknown, signal?: AbortSignal): Promise<Envelope<ResultOf<C>>> {
    if (!this.proc)
      return Promise.resolve({ ok: false, error: 'The upload service is not running; try again in a moment.' });
    const seq = ++this.seq;
    return new Promise((resolve) => {
      const done = (answer: Envelope<unknown>) => {
        this.calls.delete(seq);
        signal?.removeEventListener('abort', onAbort);
        resolve(answer as Envelope<ResultOf<C>>);
      };
      const onAbort = () => {
        this.post({ type: 'cancel', seq });
        done({ ok: false, error: 'Cancelled' });
      };
      if (signal?.aborted) return done({ ok: false, error: 'Cancelled' });
      signal?.addEventListener('abort', onAbort, { once: true });
      this.calls.set(seq, { resolve: done });
      this.post({ type: 'call', seq, channel, args });
    });
  }

  /**
   * Has the service write the support report (main/support/support-report.ts writeReport) to `out`:
   * the support log, the queue's status and summary, versions (with `versions` the host adds:
   * Electron's, Chrome's) and the settings without secrets. Resolves with its envelope (never
   * rejects): `{ ok: true, value: { out, entries } }`, or why it could not be written.
   */
  report(out: string, versions: Record<string, string | undefined> = {}): Promise<Envelope<ReportResult>> {
    if (!this.proc)
      return Promise.resolve({ ok: false, error: 'The upload service is not running; try again in a moment.' });
    const seq = ++this.seq;
    return new Promise((resolve) => {
      this.calls.set(seq, {
        resolve: (answer) => {
          this.calls.delete(seq);
          resolve(answer as Envelope<ReportResult>);
        },
      });
      this.post({ type: 'report', seq, out, versions });
    });
  }

  /**
   * One forwarding handler per channel, for the IPC door (main/ipc/dispatch.ts): errors come back
   * as thrown Errors. Not the channels the main process answers itself (SHELL_CHANNELS): the door's
   * owner adds those.
   */
  handlers(): Omit<IpcHandlers, ShellChannel> {
    const out: Record<string, (args: unknown, signal?: AbortSignal) => Promise<unknown>> = {};
    for (const channel of Object.keys(channels) as Channel[]) {
      if ((SHELL_CHANNELS as readonly Channel[]).includes(channel)) continue;
      // The host knows the status even when the service is gone for good.
      if (channel === 'capture:service.status') {
        out[channel] = async () => this.status;
        continue;
      }
      out[channel] = async (args, signal) => {
        const answer = await this.call(channel, args, signal);
        if (!answer.ok) throw new Error(answer.error);
        return answer.value;
      };
    }
    return out as Omit<IpcHandlers, ShellChannel>;
  }

  /** Stops uploads and closes the queue in the service, then lets its process end (at most `timeoutMs`, default 15 s, before it is killed). */
  async close(timeoutMs = 15_000): Promise<void> {
    this.closing = true;
    const proc = this.proc;
    if (!proc) return;
    const exited = new Promise<void>((resolve) => proc.onExit(() => resolve()));
    this.post({ type: 'close' });
    const timer = setTimeout(() => proc.kill('SIGKILL'), timeoutMs);
    await exited;
    clearTimeout(timer);
  }

  /**
   * Hands `port` (one end of Electron's MessageChannelMain; the window holds the other) to the
   * running service, which then posts the window's events on it, off the main process
   * (docs/decisions/service-port.md). Answers false when it cannot: no service running, or one
   * started with fork (plain Node), where the host keeps relaying the events. Calls stay with the
   * door in the main process either way.
   */
  connectWindow(port: unknown): boolean {
    return this.proc?.givePort(port) ?? false;
  }

  /** The running service process, for tests that kill it. */
  get child(): ServiceProcess | undefined {
    return this.proc;
  }

  private post(m: HostMessage): void {
    this.proc?.post(m);
  }

  private failCalls(error: string): void {
    for (const c of [...this.calls.values()]) c.resolve({ ok: false, error });
  }

  private async restart(resolveFirst: (s: ServiceStatus) => void, exit: ServiceExit): Promise<void> {
    const now = Date.now();
    this.crashes = [...this.crashes.filter((t) => now - t < 60_000), now];
    if (this.crashes.length > (this.opts.maxRestarts ?? 5)) {
      this.status = {
        queueError: `The upload service stopped ${this.crashes.length} times within a minute (last: ${exitText(exit)}) and was not started again. Quit Capture Uploader and start it again; if it happens again, move the queue folder ${join(this.opts.dataDir, 'queue')} aside.`,
      };
      resolveFirst(this.status);
      this.opts.emit('capture:event.service', this.status);
      return;
    }
    this.opts.log?.warn(`The upload service stopped (${exitText(exit)}); starting it again.`);
    this.opts.emit('capture:event.notice', { level: 'error', message: RESTARTED });
    resolveFirst(await this.start());
    // The window reads the queue again: rows may have moved while the service was down.
    this.opts.emit('capture:event.queue', { reason: 'restarted' });
  }

  private onMessage(m: WorkerMessage): void {
    switch (m.type) {
      case 'result':
        this.calls.get(m.seq)?.resolve(m.answer);
        break;
      case 'event':
        // The worker's later word on its queue (waiting for another process, then open) is the status the window asks for.
        if (m.event === 'capture:event.service') this.status = m.payload as ServiceStatus;
        if (m.event === 'capture:event.rows') this.opts.stops?.({ hold: m.payload.hold, blocked: m.payload.blocked });
        this.opts.emit(m.event, m.payload as never);
        break;
      case 'stops':
        this.opts.stops?.({ hold: m.hold, blocked: m.blocked });
        break;
      case 'notify':
        this.opts.notify?.(m.title, m.body);
        break;
      case 'totals':
        this.opts.totals?.(m.totals);
        break;
      case 'store':
        this.keep(m.key, m.value, m.seal);
        break;
      case 'log':
        this.opts.log?.[m.level](m.message);
        break;
      case 'request': {
        // Answered to the process that asked: a dialog still open when it died is not answered to the next one.
        const asker = this.proc;
        void this.answerRequest(m).then((answer) => {
          if (this.proc === asker) asker?.post({ type: 'reply', seq: m.seq, answer });
        });
        break;
      }
      case 'started':
      case 'closed':
        break;
    }
  }

  private async answerRequest(q: HostRequest): Promise<Envelope<unknown>> {
    try {
      switch (q.op) {
        case 'pickFiles':
          return { ok: true, value: await this.opts.pickFiles() };
        case 'busy':
          return { ok: true, value: this.opts.busy?.(q.working) === true };
      }
    } catch (err) {
      return { ok: false, error: err instanceof Error ? err.message : String(err) };
    }
  }

  /**
   * Writes the service's settings write to the settings file, sealing with safeStorage each
   * secret the service marked (`seal`, protocol.ts SEALING_PREFIX) in its place. A secret that
   * cannot be sealed is not written (never in clear): the key keeps its stored value, and the window is told.
   */
  private keep(key: string, value: unknown, seal: Record<string, string> | undefined): void {
    if (!seal) return this.opts.store.set(key, value);
    try {
      const sealed = new Map(
        Object.entries(seal).map(([standIn, plain]) => [standIn, this.opts.secrets.encrypt(plain)]),
      );
      this.opts.store.set(key, replaceStrings(value, sealed));
    } catch (err) {
      const message = `A password or key could not be saved in this computer’s keychain: ${err instanceof Error ? err.message : String(err)}`;
      this.opts.log?.warn(message);
      this.opts.emit('capture:event.notice', { level: 'error', message });
    }
  }

  /**
   * Every sealed secret of the settings file unsealed here (each string under a key beginning
   * with `sealed`: the account password and API key, the progress tokens), so the service never
   * needs the keychain to read them.
   */
  private unsealStored(snapshot: Record<string, unknown>): Record<string, string> {
    const out: Record<string, string> = {};
    if (!this.opts.secrets.available()) return out;
    const visit = (v: unknown) => {
      if (!v || typeof v !== 'object') return;
      for (const [k, x] of Object.entries(v)) {
        if (k.startsWith('sealed') && typeof x === 'string' && x !== '') {
          try {
            out[x] = this.opts.secrets.decrypt(x);
          } catch {
            // Not unsealable (another keyring): the service says so when it needs it.
          }
        } else visit(x);
      }
    };
    visit(snapshot);
    return out;
  }
}

/** How a process ended, in words: `exit code 3`, `killed by SIGKILL`. */
function exitText(exit: ServiceExit): string {
  return exit.signal ? `killed by ${exit.signal}` : `exit code ${exit.code}`;
}

/** `value` with every string that is a key of `map` replaced by its value (JSON data; a fresh copy). */
function replaceStrings(value: unknown, map: Map<string, string>): unknown {
  if (typeof value === 'string') return map.get(value) ?? value;
  if (Array.isArray(value)) return value.map((v) => replaceStrings(v, map));
  if (value && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, replaceStrings(v, map)]));
  return value;
}
