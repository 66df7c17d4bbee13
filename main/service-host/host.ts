// The host side of the upload service: starts main/service/worker.ts in a process of its own
// (main/service-host/spawn.ts: Electron's utilityProcess in the app, child_process.fork under Node),
// relays calls to it and its events out, answers what only the host can (secrets, settings file,
// file dialog, power-save blocker, notifications) by messages, and starts it again when it dies,
// natively or not, or when it stops answering (its heartbeat, docs/decisions/0035-service-heartbeat.md),
// the queue intact on disk. Every call and the support report wait for their answer a bounded time
// (main/service-host/call-deadlines.ts). Electron-free: the shell (main/electron/main.ts), the e2e
// harness and the tests drive it the same way.
import { readFileSync } from 'node:fs';
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
} from '../service/protocol.js';
import type { ServiceOptions } from '../service/service-options.js';
import type { ServiceExit, ServiceProcess, UtilityProcessApi } from './spawn.js';
import { SOURCE_ENTRY, spawnService } from './spawn.js';
import type { HeartbeatOptions } from './heartbeat.js';
import { HEARTBEAT, Heartbeat } from './heartbeat.js';
import { REPORT_DEADLINE_MS, callDeadlineMessage, callDeadlineMs } from './call-deadlines.js';

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
  /** The watch on the service's process (ms; default HEARTBEAT): tests shorten its deadline. */
  heartbeat?: Partial<HeartbeatOptions>;
  /**
   * The tray's part of each queue event (its hold and what blocks it), whether the event was
   * relayed or went to the window on its port (docs/decisions/0029-service-port.md).
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

/**
 * The message shown once for each time the service stopped answering (its heartbeat,
 * docs/decisions/0035-service-heartbeat.md) and is killed and started again; also the answer of every
 * call that was waiting on it.
 */
export const HUNG = 'The upload service stopped answering; restarting it. The queue carries on where it was.';

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
  /** The process given up on for not answering (its exit is not another restart's notice). */
  private hung?: ServiceProcess;
  private started?: Promise<ServiceStatus>;
  /** Whether the queue opened: `queueError` says why not, and what to do. */
  status: ServiceStatus = { queueError: null };

  constructor(private readonly opts: ServiceHostOptions) {}

  /**
   * Starts the service process; resolves with its status once it has opened the queue or failed
   * to. Its process is watched from its spawn on (Heartbeat): a process silent past the deadline
   * is killed and started again like one that died (`restart`), the window told once (HUNG).
   */
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
      let ended = false;
      // The process is gone (`exit`), or given up on (a hung one SIGKILL has not ended yet).
      const end = (last: string, exit?: ServiceExit) => {
        watch.stop();
        if (ended || this.proc !== proc) return;
        ended = true;
        this.proc = undefined;
        const hung = this.hung === proc;
        this.failCalls(
          this.closing
            ? 'The app is closing.'
            : hung
              ? HUNG
              : `The upload service stopped (${last}) before answering; try again.`,
        );
        if (this.closing) return;
        // Its power-save blocker is the host's: released until the new service says it works.
        this.opts.busy?.(false);
        void this.restart(resolve, last, hung, exit);
      };
      const watch = new Heartbeat(this.heartbeat, {
        ping: (seq) => {
          try {
            proc.post({ type: 'ping', seq });
          } catch {
            // A process that has just ended: its exit ends the watch.
          }
        },
        hung: (silentMs) => this.onHung(proc, silentMs, (last) => end(last)),
        slow: (ms) =>
          this.opts.log?.warn(
            `The upload service took ${secs(ms)} s to answer the host's heartbeat (a long step in it); ` +
              `it is taken for hung after ${secs(this.heartbeat.deadlineMs)} s of silence.`,
          ),
      });
      proc.onMessage((m: WorkerMessage) => {
        if (this.proc !== proc) return;
        if (m.type === 'pong') return watch.pong(m.seq);
        watch.heard();
        if (m.type === 'started') {
          this.status = { queueError: m.queueError };
          resolve(this.status);
          this.opts.emit('capture:event.service', this.status);
          this.opts.serviceStarted?.();
        }
        this.onMessage(m);
      });
      proc.onExit((exit) => end(exitText(exit), exit));
    });
    proc.post({ type: 'start', start });
    return this.started;
  }

  /**
   * Calls a channel of shared/ipc.ts in the service with an already-parsed argument; resolves with
   * its envelope (never rejects). Aborting `signal` answers `{ ok: false, error: 'Cancelled' }` at
   * once and aborts the handler's own signal in the service (`cancel`). No answer within
   * `deadlineMs` (default the channel's, main/service-host/call-deadlines.ts) answers
   * `{ ok: false, error }` saying so (callDeadlineMessage) and cancels the handler the same way; a
   * service found hung or dead answers every call waiting with why (HUNG, or how it ended).
   */
  call<C extends Channel>(
    channel: C,
    args: unknown,
    signal?: AbortSignal,
    deadlineMs: number = callDeadlineMs(channel),
  ): Promise<Envelope<ResultOf<C>>> {
    if (!this.proc)
      return Promise.resolve({ ok: false, error: 'The upload service is not running; try again in a moment.' });
    // Found hung and being replaced: nothing posted to it is answered.
    if (this.hung === this.proc) return Promise.resolve({ ok: false, error: HUNG });
    const seq = ++this.seq;
    return new Promise((resolve) => {
      const done = (answer: Envelope<unknown>) => {
        this.calls.delete(seq);
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        resolve(answer as Envelope<ResultOf<C>>);
      };
      const onAbort = () => {
        this.post({ type: 'cancel', seq });
        done({ ok: false, error: 'Cancelled' });
      };
      const timer = setTimeout(() => {
        this.post({ type: 'cancel', seq });
        done({ ok: false, error: callDeadlineMessage(channel, deadlineMs) });
      }, deadlineMs);
      if (signal?.aborted) return done({ ok: false, error: 'Cancelled' });
      signal?.addEventListener('abort', onAbort, { once: true });
      this.calls.set(seq, { resolve: done });
      this.post({ type: 'call', seq, channel, args });
    });
  }

  /**
   * Has the service write the support report (main/support/support-report.ts gatherReport) to `out`:
   * the support log, the queue's status and summary, versions (with `versions` the host adds:
   * Electron's, Chrome's) and the settings without secrets. Resolves with its envelope (never
   * rejects): `{ ok: true, value: { out, entries } }`, or why it could not be written; within
   * `deadlineMs` (default REPORT_DEADLINE_MS), else the service is told to stop it and the answer
   * says so (nothing is left at `out`).
   */
  report(
    out: string,
    versions: Record<string, string | undefined> = {},
    deadlineMs = REPORT_DEADLINE_MS,
  ): Promise<Envelope<ReportResult>> {
    if (!this.proc)
      return Promise.resolve({ ok: false, error: 'The upload service is not running; try again in a moment.' });
    if (this.hung === this.proc) return Promise.resolve({ ok: false, error: HUNG });
    const seq = ++this.seq;
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.post({ type: 'cancel', seq });
        done({
          ok: false,
          error: `The report was not written within ${secs(deadlineMs)} s, and its gathering was stopped; nothing was written to ${out}. Try again in a moment.`,
        });
      }, deadlineMs);
      const done = (answer: Envelope<unknown>) => {
        this.calls.delete(seq);
        clearTimeout(timer);
        resolve(answer as Envelope<ReportResult>);
      };
      this.calls.set(seq, { resolve: done });
      this.post({ type: 'report', seq, out, versions });
    });
  }

  /**
   * One forwarding handler per channel, for the IPC dispatch (main/ipc/dispatch.ts): errors come back
   * as thrown Errors. Not the channels the main process answers itself (SHELL_CHANNELS): the IPC dispatch's
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

  /**
   * Stops uploads and closes the queue in the service, then lets its process end: at most
   * `timeoutMs` (default 15 s) before it is killed with SIGKILL, and the heartbeat's `killMs`
   * after that before the host stops waiting (a process in a read the system cannot interrupt
   * ends when the read does; the app does not wait for it).
   */
  async close(timeoutMs = 15_000): Promise<void> {
    this.closing = true;
    const proc = this.proc;
    if (!proc) return;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const exited = new Promise<void>((resolve) => {
      proc.onExit(() => resolve());
      timer = setTimeout(() => {
        proc.kill('SIGKILL');
        timer = setTimeout(() => {
          this.opts.log?.warn(
            `The upload service (process ${proc.pid}) did not end after SIGKILL within ${secs(this.heartbeat.killMs)} s; the app closes without it.`,
          );
          resolve();
        }, this.heartbeat.killMs);
      }, timeoutMs);
    });
    this.post({ type: 'close' });
    await exited;
    clearTimeout(timer);
  }

  /**
   * Hands `port` (one end of Electron's MessageChannelMain; the window holds the other) to the
   * running service, which then posts the window's events on it, off the main process
   * (docs/decisions/0029-service-port.md). Answers false when it cannot: no service running, or one
   * started with fork (plain Node), where the host keeps relaying the events. Calls stay with the
   * IPC dispatch in the main process either way.
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

  /** The heartbeat's settings: the shell's (or a test's) over the app's choice. */
  private get heartbeat(): HeartbeatOptions {
    return { ...HEARTBEAT, ...this.opts.heartbeat };
  }

  /**
   * A process silent past its deadline: the window is told once (HUNG), the calls waiting are
   * answered with it, its power-save blocker released, and it is killed with SIGKILL (which a
   * stopped process takes too). `end` is called when it has not ended `killMs` later (a read the
   * system cannot interrupt takes the signal only when the read returns): a new process is started
   * all the same, and waits for the queue's lock ("in use by process N") until the old one is gone.
   */
  private onHung(proc: ServiceProcess, silentMs: number, end: (last: string) => void): void {
    if (this.proc !== proc || this.closing) return;
    this.hung = proc;
    const state = processState(proc.pid);
    this.opts.log?.warn(
      `The upload service did not answer for ${secs(silentMs)} s (process ${proc.pid}${state ? `, ${state}` : ''}); killing it and starting it again.`,
    );
    this.opts.emit('capture:event.notice', { level: 'error', message: HUNG });
    this.failCalls(HUNG);
    this.opts.busy?.(false);
    proc.kill('SIGKILL');
    setTimeout(() => {
      if (this.proc !== proc) return;
      this.opts.log?.warn(
        `The upload service (process ${proc.pid}) has not ended ${secs(this.heartbeat.killMs)} s after SIGKILL; a new one is started and waits for the queue until it has.`,
      );
      end(`did not answer for ${secs(silentMs)} s`);
    }, this.heartbeat.killMs).unref?.();
  }

  private async restart(
    resolveFirst: (s: ServiceStatus) => void,
    last: string,
    hung: boolean,
    exit?: ServiceExit,
  ): Promise<void> {
    const now = Date.now();
    this.crashes = [...this.crashes.filter((t) => now - t < 60_000), now];
    const why = hung ? `did not answer, then ${exit ? exitText(exit) : 'was left behind'}` : last;
    if (this.crashes.length > (this.opts.maxRestarts ?? 5)) {
      this.status = {
        queueError: `The upload service stopped ${this.crashes.length} times within a minute (last: ${why}) and was not started again. Quit Capture Uploader and start it again; if it happens again, move the queue folder ${join(this.opts.dataDir, 'queue')} aside.`,
      };
      resolveFirst(this.status);
      this.opts.emit('capture:event.service', this.status);
      return;
    }
    this.opts.log?.warn(`The upload service stopped (${why}); starting it again.`);
    // A hung service's window was told already (HUNG), once.
    if (!hung) this.opts.emit('capture:event.notice', { level: 'error', message: RESTARTED });
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
      case 'pong':
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

/** `ms` in seconds for a sentence: whole seconds from 1 s, one decimal below (a test's short deadline is not "0 s"). */
function secs(ms: number): string {
  return ms >= 950 ? String(Math.round(ms / 1000)) : (ms / 1000).toFixed(1);
}

/**
 * What the system says a process is doing, for the log of a hang (Linux's /proc; elsewhere, and
 * when it cannot be read, undefined): stopped by a signal, in a wait it cannot interrupt (a pulled
 * card, a dead network share), or running without answering (a loop that never yields).
 */
function processState(pid: number | undefined): string | undefined {
  if (pid === undefined || process.platform !== 'linux') return undefined;
  try {
    // The state follows the command's closing parenthesis (the command may hold spaces).
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
    const words: Record<string, string> = {
      T: 'stopped by a signal',
      t: 'stopped by a debugger',
      D: 'in a wait the system cannot interrupt (a card or network share that does not answer?)',
      R: 'running without answering (a loop that never yields?)',
      S: 'asleep without answering',
      Z: 'ended',
    };
    return words[state] ?? `state ${state}`;
  } catch {
    return undefined;
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
