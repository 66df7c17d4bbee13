import { queueStorageError } from '../queue/db.js';
import { localFaultMessage } from '../api/errors.js';
import { isLocalFault } from '../api/retry-table.js';
import type { CaptureGateway } from '../api/gateway.js';
import type { UploadQueue } from '../queue/queue.js';
import type { EngineContext } from './context.js';
import { buildContext } from './build-context.js';
import type { DrainOptions, DrainSummary, EngineEvent, EngineOptions } from './events.js';
import { Registrar } from './registration/registrar.js';
import { BlockRecord } from './outages/block-record.js';
import { Holds, holdMessage } from './scheduling/hold.js';
import { Scheduler } from './scheduling/scheduler.js';
import { QueueClock } from './scheduling/clock.js';
import { clockLooksWrong } from './scheduling/clock-check.js';
import { md5KernelRefused } from '../hash/local-md5.js';
import { QueueControls } from './controls.js';
import { QueueFileWatch } from './queue-watch.js';
import { PulledCards } from './outages/pulled-cards.js'; // "upload straight from the card": a pulled card waits

export type { DrainOptions, DrainSummary, EngineEvent, EngineOptions, Logger } from './events.js';

/**
 * The upload engine (capture-upload-interface.md §4.4–§4.9, §7, §8), under plain Node: a
 * Registrar that registers queued captures one at a time, a Scheduler that runs the drain loop
 * on the queue's durable retry schedule, and one FileUpload per active file driving the resume
 * loop (presign missing parts, PUT each, report the ETags, reconcile with storage) until the
 * service says the file is completed. This class wires them together and takes a person's
 * controls; every control is committed to the queue before the work it stops unwinds.
 *
 * Files share one request limit fairly; parts are read from disk only when sent; presigned URLs
 * are kept per part; storage errors follow the §7 table; a slow link is told from a dead one; a
 * file that changed on disk fails. A refusal of the queue's credentials blocks the whole queue
 * with one message until a new engine is built with corrected settings.
 */
export class UploadEngine {
  private readonly ctx: EngineContext;
  private readonly queue: UploadQueue;
  private readonly registrar: Registrar;
  private readonly scheduler: Scheduler;
  private readonly listeners = new Set<(e: EngineEvent) => void>();
  private readonly warned = new Set<string>();
  private draining?: Promise<DrainSummary>;
  private readonly block: BlockRecord;
  private fatalError: string | null = null;
  private readonly queueFile: string;
  /** The queue-wide holds ("Pause until 07:00", the timetable's pause hours): see Holds. */
  readonly holds: Holds;
  private readonly controls: QueueControls;
  private readonly queueWatch: QueueFileWatch;
  private readonly cards: PulledCards;

  constructor(opts: EngineOptions) {
    this.queue = opts.queue;
    this.queueFile = opts.queueFile ?? opts.queue.db.name;
    this.ctx = buildContext(opts, {
      emit: (e) => this.emit(e),
      warn: (message) => this.warn(message),
      fatal: (err) => this.fail(err),
    });
    // Held: parts in flight stop (their files go back to pending); ended: the drain looks again.
    this.holds = new Holds(
      opts.queue,
      (e) => this.emit(e),
      (held) => (held ? void this.scheduler.abort(this.scheduler.activeFiles) : this.scheduler.wake()),
      (err) => this.fail(err),
    );
    this.block = new BlockRecord(
      this.ctx,
      (e) => this.emit(e),
      () => this.scheduler.wake(),
    );
    const onBlocked = this.block.refuse.bind(this.block);
    this.cards = new PulledCards(this.ctx, opts.cards ?? {}, () => this.scheduler.wake());
    this.registrar = new Registrar(this.ctx, {
      registered: () => this.scheduler.wake(),
      blocked: onBlocked,
      idle: () => this.scheduler.wake(),
    });
    this.scheduler = new Scheduler(this.ctx, new QueueClock(opts.queue.db), this.registrar, {
      blocked: onBlocked,
      isBlocked: () => this.block.message !== null || this.fatalError !== null,
      heldUntil: () => this.holds.endsAt(),
      cards: this.cards,
    });
    this.controls = new QueueControls(this.ctx, this.scheduler, (e) => this.emit(e));
    // A local limit (the process's address space), not a person's job: the parts are hashed by OpenSSL.
    const md5 = md5KernelRefused();
    if (md5)
      this.ctx.log.info(
        `Part MD5s are computed with node:crypto: the four-lane MD5 kernel's memory could not be had (${md5}).`,
      );
    // Said once, before the clock dates anything: the pruning below cannot be fooled by it.
    const clock = clockLooksWrong(Date.now(), this.queue.activity.newestAt());
    if (clock) this.warn(clock);
    this.queue.activity.prune(); // at open, and daily while draining (drainOnce)
    // The timetable's hold is its owner's to set again (UploadLimits, the CLI's --bandwidth): one
    // left by a process that stopped must not hold a queue opened without that timetable.
    this.holds.byTimetable(undefined);
    this.ctx.outages.clear(); // likewise an outage recorded by a process that stopped
    this.block.forget(true); // and its stop for refused credentials
    this.queueWatch = new QueueFileWatch(
      this.queue,
      this.queueFile,
      (err) => this.fail(err),
      () => this.fatalError !== null,
    );
    const recovered = this.queue.recoverInterrupted();
    if (recovered.unknownRegistrations > 0)
      this.warn(
        `${recovered.unknownRegistrations} capture(s) were being registered when the app stopped; check them and register again or drop them.`,
      );
    if (recovered.requeuedRegistrations > 0) {
      // Claimed but never sent (the app stopped while signing in): nothing to decide.
      this.ctx.log.info(
        `${recovered.requeuedRegistrations} capture(s) were about to be registered when the app stopped; nothing was sent, so they are queued again.`,
      );
    }
  }

  /** The gateway client the engine uses. */
  get gateway(): CaptureGateway {
    return this.ctx.gateway;
  }

  /** Subscribes to engine events; returns the unsubscribe function. */
  on(listener: (e: EngineEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Changes the bandwidth limit (bytes per second, or null for none) while running. Throws RangeError. */
  setBandwidth(bytesPerSecond: number | null): void {
    this.ctx.bandwidth.set(bytesPerSecond);
  }

  /** The bandwidth limit in bytes per second, or null. */
  get bandwidthLimit(): number | null {
    return this.ctx.bandwidth.limit;
  }

  /** Why the queue is stopped (the service refuses its credentials), or null. */
  get blocked(): string | null {
    return this.block.message;
  }

  /** Why the engine stopped for good (the queue database cannot be written), or null. */
  get fatal(): string | null {
    return this.fatalError;
  }

  /** Whether a drain is running. */
  get running(): boolean {
    return this.draining !== undefined;
  }

  /**
   * Registers due captures and uploads due files until nothing can run now (all completed,
   * failed, paused, waiting for a retry time or for a person), and returns what became of them.
   * With `wait`, keeps going through outages until every file is completed or needs a person (or
   * `deadline`). A call while a drain runs joins it.
   */
  drain(opts: DrainOptions = {}): Promise<DrainSummary> {
    this.draining ??= this.drainOnce(opts).finally(() => (this.draining = undefined));
    return this.draining;
  }

  private async drainOnce(opts: DrainOptions): Promise<DrainSummary> {
    this.registrar.restart();
    const hold = this.holds.current;
    if (hold) this.warn(holdMessage(hold));
    // A queue file deleted or replaced under a running drain would take every later write with it.
    const watch = setInterval(() => {
      this.queueWatch.check();
      this.queueWatch.pruneDaily();
    }, 1000);
    this.cards.watch(); // a card pulled before this drain (or before a restart) is looked for again
    try {
      await this.scheduler.run(opts);
      await this.registrar.stop();
      this.ctx.ledger.flush();
    } catch (err) {
      if (!this.fail(err)) throw err;
      await this.scheduler.stop();
      await this.registrar.stop();
    } finally {
      clearInterval(watch);
      this.cards.stop();
    }
    this.ctx.tracker.flush();
    this.ctx.outages.clear(); // nobody watches the link once the drain has ended
    return this.summary();
  }

  /**
   * Stops the engine for good when `err` is a failure of the queue database (full disk,
   * read-only, deleted, I/O error), or a fault of this computer itself that every file would
   * meet (the retry table's `stop`: its memory, its own disk; errors.ts localFaultMessage): one
   * message, every task stopped, nothing more written. Answers whether it was such a failure.
   */
  private fail(err: unknown): boolean {
    const fault =
      queueStorageError(this.queueFile, err) ?? (isLocalFault(err) ? new Error(localFaultMessage(err)) : null);
    if (!fault) return false;
    if (this.fatalError !== null) return true;
    this.fatalError = fault.message;
    this.ctx.log.warn(fault.message);
    this.emit({ type: 'fatal', message: fault.message });
    void this.scheduler.stop();
    void this.registrar.stopClaiming(); // nothing more is claimed or sent; answers already on their way are still recorded
    return true;
  }

  /** Has a running drain look at the queue again now (captures just queued), instead of after its nap. */
  wake(): void {
    this.scheduler.wake();
  }

  /** Registers the due queued captures now (joining a registration already running); resolves when none is left. */
  async registerQueued(): Promise<void> {
    this.registrar.restart();
    if (this.block.message === null && this.fatalError === null) await this.registrar.registerDue();
    // A silent gateway seen while registering outside a drain is watched by nobody once it returns.
    if (!this.draining) this.ctx.outages.clear();
    this.scheduler.wake();
  }

  /** The queue's state as a DrainSummary. */
  summary(): DrainSummary {
    const q = this.queue;
    return {
      completed: q.files(['completed']),
      failed: q.files(['failed']),
      paused: q.files(['paused']),
      cancelled: q.files(['cancelled']),
      waiting: q.files(['pending', 'uploading', 'waiting']),
      queued: q.captures(['queued', 'registering']),
      needsAttention: q.captures(['registration_unknown', 'rejected', 'failed']),
      blocked: this.block.message,
      fatal: this.fatalError,
      cardRemoved: this.cards.waitLine(),
    };
  }

  /**
   * Stops registering and every upload in flight (files go back to pending, parts stored so far are
   * kept) and waits: at most about 2 s, or about 5 s while a part whose every byte went out waits
   * for its answer (in-doubt.ts: one given up is asked for at the next start before it is sent again).
   * An add-capture already sent gets `sentGraceMs` (default 1.5 s, what quitting the app allows)
   * for its answer before its capture is left `registration_unknown`; the CLI stopped by a signal
   * gives 5 s (main/cli/stop-signals.ts).
   */
  async stop(opts: { sentGraceMs?: number } = {}): Promise<void> {
    const registrar = this.registrar.stop(opts.sentGraceMs);
    await this.scheduler.stop();
    await registrar;
    await this.draining?.catch(() => undefined);
    this.ctx.gateway.abortAll();
    try {
      this.ctx.ledger.flush();
    } catch (err) {
      if (!this.fail(err)) throw err; // said once; storage has the parts, the next start reconciles
    }
    this.block.forget(); // a stopped engine stops the queue no more: `status` says so (BlockRecord)
  }

  /** Pauses one file: committed at once; its parts in flight are aborted; stored parts are kept. */
  pause(fileId: number): void {
    this.controls.pause(fileId);
  }

  /** Cancels one file: no more retries, nothing more is sent. */
  cancel(fileId: number): void {
    this.controls.cancel(fileId);
  }

  /**
   * Resumes a paused file, re-queues a failed or cancelled one, or tries a file waiting for its
   * retry time now; it carries on from the parts storage has, with its attempts counted afresh.
   */
  resume(fileId: number): void {
    this.controls.resume(fileId);
  }

  /**
   * Pauses every pending or uploading file (each its own pause, which only a person's resume
   * ends) in one transaction with one activity line and one event; parts in flight are aborted.
   * Answers how many files were paused.
   */
  pauseAll(): number {
    return this.controls.pauseAll();
  }

  /** Resumes every paused file, as `pauseAll` does in one transaction and one event. Answers how many. */
  resumeAll(): number {
    return this.controls.resumeAll();
  }

  /** Sends every failed or cancelled file again and tries every file waiting for its retry time now; one transaction. Answers how many. */
  retryAll(): number {
    return this.controls.retryAll();
  }

  /**
   * Decides a capture that waits for a person (registration unknown, rejected, failed, or queued):
   * `register-again` queues it to be sent now, `drop` removes it from the local queue.
   * Throws Error when the capture is not waiting for a decision.
   */
  resolveRegistration(captureRow: number, decision: 'register-again' | 'drop'): void {
    this.controls.resolveRegistration(captureRow, decision);
  }

  /**
   * Corrects a capture the service refused (or one not registered yet) and queues it to be
   * registered again at once (§4.4). Throws Error when the capture is registered already or gone.
   */
  editCapture(
    captureRow: number,
    change: { structure: string; design?: string; type: 'interior' | 'exterior'; captureDateTime: string },
  ): void {
    this.controls.editCapture(captureRow, change);
  }

  /** Moves a capture to the front of the queue (`front`) or back to its place; its uploads go first at once. Throws Error when it is gone. */
  moveCapture(captureRow: number, front: boolean): Promise<void> {
    return this.controls.moveCapture(captureRow, front);
  }

  /** Takes every completed capture off this computer's queue (nothing at the platform changes) in one transaction; answers how many. */
  clearCompleted(): number {
    return this.controls.clearCompleted();
  }

  /**
   * Removes a capture and its files from this computer's queue (nothing at the platform changes),
   * even while its files upload: the rows go first, then their tasks are stopped.
   */
  removeCapture(captureRow: number): Promise<void> {
    return this.controls.removeCapture(captureRow);
  }

  /** Removes one file from this computer's queue (its capture stays; nothing at the platform changes). */
  removeFile(fileId: number): Promise<void> {
    return this.controls.removeFile(fileId);
  }

  private emit(e: EngineEvent): void {
    for (const l of this.listeners) l(e);
  }

  private warn(message: string): void {
    if (this.warned.has(message)) return;
    this.warned.add(message);
    this.ctx.log.warn(message);
    this.emit({ type: 'warning', message });
  }
}
