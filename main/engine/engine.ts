import { setTimeout as sleep } from 'node:timers/promises';
import type { RetryPolicy } from '../api/errors.js';
import { CancelledError, NetworkError, PartIntegrityError, classifyError, isTransient, reasonOf, recommendedRetryPolicy } from '../api/errors.js';
import type { CaptureGateway } from '../api/gateway.js';
import type { CaptureState, FileState, QueuedCapture, QueuedFile, UploadQueue } from '../queue/queue.js';
import { PartLedger } from './ledger.js';
import { Limiter } from './limiter.js';
import { assertUnchanged, uploadPart } from './part-upload.js';
import { PresignedUrls } from './presigned-urls.js';
import { registrationOutcome } from './registration.js';
import type { FileProgress, OverallProgress } from './progress.js';
import { ProgressTracker } from './progress.js';
import { Bandwidth } from './throttle.js';

/** Where the engine writes what a person or a log reader should know (never a secret). */
export interface Logger {
  info(message: string): void;
  warn(message: string): void;
}

/** Engine settings. Times in ms, bandwidth in bytes per second. */
export interface EngineOptions {
  queue: UploadQueue;
  gateway: CaptureGateway;
  /** Part uploads at once, shared by all files (default 4). */
  concurrency?: number;
  /** Bandwidth limit for all part uploads together, or null (default). */
  bandwidthBytesPerSecond?: number | null;
  /** Retries of one part (default §8 recommended: 4 retries, 500 ms × 2^attempt + 0–500 ms). */
  partRetry?: RetryPolicy;
  /** A part with no progress this long is aborted and retried (default 30 000). */
  stallTimeoutMs?: number;
  /** Presign-again rounds after storage 403/AccessDenied for one part before it fails (default 3). */
  maxResigns?: number;
  /** Resume-loop rounds without fewer missing parts before the file fails (default 3). */
  maxRounds?: number;
  /** Minimum time between progress events (default 100: ten a second at most). */
  progressIntervalMs?: number;
  log?: Logger;
}

/** What the engine tells its listeners. */
export type EngineEvent =
  | { type: 'progress'; files: FileProgress[]; overall: OverallProgress }
  | {
      type: 'file';
      fileId: number;
      captureRow: number;
      fileName: string;
      state: FileState;
      error: string | null;
      /** For `failed`: whether the cause may pass by itself (network, 5xx), so a later retry makes sense. */
      transient?: boolean;
    }
  | { type: 'capture'; captureRow: number; label: string; state: CaptureState; error: string | null }
  | { type: 'warning'; message: string };

/** The queue once a drain stopped: files and captures by outcome. */
export interface DrainSummary {
  completed: QueuedFile[];
  failed: QueuedFile[];
  paused: QueuedFile[];
  /** Captures that need a person: registration_unknown, rejected, failed, or still queued (service unreachable). */
  needsAttention: QueuedCapture[];
}


interface ActiveFile {
  controller: AbortController;
  done: Promise<void>;
  /** What the file becomes when its task stops because it was aborted. */
  stopAs: FileState;
}

/**
 * The upload engine (capture-upload-interface.md §4.4–§4.9, §7, §8): registers queued captures
 * and drives every registered file through the resume loop — presign missing parts, PUT each,
 * report the ETags with complete-batch, read the status with storage reconciliation — until the
 * service says the file is completed.
 *
 * One concurrency limit is shared by all files; parts are read from disk only when sent; URLs
 * are presigned just before use and again after 403; storage errors follow the §7 retry table;
 * a stalled part is aborted and retried; a changed file fails. Runs under plain Node.
 */
export class UploadEngine {
  private readonly queue: UploadQueue;
  private readonly gateway: CaptureGateway;
  private readonly limiter: Limiter;
  private readonly bandwidth: Bandwidth;
  private readonly ledger: PartLedger;
  private readonly tracker: ProgressTracker;
  private readonly partRetry: RetryPolicy;
  private readonly stallTimeoutMs: number;
  private readonly maxResigns: number;
  private readonly maxRounds: number;
  private readonly log: Logger;
  private readonly listeners = new Set<(e: EngineEvent) => void>();
  private readonly active = new Map<number, ActiveFile>();
  private wake?: () => void;
  private warnedNonMd5 = false;
  private stopping = false;
  private draining?: Promise<DrainSummary>;

  constructor(opts: EngineOptions) {
    this.queue = opts.queue;
    this.gateway = opts.gateway;
    this.limiter = new Limiter(opts.concurrency ?? 4);
    this.bandwidth = new Bandwidth(opts.bandwidthBytesPerSecond ?? null);
    this.ledger = new PartLedger(opts.queue);
    this.partRetry = opts.partRetry ?? recommendedRetryPolicy();
    this.stallTimeoutMs = opts.stallTimeoutMs ?? 30_000;
    this.maxResigns = opts.maxResigns ?? 3;
    this.maxRounds = opts.maxRounds ?? 3;
    this.log = opts.log ?? { info: () => {}, warn: () => {} };
    this.tracker = new ProgressTracker((files, overall) => this.emit({ type: 'progress', files, overall }), opts.progressIntervalMs ?? 100);
    const recovered = this.queue.recoverInterrupted();
    if (recovered.unknownRegistrations > 0) {
      this.warn(`${recovered.unknownRegistrations} capture(s) were being registered when the app stopped; check them and register again or drop them.`);
    }
  }

  /** Subscribes to engine events; returns the unsubscribe function. */
  on(listener: (e: EngineEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Changes the shared concurrency limit (whole number ≥ 1) while running. Throws RangeError. */
  setConcurrency(n: number): void {
    this.limiter.setLimit(n);
  }

  /** Changes the bandwidth limit (bytes per second, or null for none) while running. Throws RangeError. */
  setBandwidth(bytesPerSecond: number | null): void {
    this.bandwidth.set(bytesPerSecond);
  }

  /** The bandwidth limit in bytes per second, or null. */
  get bandwidthLimit(): number | null {
    return this.bandwidth.limit;
  }

  /**
   * Registers every queued capture and uploads every pending file, until nothing is left to do
   * (all completed, failed, paused or waiting for a person), and returns what became of them.
   * A call while a drain runs joins it.
   */
  drain(): Promise<DrainSummary> {
    this.draining ??= this.drainOnce().finally(() => (this.draining = undefined));
    return this.draining;
  }

  private async drainOnce(): Promise<DrainSummary> {
    this.stopping = false;
    for (;;) {
      if (this.stopping) break;
      const registered = await this.register();
      this.startPending();
      if (this.active.size === 0) {
        if (this.queue.files(['pending']).length > 0) continue;
        if (registered > 0) continue;
        break;
      }
      await new Promise<void>((resolve) => {
        this.wake = resolve;
        for (const a of this.active.values()) void a.done.then(resolve);
      });
      this.wake = undefined;
    }
    await Promise.all([...this.active.values()].map((a) => a.done));
    this.ledger.flush();
    this.tracker.flush();
    return this.summary();
  }

  /** The queue's state as a DrainSummary. */
  summary(): DrainSummary {
    return {
      completed: this.queue.files(['completed']),
      failed: this.queue.files(['failed']),
      paused: this.queue.files(['paused']),
      needsAttention: this.queue.captures(['queued', 'registration_unknown', 'rejected', 'failed']),
    };
  }

  /** Stops every upload in flight (files go back to pending, parts stored so far are kept) and waits for them. */
  async stop(): Promise<void> {
    this.stopping = true;
    for (const a of this.active.values()) {
      a.stopAs = 'pending';
      a.controller.abort();
    }
    this.wake?.();
    await Promise.all([...this.active.values()].map((a) => a.done));
    await this.draining?.catch(() => undefined);
    this.ledger.flush();
  }

  /** Pauses one file: its parts in flight are aborted; stored parts are kept. */
  pause(fileId: number): void {
    this.stopFile(fileId, 'paused', ['pending', 'uploading']);
  }

  /** Cancels one file: no more retries, nothing more is sent. */
  cancel(fileId: number): void {
    this.stopFile(fileId, 'cancelled', ['pending', 'uploading', 'paused', 'failed']);
  }

  /** Resumes a paused file, or re-queues a failed or cancelled one; it carries on from the parts storage has. */
  resume(fileId: number): void {
    const f = this.queue.file(fileId);
    if (!f || !['paused', 'failed', 'cancelled'].includes(f.state) || !f.uploadId) return;
    this.setFile(f, 'pending', null);
    this.wake?.();
  }

  /** Pauses every pending or uploading file. */
  pauseAll(): void {
    for (const f of this.queue.files(['pending', 'uploading'])) this.pause(f.id);
  }

  /** Resumes every paused file. */
  resumeAll(): void {
    for (const f of this.queue.files(['paused'])) this.resume(f.id);
  }

  /**
   * Decides a capture whose registration is unknown (the app stopped mid add-capture):
   * `register-again` queues it to be sent again, `drop` removes it from the queue.
   */
  resolveRegistration(captureRow: number, decision: 'register-again' | 'drop'): void {
    const c = this.queue.capture(captureRow);
    if (!c || !['registration_unknown', 'rejected', 'failed', 'queued'].includes(c.state)) {
      throw new Error(`Capture ${captureRow} is not waiting for a decision`);
    }
    if (decision === 'drop') {
      this.queue.removeCapture(captureRow);
      this.emit({ type: 'capture', captureRow, label: c.label, state: 'failed', error: 'Dropped from the queue' });
      return;
    }
    this.queue.setCaptureState(captureRow, 'queued');
    this.emit({ type: 'capture', captureRow, label: c.label, state: 'queued', error: null });
    this.wake?.();
  }

  private stopFile(fileId: number, to: FileState, from: FileState[]): void {
    const f = this.queue.file(fileId);
    if (!f || !from.includes(f.state)) return;
    const a = this.active.get(fileId);
    if (a) {
      a.stopAs = to;
      a.controller.abort();
    } else {
      this.setFile(f, to, null);
    }
  }

  private emit(e: EngineEvent): void {
    for (const l of this.listeners) l(e);
  }

  private warn(message: string): void {
    this.log.warn(message);
    this.emit({ type: 'warning', message });
  }

  private setFile(f: QueuedFile, state: FileState, error: string | null, transient?: boolean): void {
    this.queue.setFileState(f.id, state, error);
    this.emit({ type: 'file', fileId: f.id, captureRow: f.captureRow, fileName: f.fileName, state, error, ...(transient === undefined ? {} : { transient }) });
  }

  private setCapture(c: QueuedCapture, state: CaptureState, error: string | null): void {
    this.queue.setCaptureState(c.id, state, error);
    this.emit({ type: 'capture', captureRow: c.id, label: c.label, state, error });
  }

  /**
   * §4.4 for every queued capture. The capture is marked `registering` (committed) before the
   * request leaves, so a crash in between is seen on restart. A 4xx refusal makes it `rejected`
   * with the service's message; an answer lost after sending makes it `registration_unknown`.
   * Returns how many were registered.
   */
  async register(): Promise<number> {
    let registered = 0;
    for (const c of this.queue.captures(['queued'])) {
      if (this.stopping) break;
      this.setCapture(c, 'registering', null);
      try {
        const [result] = await this.gateway.addCaptures([c.request]);
        if (!result) throw new Error('The service answered add-capture without a result');
        this.queue.saveRegistration(c.id, result.capture.captureId, result.uploadManifest);
        this.emit({ type: 'capture', captureRow: c.id, label: c.label, state: 'registered', error: null });
        for (const f of this.queue.filesOf(c.id)) this.emit({ type: 'file', fileId: f.id, captureRow: c.id, fileName: f.fileName, state: 'pending', error: null });
        registered++;
      } catch (err) {
        const outcome = registrationOutcome(err);
        this.setCapture(c, outcome.state, outcome.message);
        if (outcome.stop) {
          this.warn(`Could not register "${c.label}": ${reasonOf(err)}`);
          break;
        }
      }
    }
    return registered;
  }

  private startPending(): void {
    const room = Math.max(2, this.limiter.limit) - this.active.size;
    if (room <= 0) return;
    for (const f of this.queue.files(['pending']).slice(0, room)) {
      if (this.active.has(f.id)) continue;
      const controller = new AbortController();
      const entry: ActiveFile = { controller, stopAs: 'pending', done: Promise.resolve() };
      entry.done = this.runFile(f, entry).finally(() => {
        this.active.delete(f.id);
        this.wake?.();
      });
      this.active.set(f.id, entry);
    }
  }

  private async runFile(f: QueuedFile, entry: ActiveFile): Promise<void> {
    this.setFile(f, 'uploading', null);
    try {
      await this.uploadFile(f, entry.controller.signal);
      this.ledger.flush();
      this.setFile(f, 'completed', null);
      if (this.queue.completeCaptureIfDone(f.captureRow)) {
        const c = this.queue.capture(f.captureRow)!;
        this.emit({ type: 'capture', captureRow: c.id, label: c.label, state: 'completed', error: null });
      }
    } catch (err) {
      this.ledger.flush();
      if (entry.controller.signal.aborted || err instanceof CancelledError) {
        this.setFile(f, entry.stopAs, null);
      } else {
        const reason = reasonOf(err);
        this.log.warn(`${f.fileName} failed: ${reason}`);
        this.setFile(f, 'failed', reason, isTransient(err));
      }
    } finally {
      this.tracker.untrack(f.id);
    }
  }

  /** The resume loop of §4 for one file; resolves when the service says it is completed. */
  private async uploadFile(f: QueuedFile, signal: AbortSignal): Promise<void> {
    const uploadId = f.uploadId!;
    await assertUnchanged(f.path, f);
    const urls = new PresignedUrls(this.gateway, uploadId);
    let best = Infinity;
    let stuckRounds = 0;
    for (let round = 0; ; round++) {
      if (signal.aborted) throw new CancelledError();
      this.ledger.flush();
      const presign = await urls.refresh();
      if (presign.partSize !== f.partSize || presign.totalParts !== f.totalParts) {
        throw new Error(`The service now describes ${f.fileName} as ${presign.totalParts} parts of ${presign.partSize} bytes, not the registered layout`);
      }
      const missing = new Set(presign.parts.map((p) => p.partNumber));
      const parts = this.queue.parts(f.id);
      for (const p of parts) if (p.etag && missing.has(p.partNumber)) this.queue.clearPart(f.id, p.partNumber);
      if (round === 0) {
        const held = parts.filter((p) => !missing.has(p.partNumber));
        this.tracker.track({
          fileId: f.id,
          captureRow: f.captureRow,
          fileName: f.fileName,
          bytesTotal: f.size,
          partsTotal: f.totalParts!,
          doneBytes: held.reduce((n, p) => n + p.size, 0),
          partsDone: held.length,
        });
      }
      if (missing.size > 0) await this.sendParts(f, [...missing].sort((a, b) => a - b), urls, signal);

      this.ledger.flush();
      const reported = () =>
        this.queue
          .parts(f.id)
          .filter((p) => p.etag)
          .map((p) => ({ partNumber: p.partNumber, etag: p.etag!, size: p.size }));
      let record = reported().length ? await this.gateway.completeBatch(uploadId, reported()) : await this.gateway.uploadStatus(uploadId, false);
      if (record.status === 'completed') return;
      // Storage may hold parts whose ETags never reached this queue (the app stopped between
      // storage's answer and the write): the reconciling status read lets the service count them.
      record = await this.gateway.uploadStatus(uploadId, true);
      if (record.missingParts.length === 0 && reported().length) record = await this.gateway.completeBatch(uploadId, reported());
      if (record.status === 'completed') return;
      if (record.missingParts.length < best) {
        best = record.missingParts.length;
        stuckRounds = 0;
      } else if (++stuckRounds >= this.maxRounds) {
        throw new Error(`The service still lists parts ${record.missingParts.slice(0, 10).join(', ')} of ${f.fileName} as missing after ${round + 1} rounds`);
      }
    }
  }

  /** Sends the given parts through the shared limiter; the first part that cannot be sent stops the others. */
  private async sendParts(f: QueuedFile, partNumbers: number[], urls: PresignedUrls, signal: AbortSignal): Promise<void> {
    const round = new AbortController();
    const onAbort = () => round.abort();
    signal.addEventListener('abort', onAbort, { once: true });
    const backoff = { failures: 0 };
    const running: Promise<void>[] = [];
    let firstError: unknown;
    try {
      for (const n of partNumbers) {
        let release: () => void;
        try {
          release = await this.limiter.acquire(f.id, round.signal);
        } catch {
          break;
        }
        running.push(
          this.sendPart(f, n, urls, round.signal, backoff)
            .catch((err: unknown) => {
              firstError ??= err;
              round.abort();
            })
            .finally(release),
        );
      }
      await Promise.all(running);
    } finally {
      signal.removeEventListener('abort', onAbort);
    }
    if (signal.aborted) throw new CancelledError();
    if (firstError) throw firstError;
  }

  private async sendPart(f: QueuedFile, n: number, urls: PresignedUrls, signal: AbortSignal, backoff: { failures: number }): Promise<void> {
    const offset = (n - 1) * f.partSize!;
    const size = Math.min(f.partSize!, f.size - offset);
    let retries = 0;
    let resigns = 0;
    let mustResend: unknown; // storage has a copy, but a bad one (no ETag, or not the bytes sent)
    for (;;) {
      if (signal.aborted) throw new CancelledError();
      const url = await urls.get(n);
      if (!url) {
        if (mustResend) throw mustResend; // no URL can be had for a part the service counts as stored
        return; // storage already has it: never sent twice
      }
      try {
        const result = await uploadPart(
          { path: f.path, expected: f, partNumber: n, offset, size, url },
          { bandwidth: this.bandwidth, stallTimeoutMs: this.stallTimeoutMs, signal, onProgress: (sent) => this.tracker.partProgress(f.id, n, sent) },
        );
        if (!result.md5Checked && !this.warnedNonMd5) {
          this.warnedNonMd5 = true;
          this.warn('Storage ETags are not plain MD5 digests here, so parts cannot be checked against them; uploads go on unchecked.');
        }
        // Recorded even when the file was paused meanwhile: storage has the part.
        this.ledger.add(f.id, n, result.etag);
        this.tracker.partDone(f.id, n, size);
        this.limiter.succeeded();
        backoff.failures = 0; // retry delays start over once a part gets through
        return;
      } catch (err) {
        this.tracker.partDone(f.id, n, 0);
        const action = classifyError(err, true);
        if (action === 'cancel' || action === 'fail' || action === 'reauth') throw err;
        if (action === 'resign') {
          urls.invalidate(n);
          if (++resigns > this.maxResigns) throw err;
          this.log.info(`Part ${n} of ${f.fileName}: the presigned URL was refused; presigning again`);
          continue;
        }
        if (action === 'slowdown') this.limiter.slowDown();
        // After a dropped connection storage may have the part all the same (the reply was lost):
        // presign-missing, asked again before the retry, says so, and the part is not sent twice.
        if (err instanceof NetworkError) urls.invalidate(n);
        if (err instanceof PartIntegrityError) mustResend = err;
        if (++retries > this.partRetry.retries) throw err;
        const delay = this.partRetry.delayMs(Math.min(backoff.failures++, 6));
        this.log.info(`Part ${n} of ${f.fileName}: ${reasonOf(err)}; retry ${retries} of ${this.partRetry.retries} in ${Math.round(delay)} ms`);
        try {
          await sleep(delay, undefined, { signal });
        } catch {
          throw new CancelledError();
        }
      }
    }
  }
}
