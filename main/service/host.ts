// The host side of the upload service (issue 21 #1): starts main/service/worker.ts in a
// worker_threads Worker, relays calls to it and its events out, answers what only the host can
// (secrets, settings file, file dialog, power-save blocker, notifications), and restarts it when
// it dies, the queue intact on disk. Electron-free: the shell (main/electron/main.ts), the e2e
// harness and the tests drive it the same way.
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import type { Channel, Envelope, EventName, EventPayload, QueueTotals, ResultOf, ServiceStatus } from '../../shared/ipc.js';
import { channels } from '../../shared/ipc.js';
import type { Logger } from '../engine/engine.js';
import type { IpcHandlers } from '../ipc/dispatch.js';
import type { KeyValueStore, SecretBox, StoredSettings } from '../settings/settings.js';
import type { EngineTuning, HostMessage, LocalServiceSource, ServiceStart, SyncOp, WorkerMessage } from './protocol.js';
import { SYNC_BYTES, writeSyncAnswer } from './protocol.js';
import type { CardWatchOptions } from './card-desk.js';

/** What the host needs from the shell (or a test): the same duties AppCoreOptions lists, as data or host-side functions. */
export interface ServiceHostOptions {
  /** The app's user-data folder: the queue lives in `<dataDir>/queue`. */
  dataDir: string;
  /** The settings file (electron-store in the app); values are JSON. */
  store: KeyValueStore;
  /** safeStorage in the app: the worker never sees it, only the secrets it unseals. */
  secrets: SecretBox;
  /** Sends an event to the window. */
  emit<E extends EventName>(event: E, payload: EventPayload<E>): void;
  /** The file dialog; resolves with the chosen paths (empty when cancelled). */
  pickFiles(): Promise<string[]>;
  localService: LocalServiceSource;
  notify?(title: string, body: string): void;
  /** True while the queue has work (hold a power-save blocker); answers whether the computer is kept awake. */
  busy?(working: boolean): boolean | void;
  totals?(totals: QueueTotals): void;
  log?: Logger;
  engine?: EngineTuning;
  gatherMs?: number;
  /** Where the service looks for cards and how often (main/service/card-desk.ts); default the system's mount folders. */
  cards?: CardWatchOptions;
  /**
   * The worker module: the bundle's `service-worker.js` in the app. Absent: main/service/worker.ts
   * from source through the tsx bootstrap (tests, `tsx`).
   */
  entry?: URL;
  /** Restarts allowed within a minute before the host gives up and shows the failure (default 5). */
  maxRestarts?: number;
}

/** The message shown when the service thread died and was restarted. */
export const RESTARTED = 'The upload service stopped unexpectedly and was restarted; the queue carries on where it was.';

interface PendingCall {
  resolve(answer: Envelope<unknown>): void;
}

/**
 * The upload service seen from the Electron main process. `start()` resolves once the worker has
 * opened (or failed to open) the queue; it never rejects for a queue problem, which is `status`.
 */
export class ServiceHost {
  private worker?: Worker;
  private readonly sync = new SharedArrayBuffer(SYNC_BYTES);
  private seq = 0;
  private readonly calls = new Map<number, PendingCall>();
  private closing = false;
  private crashes: number[] = [];
  private started?: Promise<ServiceStatus>;
  /** Whether the queue opened: `queueError` says why not, and what to do. */
  status: ServiceStatus = { queueError: null };

  constructor(private readonly opts: ServiceHostOptions) {}

  /** Starts the worker; resolves with its status once it has opened the queue or failed to. */
  start(): Promise<ServiceStatus> {
    const entry = this.opts.entry ?? new URL('./tsx-boot.mjs', import.meta.url);
    const start: ServiceStart = {
      dataDir: this.opts.dataDir,
      secretsAvailable: this.opts.secrets.available(),
      unsealed: this.unsealStored(),
      localService: this.opts.localService,
      engine: this.opts.engine,
      gatherMs: this.opts.gatherMs,
      cards: this.opts.cards,
      sync: this.sync,
      entry: this.opts.entry ? undefined : new URL('./worker.ts', import.meta.url).href,
    };
    const worker = new Worker(entry, { workerData: start });
    this.worker = worker;
    this.started = new Promise<ServiceStatus>((resolve) => {
      worker.on('message', (m: WorkerMessage) => {
        if (m.type === 'started') {
          this.status = { queueError: m.queueError };
          resolve(this.status);
          this.opts.emit('capture:event.service', this.status);
        }
        this.onMessage(m);
      });
      worker.on('error', (err) => this.opts.log?.warn(`The upload service failed: ${err.message}`));
      worker.on('exit', (code) => {
        if (this.worker !== worker) return;
        this.worker = undefined;
        this.failCalls(this.closing ? 'The app is closing.' : `The upload service stopped (exit ${code}) before answering; try again.`);
        if (this.closing) return;
        // Its power-save blocker is the host's: released until the new worker says it works.
        this.opts.busy?.(false);
        void this.restart(resolve, code);
      });
    });
    return this.started;
  }

  /**
   * Calls a channel of shared/ipc.ts in the worker with an already-parsed argument; resolves with
   * its envelope (never rejects). Aborting `signal` answers `{ ok: false, error: 'Cancelled' }` at once.
   */
  call<C extends Channel>(channel: C, args: unknown, signal?: AbortSignal): Promise<Envelope<ResultOf<C>>> {
    const worker = this.worker;
    if (!worker) return Promise.resolve({ ok: false, error: 'The upload service is not running; try again in a moment.' });
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

  /** One forwarding handler per channel, for the IPC door (main/ipc/dispatch.ts): errors come back as thrown Errors. */
  handlers(): IpcHandlers {
    const out: Record<string, (args: unknown) => Promise<unknown>> = {};
    for (const channel of Object.keys(channels) as Channel[]) {
      // The host knows the status even when the worker is gone for good.
      if (channel === 'capture:service.status') {
        out[channel] = async () => this.status;
        continue;
      }
      out[channel] = async (args) => {
        const answer = await this.call(channel, args);
        if (!answer.ok) throw new Error(answer.error);
        return answer.value;
      };
    }
    return out as IpcHandlers;
  }

  /** Stops uploads and closes the queue in the worker, then ends the thread (at most `timeoutMs`, default 15 s, before it is terminated). */
  async close(timeoutMs = 15_000): Promise<void> {
    this.closing = true;
    const worker = this.worker;
    if (!worker) return;
    const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
    this.post({ type: 'close' });
    const timer = setTimeout(() => void worker.terminate(), timeoutMs);
    await exited;
    clearTimeout(timer);
  }

  /** The running worker, for tests that kill it. */
  get thread(): Worker | undefined {
    return this.worker;
  }

  private post(m: HostMessage): void {
    this.worker?.postMessage(m);
  }

  private failCalls(error: string): void {
    for (const c of [...this.calls.values()]) c.resolve({ ok: false, error });
  }

  private async restart(resolveFirst: (s: ServiceStatus) => void, code: number): Promise<void> {
    const now = Date.now();
    this.crashes = [...this.crashes.filter((t) => now - t < 60_000), now];
    if (this.crashes.length > (this.opts.maxRestarts ?? 5)) {
      this.status = { queueError: `The upload service stopped ${this.crashes.length} times within a minute (last exit code ${code}) and was not started again. Quit Capture Uploader and start it again; if it happens again, move the queue folder ${join(this.opts.dataDir, 'queue')} aside.` };
      resolveFirst(this.status);
      this.opts.emit('capture:event.service', this.status);
      return;
    }
    this.opts.log?.warn(`The upload service stopped (exit ${code}); starting it again.`);
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
        this.opts.emit(m.event, m.payload as never);
        break;
      case 'notify':
        this.opts.notify?.(m.title, m.body);
        break;
      case 'totals':
        this.opts.totals?.(m.totals);
        break;
      case 'store':
        this.opts.store.set(m.key, m.value);
        break;
      case 'log':
        this.opts.log?.[m.level](m.message);
        break;
      case 'request':
        this.opts.pickFiles().then(
          (paths) => this.post({ type: 'reply', seq: m.seq, answer: { ok: true, value: paths } }),
          (err: unknown) => this.post({ type: 'reply', seq: m.seq, answer: { ok: false, error: err instanceof Error ? err.message : String(err) } }),
        );
        break;
      case 'sync':
        writeSyncAnswer(this.sync, this.answerSync(m));
        break;
      case 'started':
      case 'closed':
        break;
    }
  }

  private answerSync(q: SyncOp): Envelope<unknown> {
    try {
      switch (q.op) {
        case 'seal':
          return { ok: true, value: this.opts.secrets.encrypt(q.plain) };
        case 'unseal':
          return { ok: true, value: this.opts.secrets.decrypt(q.sealed) };
        case 'storeGet':
          return { ok: true, value: this.opts.store.get(q.key) };
        case 'busy':
          return { ok: true, value: this.opts.busy?.(q.working) === true };
      }
    } catch (err) {
      return { ok: false, error: err instanceof Error ? err.message : String(err) };
    }
  }

  /** The stored secrets unsealed here, so the worker need not ask at its first sign-in. */
  private unsealStored(): Record<string, string> {
    const out: Record<string, string> = {};
    const s = this.opts.store.get('settings') as StoredSettings | undefined;
    if (!this.opts.secrets.available()) return out;
    for (const sealed of [s?.sealedPassword, s?.sealedApiKey]) {
      if (!sealed) continue;
      try {
        out[sealed] = this.opts.secrets.decrypt(sealed);
      } catch {
        // Not unsealable (another keyring): the worker asks again and shows the error then.
      }
    }
    return out;
  }
}
