import { join } from 'node:path';
import type { NamedStructure, QueueTotals, QueueView, SettingsView, ShellChannel } from '../../shared/ipc.js';
import { reasonOf } from '../api/errors.js';
import type { GatewayConfig } from '../api/gateway.js';
import { ProgressRecordsClient } from '../api/progress-records.js';
import type { EngineEvent } from '../engine/engine.js';
import type { IpcHandlers } from '../ipc/dispatch.js';
import { Announcer } from './announcer.js';
import { LiveQueue } from './live-queue.js';
import type { LocalServiceHandle } from './local-service.js';
import type { RecordsConnection } from '../office/office.js';
import { OfficeSync } from '../office/office-sync.js';
import { ScopedTokenKeepers } from '../office/progress-tokens.js';
import { SettingsRepository } from '../settings/settings.js';
import { UploadLimits } from '../engine/scheduling/upload-limits.js';
import type { Uploader } from './uploader.js';
import { openUploader } from './uploader.js';
import { QueueInUseError } from '../queue/lock.js';
import { QUEUE_RETRY_MS, queueErrorMessage, queueInUseMessage } from './queue-error.js';
import type { SettingsContext } from './handlers/handler-context.js';
import { designsHandlers } from './handlers/designs.js';
import { officeHandlers } from './handlers/office.js';
import { queueHandlers } from './handlers/queue.js';
import { NO_LOCAL_SERVICE, settingsHandlers } from './handlers/settings.js';
import { uploadHandlers } from './handlers/upload.js';
import { cardHandlers } from './handlers/cards.js';
import { CardImports } from './card-imports.js';
import { CapturePlanner } from './capture-planner.js';
import { planHandlers } from './handlers/plan.js';
import { ThumbnailMaker } from './thumbnail-maker.js';
import { thumbnailHandlers } from './handlers/thumbnails.js';
import type { AppCoreOptions } from './app-core-options.js';

export type { AppCoreOptions } from './app-core-options.js';

/**
 * The desktop app's core, under plain Node: settings, the uploader (queue + engine) and the
 * IPC handlers the Electron shell registers, and the test harness registers the same way.
 * Uploads run continuously: whenever work is queued the engine drains it, and keeps draining
 * through outages on the queue's durable retry schedule (the engine's `drain({ wait: true })`),
 * so a queue left overnight empties by itself and carries on after a restart.
 */
export class AppCore {
  readonly settings: SettingsRepository;
  private uploader?: Uploader;
  private local?: LocalServiceHandle;
  private localStructures: NamedStructure[] = [];
  private localProjectName = '';
  private live?: LiveQueue;
  private readonly announcer: Announcer;
  /** Whether the shell keeps the computer awake for the uploads (its power-save blocker is held). */
  private keptAwake = false;
  private running?: Promise<void>;
  private again = false;
  private closed = false;
  /** The message while another process holds the queue (queueWait), and the timer of the next try. */
  private waiting: string | null = null;
  private waitTimer: ReturnType<typeof setTimeout> | undefined;
  private offEngine?: () => void;
  private readonly limits: UploadLimits;
  private readonly officeSync: OfficeSync;
  /** Cards mounted, their imports and the library. */
  readonly cards: CardImports;
  /** The recordings' first-frame thumbnails, cached in the library folder. */
  private readonly thumbnails: ThumbnailMaker;
  /** The capture plan: the Plan panel's reads and saves, and the cards it places with no click. */
  readonly plans: CapturePlanner;

  constructor(private readonly opts: AppCoreOptions) {
    this.settings = new SettingsRepository(opts.store, opts.secrets);
    this.limits = new UploadLimits(this.settings, () => this.startDrain());
    this.officeSync = new OfficeSync(
      opts.dataDir,
      () => this.records(),
      () => this.settings.view().structures.map((st) => ({ id: st.id, name: st.name })),
      () => this.settings.view().projectName,
    );
    this.announcer = new Announcer((title, body) => this.opts.notify?.(title, body), opts.gatherMs);
    this.cards = new CardImports({
      ...opts.cards,
      store: opts.store,
      emit: opts.emit,
      queueDb: () => this.uploader?.queue.db,
      log: opts.log,
      pruneThumbnails: (now) => this.thumbnails.prune(now),
      // Files held for their copies moved or released: their rows change and they may start now.
      released: (captureRows) => {
        this.live?.touched(captureRows);
        this.uploader?.engine.wake();
        this.startDrain();
      },
      // A card inserted that matches the capture plan may go to the queue with no click.
      onCardsChanged: (cards) => void this.plans.onCards(cards),
    });
    this.plans = new CapturePlanner({
      queueDb: () => this.uploader?.queue.db,
      queue: () => this.uploader?.queue,
      emit: opts.emit,
      log: opts.log,
      structures: () => this.view().structures,
      // The very handlers the window calls: what the plan registers is what a person would have.
      inspect: (paths) => this.handlers()['capture:files.inspect'](paths),
      register: (forms) => this.handlers()['capture:captures.register'](forms),
      startImport: (root, by) => void this.cards.startImport(root, by),
      uploadFromCard: () => this.cards.library.get().uploadFromCard,
    });
    this.thumbnails = new ThumbnailMaker(
      () => this.cards.library.get().library,
      () => this.uploader?.queue.db,
      opts.log,
    );
  }

  /** Opens the queue with the stored settings (if any) and carries on with what it holds. */
  async start(): Promise<void> {
    await this.openStored();
    // Entries recorded offline go out when the service is back, whether or not the Progress
    // screen is open (the outbox's rule: looked up on their date before any resend).
    this.officeSync.start();
    this.cards.start();
  }

  /**
   * Why the queue is not open while another process holds it ("… is in use by process N;
   * waiting …"), or null: the app tries again every few seconds (openStored). For the service's
   * status (shared/ipc.ts `serviceStatus`).
   */
  get queueWait(): string | null {
    return this.waiting;
  }

  /**
   * Opens the queue with the stored settings, if there are any and it is not open; a queue another
   * process holds is waited for (openOrWait). Any other error is thrown (at start) or becomes the
   * service's status (on a later try).
   */
  private async openStored(): Promise<void> {
    if (this.closed || this.uploader) return;
    const s = this.settings.stored();
    await this.openOrWait(async () => {
      if (s?.mode === 'local') {
        // Settings from a checkout that had the local service, in an app that has none: first run again.
        if (this.opts.startLocalService) await this.openLocal();
      } else if (this.settings.view().configured) this.openWith(this.gatewayConfig());
    });
  }

  /**
   * Runs `open` (it opens the queue). A queue another process holds (QueueInUseError: a
   * `capture-uploader drain`, an `import`, another app) is waited for, never reported as broken,
   * whether at start or at a first set-up: the service's status says "in use by process N;
   * waiting" (`capture:event.service`), and the opening is tried again with the stored settings
   * every `queueRetryMs` (each try takes the lock or is refused within about a second, main/queue/lock.ts) until
   * it works, then the status is cleared. The caller is answered at once; any other error is thrown.
   */
  private async openOrWait(open: () => void | Promise<void>): Promise<void> {
    clearTimeout(this.waitTimer);
    this.waitTimer = undefined;
    try {
      await open();
    } catch (err) {
      if (!(err instanceof QueueInUseError) || this.closed) throw err;
      this.setWaiting(queueInUseMessage(err, this.queueRetryMs()));
      this.waitTimer = setTimeout(() => {
        this.openStored().catch((e: unknown) =>
          this.setWaiting(null, queueErrorMessage(e, join(this.opts.dataDir, 'queue'))),
        );
      }, this.queueRetryMs());
      return;
    }
    if (this.waiting) this.setWaiting(null);
  }

  private queueRetryMs(): number {
    return this.opts.queueRetryMs ?? QUEUE_RETRY_MS;
  }

  /** Records the waiting message (null: not waiting) and tells the window the service's status: the wait, else `error`, else none. */
  private setWaiting(message: string | null, error: string | null = null): void {
    this.waiting = message;
    this.opts.emit('capture:event.service', { queueError: message ?? error });
  }

  /** Sends what waits in the office outbox now (what the one-minute timer runs); failures wait for the next round. */
  sendOutbox(): Promise<void> {
    return this.officeSync.sendOutbox();
  }

  /** Stops uploads (parts in flight are abandoned, stored parts kept), closes the queue and the local service. */
  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.waitTimer);
    this.officeSync.close();
    this.cards.close();
    await this.cards.settled();
    await this.thumbnails.close();
    this.announcer.close();
    await this.closeUploader();
    await this.local?.close();
    this.local = undefined;
  }

  /**
   * The IPC handlers, one per channel of shared/ipc.ts but the service's status (main/service/worker.ts
   * answers it) and those the main process answers itself (shared/ipc.ts SHELL_CHANNELS); each
   * screen's are in main/service/handlers/, over a context on this core's state.
   */
  handlers(): Omit<IpcHandlers, 'capture:service.status' | ShellChannel> {
    const c: SettingsContext = {
      settings: this.settings,
      limits: this.limits,
      localServiceAvailable: Boolean(this.opts.startLocalService),
      uploader: () => this.uploader,
      requireUploader: () => this.requireUploader(),
      startDrain: () => this.startDrain(),
      projectId: () => this.projectId(),
      view: () => this.view(),
      queueView: () => this.queueView(),
      touched: (fileIds) => this.live?.touched(fileIds),
      emit: (event, payload) => this.opts.emit(event, payload),
      copyOf: (path) => this.cards.copies.copied(path)?.path,
      closeUploader: () => this.closeUploader(),
      closeLocal: async () => {
        await this.local?.close();
        this.local = undefined;
      },
      openWith: (config) => this.openWith(config),
      openLocal: () => this.openLocal(),
      openOrWait: (open) => this.openOrWait(open),
      localStructures: () => this.localStructures,
      localProjectName: () => this.localProjectName,
    };
    const upload = uploadHandlers(c, () => this.opts.pickFiles());
    return {
      ...settingsHandlers(c),
      ...upload,
      ...thumbnailHandlers(this.thumbnails, upload['capture:files.inspect']),
      ...queueHandlers(c),
      ...designsHandlers(c),
      ...officeHandlers(this.officeSync),
      ...cardHandlers(this.cards),
      ...planHandlers(this.plans, c),
    };
  }

  /** The current queue with live progress (one query for captures, one for files). */
  queueView(): QueueView {
    return {
      ...(this.live?.view() ?? { captures: [], files: [], blocked: null, hold: null, totals: EMPTY_TOTALS }),
      keptAwake: this.keptAwake,
    };
  }

  /**
   * The progress-records client (progress-records-interface.md) for the current settings: the
   * local service's, or the configured address with the same API key, project and account; and
   * the scope its records are cached under. Throws Error saying what to set when there is no
   * progress address.
   */
  private records(): RecordsConnection {
    // An interactive screen: one quick retry, then the cached copy and the outbox take over.
    // The service's own sign-in tokens are kept sealed per scope (progress-tokens.ts);
    // they are the account's, so a changed email starts without them.
    this.tokens ??= new ScopedTokenKeepers(this.opts.store, this.opts.secrets);
    const opts = (scope: string) => ({
      retry: { retries: 1, delayMs: () => 300 },
      timeoutMs: 10_000,
      tokens: this.tokens!.for(scope),
    });
    if (this.local) {
      const { info } = this.local;
      const config = { baseUrl: info.progressBaseUrl, apiKey: info.apiKey, projectId: info.projectId, ...info.account };
      const scope = `local:${info.projectId}`;
      return { client: new ProgressRecordsClient(config, opts(`${scope} ${info.account.email}`)), scope };
    }
    const r = this.settings.resolved();
    if (!r?.progressBaseUrl) throw new Error('No progress records address is set: open Settings and enter it.');
    const config = {
      baseUrl: r.progressBaseUrl,
      apiKey: r.apiKey,
      projectId: r.projectId,
      email: r.email,
      password: r.password,
    };
    const scope = `${r.progressBaseUrl} ${r.projectId}`;
    return { client: new ProgressRecordsClient(config, opts(`${scope} ${r.email}`)), scope };
  }
  private tokens?: ScopedTokenKeepers;

  /** The stored settings as the renderer sees them, and whether the local test service can be offered. */
  private view(): SettingsView {
    const v = this.settings.view();
    const localServiceAvailable = Boolean(this.opts.startLocalService);
    return { ...v, localServiceAvailable, configured: v.configured && (v.mode !== 'local' || localServiceAvailable) };
  }

  private projectId(): string {
    return this.local?.info.projectId ?? this.settings.stored()?.projectId ?? '';
  }

  private gatewayConfig(): GatewayConfig {
    if (this.local) {
      const { info } = this.local;
      return {
        baseUrl: info.baseUrl,
        authUrl: info.authUrl,
        apiKey: info.apiKey,
        projectId: info.projectId,
        ...info.account,
      };
    }
    const r = this.settings.resolved();
    if (!r)
      throw new Error('The app is not set up yet: open Settings and enter the service addresses and your account.');
    return {
      baseUrl: r.baseUrl,
      authUrl: r.authUrl,
      apiKey: r.apiKey,
      projectId: r.projectId,
      email: r.email,
      password: r.password,
    };
  }

  /** Starts (or reuses) the local service and opens the queue on it. Throws when it is not offered here or fails to start. */
  private async openLocal(): Promise<void> {
    const start = this.opts.startLocalService;
    if (!start) throw new Error(NO_LOCAL_SERVICE);
    this.local ??= await start(join(this.opts.dataDir, 'local-service'));
    // Its ready info is all the app uses of it, as of a real service: addresses, key, account, and
    // the structures' names a real project hands out of band.
    this.localProjectName = this.local.info.projectName ?? '';
    this.localStructures = this.local.info.namedStructures.map((s) => ({
      id: s.id,
      name: s.name,
      designs: s.designs.map((d) => ({ id: d.id, name: d.name })),
    }));
    this.openWith(this.gatewayConfig());
  }

  /**
   * Opens the queue on `gateway`. The engine's options come in one order (AppCoreOptions.engine):
   * the table's defaults, then the stored settings (shared/settings-table.ts, read from the store
   * now, never passed along by position), then the host's own engine options over both.
   */
  private openWith(gateway: GatewayConfig): void {
    this.uploader = openUploader({
      ...this.settings.engineSettings(),
      bandwidthBytesPerSecond: this.settings.stored()?.bandwidthBytesPerSecond ?? null,
      ...this.opts.engine,
      dataDir: join(this.opts.dataDir, 'queue'),
      gateway,
      log: this.opts.log,
      // A file placed from a card being imported waits for its verified copy; what
      // an earlier run held (no import runs for it now) uploads from the card.
      copyRoute: this.cards.copies,
    });
    if (this.uploader.setAside)
      this.opts.emit('capture:event.notice', {
        level: 'warning',
        message: `The upload queue was damaged (${this.uploader.damage}) and was moved to ${this.uploader.setAside}; a new queue was started.`,
      });
    const u = this.uploader;
    this.live = new LiveQueue(
      u.queue,
      () => u.engine.blocked,
      () => u.engine.holds.current,
      (event, payload) => {
        this.opts.emit(event, payload);
        if ('totals' in payload) this.opts.totals?.(payload.totals);
      },
    );
    // The shell learns the queue's totals as it opens, not at its first change: an idle queue may
    // not change for hours, and the tray and "start at login" (docs/decisions/0018-login-start.md) read them.
    this.opts.totals?.(this.live.totals());
    this.offEngine = u.engine.on((e) => {
      this.onEngine(e);
      this.opts.engineEvents?.(e);
    });
    this.limits.attach(u.engine);
    this.changed('opened');
    this.startDrain();
  }

  private async closeUploader(): Promise<void> {
    this.offEngine?.();
    this.limits.detach();
    this.live?.close();
    this.live = undefined;
    const u = this.uploader;
    this.uploader = undefined;
    await u?.close();
    await this.running;
  }

  private requireUploader(): Uploader {
    if (!this.uploader && this.waiting) throw new Error(this.waiting);
    if (!this.uploader)
      throw new Error(
        'The app is not set up yet: open Settings and enter the service addresses and your account, or choose the local test service.',
      );
    return this.uploader;
  }

  private changed(reason: string): void {
    this.opts.emit('capture:event.queue', { reason });
  }

  /**
   * Drains whenever there is work, waiting through outages for the scheduled retries; a call
   * while draining runs one more drain after it.
   */
  private startDrain(): void {
    if (this.closed || !this.uploader) return;
    if (this.running) {
      this.again = true;
      return;
    }
    const u = this.uploader;
    this.running = (async () => {
      // Held ("Pause until 07:00"), the drain waits without keeping the computer awake.
      this.setBusy(u.engine.holds.current === null);
      try {
        do {
          this.again = false;
          await u.engine.drain({ wait: true });
        } while (this.again && this.uploader === u && !this.closed);
      } catch (err) {
        this.opts.log?.warn(`Uploads stopped: ${reasonOf(err)}`);
      } finally {
        this.setBusy(false);
        this.running = undefined;
        this.live?.flush();
        if (this.uploader === u && !this.closed) this.announcer.drained(u.queue.totals());
      }
    })();
  }

  private onEngine(e: EngineEvent): void {
    this.live?.onEngine(e);
    if (e.type === 'hold') this.setBusy(this.running !== undefined && e.hold === null);
    if (e.type === 'warning') this.opts.emit('capture:event.notice', { level: 'warning', message: e.message });
    if (e.type === 'blocked' && e.message !== null) {
      this.opts.emit('capture:event.notice', { level: 'error', message: e.message });
      this.opts.notify?.('Uploads stopped', e.message);
    }
    // A passing failure (pending with a retry time) is shown in the queue row, not announced:
    // overnight, one notice per retry would never stop.
    this.announcer.onEngine(e);
  }

  private setBusy(working: boolean): void {
    const answer = this.opts.busy?.(working);
    if (!(answer instanceof Promise)) return this.showAwake(answer === true && working);
    // Answered by another process (the host holds the blocker): only the latest answer counts.
    const asked = ++this.busyAsked;
    void answer.then(
      (held) => asked === this.busyAsked && this.showAwake(held === true && working),
      () => asked === this.busyAsked && this.showAwake(false),
    );
  }
  private busyAsked = 0;

  private showAwake(awake: boolean): void {
    if (awake === this.keptAwake) return;
    this.keptAwake = awake;
    this.opts.emit('capture:event.power', { keptAwake: awake });
  }
}

/** Totals of an empty queue (no queue open yet). */
const EMPTY_TOTALS: QueueTotals = {
  files: 0,
  captures: 0,
  completed: 0,
  uploading: 0,
  queued: 0,
  retrying: 0,
  paused: 0,
  failed: 0,
  cancelled: 0,
  needYou: 0,
  bytesTotal: 0,
  bytesDone: 0,
  bytesRemaining: 0,
  bytesPerSecond: 0,
};
