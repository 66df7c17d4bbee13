import { join } from 'node:path';
import type { LocalService } from '../e2e/service/index.js';
import { isVideo, mediaKindOf, captureFilesViolation } from '../shared/capture-rules.js';
import type { EventName, EventPayload, InspectResult, LastPlacement, NamedStructure, QueueView, SettingsView } from '../shared/ipc.js';
import { mostUsedPlacement } from '../shared/registration.js';
import { reasonOf } from './api/errors.js';
import type { GatewayConfig } from './api/gateway.js';
import { CaptureGateway } from './api/gateway.js';
import type { AssetCategory, ExternalAsset, ProgressEntry } from './api/progress-records.js';
import { ProgressRecordsClient, explain as explainRecords } from './api/progress-records.js';
import type { EngineEvent, EngineOptions, Logger } from './engine/engine.js';
import type { FileProgress } from './engine/progress.js';
import { inspectPaths, suggestedTime } from './intake.js';
import type { IpcHandlers } from './ipc/dispatch.js';
import type { FileState } from './queue/queue.js';
import { readMediaMetadata } from './media/metadata.js';
import type { KeyValueStore, SecretBox } from './settings.js';
import { SettingsRepository } from './settings.js';
import type { Uploader } from './uploader.js';
import { openUploader } from './uploader.js';

/** What the desktop app's core needs from its host (the Electron shell, or a test harness). */
export interface AppCoreOptions {
  /** The app's user-data folder: the queue lives in `<dataDir>/queue`, the local service in `<dataDir>/local-service`. */
  dataDir: string;
  store: KeyValueStore;
  secrets: SecretBox;
  /** Sends an event to the renderer. */
  emit<E extends EventName>(event: E, payload: EventPayload<E>): void;
  /** Shows the file dialog; resolves with the chosen paths (empty when cancelled). */
  pickFiles(): Promise<string[]>;
  /** Starts the local test service (the shell imports e2e/service lazily). */
  startLocalService(dataDir: string): Promise<LocalService>;
  /** Called when a capture completes or a file fails, for a desktop notification. */
  notify?(title: string, body: string): void;
  /** Called with true while the queue has work (hold a power-save blocker), false when idle. */
  busy?(working: boolean): void;
  log?: Logger;
  /** Engine settings beyond the stored ones (tests shorten retry delays and the retry schedule). */
  engine?: Partial<Omit<EngineOptions, 'queue' | 'gateway'>>;
}

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
  private local?: LocalService;
  private localStructures: NamedStructure[] = [];
  private progress = new Map<number, FileProgress>();
  private running?: Promise<void>;
  private again = false;
  private closed = false;
  private offEngine?: () => void;

  constructor(private readonly opts: AppCoreOptions) {
    this.settings = new SettingsRepository(opts.store, opts.secrets);
  }

  /** Opens the queue with the stored settings (if any) and carries on with what it holds. */
  async start(): Promise<void> {
    const s = this.settings.stored();
    if (s?.mode === 'local') await this.openLocal(s.concurrency);
    else if (this.settings.view().configured) this.openWith(this.gatewayConfig(), s!.concurrency);
  }

  /** Stops uploads (parts in flight are abandoned, stored parts kept), closes the queue and the local service. */
  async close(): Promise<void> {
    this.closed = true;
    await this.closeUploader();
    await this.local?.close();
    this.local = undefined;
  }

  /** The IPC handlers, one per channel of shared/ipc.ts. */
  handlers(): IpcHandlers {
    return {
      'capture:settings.get': async () => this.settings.view(),
      'capture:settings.save': async (input) => {
        const { next, resolved } = this.settings.prepare(input);
        const config: GatewayConfig = { ...resolved };
        try {
          await new CaptureGateway(config, { retry: { retries: 1, delayMs: () => 200 } }).signIn();
        } catch (err) {
          throw new Error(`Sign-in failed: ${reasonOf(err)}. Check the sign-in address, email and password.`);
        }
        this.settings.commit(next);
        await this.closeUploader();
        await this.local?.close();
        this.local = undefined;
        this.openWith(config, next.concurrency);
        return this.settings.view();
      },
      'capture:settings.useLocalService': async () => {
        await this.closeUploader();
        await this.openLocal(this.settings.view().concurrency);
        this.settings.useLocal(this.localStructures, this.settings.view().concurrency);
        return this.view();
      },
      'capture:files.pick': () => this.opts.pickFiles(),
      'capture:files.inspect': (paths) => this.inspect(paths),
      'capture:captures.register': async (forms) => {
        const u = this.requireUploader();
        const queued: number[] = [];
        const refused: { path: string; reason: string }[] = [];
        const placed: LastPlacement[] = [];
        for (const form of forms) {
          const r = await u.add(form.paths, { structure: form.structure, design: form.design, type: form.type, capturedAt: form.capturedAt });
          queued.push(...r.queued);
          refused.push(...r.refused);
          if (r.queued.length) placed.push({ structure: form.structure, design: form.design, type: form.type });
        }
        const usual = mostUsedPlacement(placed);
        if (usual) this.settings.rememberPlacement(this.projectId(), usual);
        this.changed('registered');
        this.kick();
        return { queued, refused };
      },
      'capture:captures.lastPlacement': async () => this.settings.lastPlacement(this.projectId()),
      'capture:queue.list': async () => this.queueView(),
      'capture:engine.limits': async ({ bandwidthBytesPerSecond }) => {
        this.uploader?.engine.setBandwidth(bandwidthBytesPerSecond);
        this.settings.setBandwidth(bandwidthBytesPerSecond);
        return { bandwidthBytesPerSecond };
      },
      'capture:queue.pause': async (t) => this.each(t, ['pending', 'uploading'], (id) => this.requireUploader().engine.pause(id)),
      'capture:queue.resume': async (t) => this.each(t, ['paused'], (id) => this.requireUploader().engine.resume(id)),
      'capture:queue.retry': async (t) => this.each(t, ['failed', 'cancelled'], (id) => this.requireUploader().engine.resume(id)),
      'capture:queue.remove': async ({ captureRow }) => {
        // Removed from this computer's queue first, then its uploads stop (nothing changes at the platform).
        await this.requireUploader().engine.removeCapture(captureRow);
        this.changed('removed');
      },
      'capture:queue.resolve': async ({ captureRow, decision }) => {
        this.requireUploader().engine.resolveRegistration(captureRow, decision);
        this.changed('resolved');
        this.kick();
      },
      'capture:designs.check': async () => {
        const u = this.requireUploader();
        const latest = await u.gateway.latestDefaultDesignUpdate();
        const lastExport = u.queue.lastSheetExport(this.projectId()) ?? null;
        // §4.3: designs updated after the last export make the exported sheets stale.
        const stale = latest !== null && (!lastExport || Date.parse(latest) > Date.parse(lastExport.requestedAt));
        return { latestDesignUpdate: latest, lastExport, stale };
      },
      'capture:progress.list': ({ date }) => this.recordsCall(async (r) => (await r.listProgress(date)).map(entryView)),
      'capture:progress.get': ({ id }) => this.recordsCall(async (r) => entryView(await r.getProgress(id))),
      'capture:progress.create': (entry) => this.recordsCall(async (r) => entryView(await r.createProgress(entry))),
      'capture:assets.categories': () =>
        this.recordsCall(async (r) => ({
          categories: (await r.categories()).map(categoryView),
          structures: this.settings.view().structures.map((st) => ({ id: st.id, name: st.name })),
        })),
      'capture:assets.list': ({ structure, category }) => this.recordsCall(async (r) => (await r.assets(structure, category)).map(assetView)),
      'capture:designs.export': async () => {
        const u = this.requireUploader();
        const latest = await u.gateway.latestDefaultDesignUpdate().catch(() => null);
        const res = await u.gateway.requestExport();
        u.queue.recordSheetExport(this.projectId(), latest);
        return { message: res.message };
      },
    };
  }

  /** The current queue with live progress. */
  queueView(): QueueView {
    const u = this.uploader;
    if (!u) return { captures: [], files: [], blocked: null };
    const captures = u.queue.captures();
    const files = captures.flatMap((c) =>
      u.queue.filesOf(c.id).map((f) => {
        const live = this.progress.get(f.id);
        const parts = u.queue.parts(f.id);
        const stored = parts.filter((p) => p.etag);
        const bytesSent = f.state === 'completed' ? f.size : (live?.bytesSent ?? stored.reduce((n, p) => n + p.size, 0));
        return {
          id: f.id,
          captureRow: c.id,
          fileName: f.fileName,
          path: f.path,
          size: f.size,
          state: f.state,
          error: f.error,
          bytesSent,
          partsDone: f.state === 'completed' ? parts.length : (live?.partsDone ?? stored.length),
          partsTotal: f.totalParts ?? 0,
          bytesPerSecond: f.state === 'uploading' ? (live?.bytesPerSecond ?? 0) : 0,
          etaSeconds: f.state === 'uploading' ? (live?.etaSeconds ?? null) : null,
          retryAt: f.state === 'pending' ? f.nextAttemptAt : null,
          attempts: f.attempts,
        };
      }),
    );
    return {
      captures: captures.map((c) => ({
        id: c.id,
        label: c.label,
        state: c.state,
        error: c.error,
        retryAt: c.state === 'queued' ? c.nextAttemptAt : null,
        captureId: c.captureId,
        structure: c.structure,
      })),
      files,
      blocked: u.engine.blocked,
    };
  }

  /**
   * The progress-records client (progress-records-interface.md) for the current settings: the
   * local service's, or the configured address with the same API key, project and account.
   * Throws Error saying what to set when there is no progress address.
   */
  private records(): ProgressRecordsClient {
    if (this.local) {
      const { info } = this.local;
      return new ProgressRecordsClient({ baseUrl: info.progressBaseUrl, apiKey: info.apiKey, projectId: info.projectId, ...info.account });
    }
    const r = this.settings.resolved();
    if (!r?.progressBaseUrl) throw new Error('No progress records address is set: open Settings and enter it.');
    return new ProgressRecordsClient({ baseUrl: r.progressBaseUrl, apiKey: r.apiKey, projectId: r.projectId, email: r.email, password: r.password });
  }

  /** Runs a progress-records call with its errors in words a person reads (§7 of that interface). */
  private async recordsCall<T>(fn: (r: ProgressRecordsClient) => Promise<T>): Promise<T> {
    try {
      return await fn(this.records());
    } catch (err) {
      throw new Error(explainRecords(err) ?? reasonOf(err));
    }
  }

  private view(): SettingsView {
    return this.settings.view();
  }

  private projectId(): string {
    return this.local?.info.projectId ?? this.settings.stored()?.projectId ?? '';
  }

  private gatewayConfig(): GatewayConfig {
    if (this.local) {
      const { info } = this.local;
      return { baseUrl: info.baseUrl, authUrl: info.authUrl, apiKey: info.apiKey, projectId: info.projectId, ...info.account };
    }
    const r = this.settings.resolved();
    if (!r) throw new Error('The app is not set up yet: open Settings and enter the service addresses and your account.');
    return { baseUrl: r.baseUrl, authUrl: r.authUrl, apiKey: r.apiKey, projectId: r.projectId, email: r.email, password: r.password };
  }

  private async openLocal(concurrency: number): Promise<void> {
    this.local ??= await this.opts.startLocalService(join(this.opts.dataDir, 'local-service'));
    const project = this.local.store.state.projects.find((p) => p.id === this.local!.info.projectId)!;
    this.localStructures = project.structures.map((s) => ({ id: s.id, name: s.name, designs: s.designs.map((d) => ({ id: d.id, name: d.name })) }));
    this.openWith(this.gatewayConfig(), concurrency);
  }

  private openWith(gateway: GatewayConfig, concurrency: number): void {
    this.uploader = openUploader({
      ...this.opts.engine,
      dataDir: join(this.opts.dataDir, 'queue'),
      gateway,
      concurrency,
      bandwidthBytesPerSecond: this.settings.stored()?.bandwidthBytesPerSecond ?? null,
      log: this.opts.log,
    });
    if (this.uploader.setAside) this.opts.emit('capture:event.notice', { level: 'warning', message: `The upload queue was damaged and was moved to ${this.uploader.setAside}; a new queue was started.` });
    this.offEngine = this.uploader.engine.on((e) => this.onEngine(e));
    this.kick();
  }

  private async closeUploader(): Promise<void> {
    this.offEngine?.();
    const u = this.uploader;
    this.uploader = undefined;
    await u?.close();
    await this.running;
  }

  private requireUploader(): Uploader {
    if (!this.uploader) throw new Error('The app is not set up yet: open Settings and enter the service addresses and your account, or choose the local test service.');
    return this.uploader;
  }

  private each(t: { fileId: number } | { all: true }, states: FileState[], fn: (id: number) => void): void {
    const u = this.requireUploader();
    const ids = 'fileId' in t ? [t.fileId] : u.queue.files(states).map((f) => f.id);
    for (const id of ids) fn(id);
    this.changed('control');
    this.kick();
  }

  private changed(reason: string): void {
    this.opts.emit('capture:event.queue', { reason });
  }

  /**
   * Drains whenever there is work, waiting through outages for the scheduled retries; a kick
   * while draining runs one more drain after it.
   */
  private kick(): void {
    if (this.closed || !this.uploader) return;
    if (this.running) {
      this.again = true;
      return;
    }
    const u = this.uploader;
    this.running = (async () => {
      this.opts.busy?.(true);
      try {
        do {
          this.again = false;
          await u.engine.drain({ wait: true });
        } while (this.again && this.uploader === u && !this.closed);
      } catch (err) {
        this.opts.log?.warn(`Uploads stopped: ${reasonOf(err)}`);
      } finally {
        this.opts.busy?.(false);
        this.running = undefined;
        this.changed('idle');
      }
    })();
  }

  private onEngine(e: EngineEvent): void {
    if (e.type === 'progress') {
      for (const f of e.files) this.progress.set(f.fileId, f);
      this.opts.emit('capture:event.progress', {
        files: e.files.map((f) => ({ id: f.fileId, bytesSent: f.bytesSent, partsDone: f.partsDone, partsTotal: f.partsTotal, bytesPerSecond: f.bytesPerSecond, etaSeconds: f.etaSeconds })),
      });
      return;
    }
    if (e.type === 'warning') {
      this.opts.emit('capture:event.notice', { level: 'warning', message: e.message });
      return;
    }
    if (e.type === 'blocked' && e.message !== null) {
      this.opts.emit('capture:event.notice', { level: 'error', message: e.message });
      this.opts.notify?.('Uploads stopped', e.message);
    }
    if (e.type === 'file') {
      if (e.state !== 'uploading') this.progress.delete(e.fileId);
      // A passing failure (pending with a retry time) is shown in the queue row, not announced:
      // overnight, one notice per retry would never stop.
      if (e.state === 'failed') this.opts.notify?.('Upload failed', `${e.fileName}: ${e.error ?? 'unknown error'}`);
    }
    if (e.type === 'capture' && e.state === 'completed') this.opts.notify?.('Capture uploaded', `${e.label} is complete.`);
    this.changed(e.type);
  }

  private async inspect(paths: string[]): Promise<InspectResult> {
    const { groups, refused } = await inspectPaths(paths);
    const u = this.uploader;
    const captures = [];
    for (const g of groups) {
      const video = g.files.find((f) => isVideo(mediaKindOf(f.name)))!;
      const media = await readMediaMetadata(video.path).catch((err: unknown) => ({ error: `Could not read the video's metadata: ${reasonOf(err)}` }));
      captures.push({
        key: g.key,
        kind: g.kind,
        label: g.label,
        files: g.files.map((f) => ({ path: f.path, name: f.name, size: f.size })),
        violation: captureFilesViolation(g.files.map((f) => f.name)),
        media,
        capturedAt: ('createdAt' in media && media.createdAt) || suggestedTime(g),
        alreadyQueued: Boolean(u && g.files.some((f) => u.queue.findQueuedFile(f))),
      });
    }
    return { captures, refused };
  }
}

/** A progress entry as the renderer gets it. */
const entryView = (e: ProgressEntry) => ({ id: e.id, date: e.date, status: e.status, details: e.details });

/** An asset category as the renderer gets it: its stages with name, sequence and colour. */
const categoryView = (c: AssetCategory) => ({
  id: c._id,
  name: c.name,
  uom: c.uom,
  stages: c.stages.map((st) => ({ _id: st._id, name: st.name, sequence: st.sequence, color: st.color })),
});

/** An external asset as the renderer gets it. */
const assetView = (a: ExternalAsset) => ({
  _id: a._id,
  points: a.points,
  doNotTrack: a.doNotTrack ?? false,
  snapshot: a.snapshot ?? a.properties?.snapshotDate ?? null,
  stages: a.stages.map((st) => ({ _id: st._id, percentage: st.percentage, date: st.date ?? null })),
});
