import {
  CancelledError,
  CredentialsRefusedError,
  FileChangedError,
  HttpStatusError,
  LocalFileError,
  NetworkError,
  reasonOf,
} from '../../api/errors.js';
import { isLocalFault, isPassing } from '../../api/retry-table.js';
import type { QueuedFile } from '../../queue/queue.js';
import type { QueueClock } from './clock.js';
import { MAX_RETRY_WAIT_MS } from './clock.js';
import type { EngineContext } from '../context.js';
import type { DrainOptions } from '../events.js';
import { FileUpload } from '../file-upload.js';
import { EngineStopping } from '../parts/in-doubt.js';
import type { PulledCards } from '../outages/pulled-cards.js';
import type { Registrar } from '../registration/registrar.js';
import { whenAt } from '../../../shared/when.js';
import { unreachableNotice } from '../outages/unreachable-notice.js';

/** The longest single sleep (ms): timers beyond 2^31 ms fire at once in Node. */
const MAX_NAP_MS = 2 ** 31 - 1;
/** The shortest nap before looking at the queue again for work that just came due (ms). */
const MIN_NAP_MS = 20;
/** How often the wall clock is compared with the monotonic one while the loop naps (ms). */
const CLOCK_CHECK_MS = 1000;

interface Active {
  controller: AbortController;
  done: Promise<void>;
}

/**
 * Runs the queue: the drain loop, the due times of the durable retry schedule, and one
 * FileUpload task per active file (a few more files than request slots, so one file's presign or
 * complete-batch overlaps the others' parts).
 *
 * Every file is claimed (`pending` → `uploading`) before its task starts, and its task's ending
 * is committed before the task is forgotten: completed; back to `pending` when it was stopped (a
 * person's pause, cancel or removal, written first, is never overwritten); `pending` with a retry
 * time when the failure may pass by itself; `failed` when a person must act.
 */
export class Scheduler {
  private readonly active = new Map<number, Active>();
  private wakeUp?: () => void;
  private stopping = false;
  private clockClamped = false;

  constructor(
    private readonly ctx: EngineContext,
    private readonly clock: QueueClock,
    private readonly registrar: Registrar,
    /**
     * `heldUntil`: when the queue-wide hold in force ends (ms since epoch, Infinity: by hand), or null
     * when none holds; `cards`: the cards pulled out, whose files wait instead of failing.
     */
    private readonly hooks: {
      blocked(err: CredentialsRefusedError): void;
      isBlocked(): boolean;
      heldUntil(): number | null;
      cards: PulledCards;
    },
  ) {}

  /** Files being uploaded now. */
  get activeFiles(): number[] {
    return [...this.active.keys()];
  }

  /** Wakes the drain loop to look at the queue again (new work, a control, a task ended). */
  wake(): void {
    this.wakeUp?.();
  }

  /**
   * The drain loop: registers due captures and uploads due files until nothing can run now.
   * With `wait`, sleeps until the next scheduled retry instead of returning, until everything is
   * completed or needs a person, or `deadline` passes. Returns when stopped or the queue is blocked.
   */
  async run(opts: DrainOptions): Promise<void> {
    this.stopping = false;
    const { clock } = this;
    if (!this.clockClamped) {
      this.clockClamped = true;
      clock.clampFuture(this.ctx.retrySchedule.maxDelayMs ?? MAX_RETRY_WAIT_MS);
    }
    // Every wait here is on the monotonic clock (README: time and clocks): the deadline is turned
    // into one once, and the queue's stored times are read on the clock's time line, whose steps
    // the periodic check moves them by.
    const until = opts.deadline === undefined ? Infinity : performance.now() + (opts.deadline - Date.now());
    const watch = setInterval(() => this.checkClock(), CLOCK_CHECK_MS);
    try {
      for (;;) {
        if (this.stopping || this.hooks.isBlocked()) break;
        if (performance.now() >= until) break;
        this.checkClock();
        this.registrar.startRegistering();
        // A queue-wide hold: registration goes on, no file starts. Held and idle, the
        // drain ends, or with `wait` sleeps until the hold ends (a release wakes it sooner). The
        // hold's end is a time of day a person chose: wall-clock time, as the timetable's.
        const heldUntil = this.hooks.heldUntil();
        if (heldUntil !== null) {
          const idle = this.active.size === 0 && !this.registrar.busy;
          if (idle && !opts.wait) break;
          await this.nap(Math.min(heldUntil - Date.now(), until - performance.now()));
          continue;
        }
        this.startDue();
        const idle = this.active.size === 0 && !this.registrar.busy;
        const next = this.ctx.queue.schedule.nextDueAt(this.hooks.cards.waitingFiles());
        // Without `wait`, the drain ends once nothing runs. With it, it ends only when nothing is
        // scheduled at all and no pulled card is waited for (its return wakes the loop); a time
        // that passed between the claims above and this read (they are microseconds apart) is
        // claimed on the next turn, after a short nap.
        if (idle && (!opts.wait || (next === null && !this.hooks.cards.waiting()))) break;
        const left = until - performance.now();
        if (!idle && (next === null || next <= clock.now())) {
          // Work is running; a retry time already past waits for a free slot, and a task's end wakes the loop.
          await this.nap(left);
          continue;
        }
        await this.nap(Math.max(MIN_NAP_MS, Math.min((next ?? Infinity) - clock.now(), left)));
      }
    } finally {
      clearInterval(watch);
    }
    await this.abortAll();
  }

  /** Compares the clocks; a wall-clock step moved the stored times, so the loop looks again. */
  private checkClock(): void {
    try {
      const step = this.clock.check();
      if (step === 0) return;
      this.ctx.log.info(
        `The computer's clock moved ${step > 0 ? 'forward' : 'back'} by ${Math.round(Math.abs(step) / 1000)} s; scheduled retries keep their waits`,
      );
      this.wake();
    } catch (err) {
      if (!this.ctx.fatal(err)) throw err;
    }
  }

  /** Stops the loop and every file task (files go back to `pending`, stored parts kept) and waits for them. */
  async stop(): Promise<void> {
    this.stopping = true;
    this.wake();
    await this.abort([...this.active.keys()], new EngineStopping());
  }

  /**
   * Aborts the tasks of these files (the caller has already written what they become) and waits
   * for them; `reason` EngineStopping (quit) gives fully sent parts longer for their answers.
   */
  async abort(fileIds: readonly number[], reason?: Error): Promise<void> {
    const tasks = fileIds.map((id) => this.active.get(id)).filter((a): a is Active => a !== undefined);
    for (const a of tasks) a.controller.abort(reason);
    await Promise.all(tasks.map((a) => a.done));
  }

  private async abortAll(): Promise<void> {
    await this.abort([...this.active.keys()]);
  }

  private nap(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = Number.isFinite(ms) ? setTimeout(done, Math.max(0, Math.min(ms, MAX_NAP_MS))) : undefined;
      function done() {
        clearTimeout(timer);
        resolve();
      }
      this.wakeUp = done;
    });
  }

  /**
   * A capture moved to the front of the queue or back: running files take their
   * capture's new rank in the limiter, and files of lower rank that hold a task while a file of
   * higher rank waits are stopped (back to `pending`, stored parts kept; only the parts on the
   * wire are sent again), so the capture a person moved really goes first. Wakes the loop.
   */
  async reprioritize(): Promise<void> {
    const schedule = this.ctx.queue.schedule;
    const ranks = schedule.priorities(this.activeFiles);
    for (const [id, p] of ranks) this.ctx.limiter.rank(id, p);
    const waiting = schedule.dueFiles(this.clock.now(), 1, this.activeFiles)[0];
    const top = waiting ? (schedule.priorities([waiting.id]).get(waiting.id) ?? 0) : 0;
    const lower = [...ranks].filter(([, p]) => p < top).map(([id]) => id);
    this.wake();
    await this.abort(lower);
  }

  private startDue(): void {
    const room = this.ctx.limiter.limit + 1 - this.active.size;
    if (room <= 0 || this.stopping) return;
    const due = this.ctx.queue.schedule.dueFiles(
      this.clock.now(),
      room,
      this.activeFiles,
      this.hooks.cards.waitingFiles(),
    );
    const ranks = this.ctx.queue.schedule.priorities(due.map((f) => f.id));
    for (const f of due) {
      const note =
        f.attempts > 0
          ? { kind: 'started' as const, message: `Trying again (attempt ${f.attempts + 1})` }
          : { kind: 'started' as const, message: 'Upload started' };
      if (!this.ctx.transitions.file(f.id, ['pending'], 'uploading', { error: null }, note)) continue;
      this.ctx.limiter.rank(f.id, ranks.get(f.id) ?? 0);
      this.hooks.cards.starting(f);
      const controller = new AbortController();
      const entry: Active = { controller, done: Promise.resolve() };
      entry.done = this.runFile(f, controller).finally(() => {
        this.active.delete(f.id);
        this.ctx.limiter.forget(f.id);
        this.wake();
      });
      this.active.set(f.id, entry);
    }
  }

  private async runFile(f: QueuedFile, controller: AbortController): Promise<void> {
    const { ctx } = this;
    try {
      await new FileUpload(ctx, { ...f, state: 'uploading' }, controller.signal).run();
      ctx.ledger.flush();
      // The service said completed: that is a fact even if a person paused or cancelled meanwhile.
      ctx.transitions.file(
        f.id,
        ['uploading', 'pending', 'paused', 'cancelled', 'failed'],
        'completed',
        {},
        { kind: 'completed', message: 'Uploaded; the service finalized the file' },
      );
      ctx.transitions.completeCaptureIfDone(f.captureRow);
    } catch (err) {
      try {
        if (ctx.fatal(err)) {
          // A fault of this computer (its memory, its own disk), not of the file: it waits for the
          // next run as it was, no attempt counted, nothing marked failed. (A queue that cannot be
          // written leaves it `uploading`, which the next start turns back into `pending`.)
          if (isLocalFault(err)) {
            ctx.ledger.flush();
            ctx.transitions.file(f.id, ['uploading'], 'pending', { error: null });
          }
          return;
        }
        ctx.ledger.flush();
        this.settle(f, err, controller.signal.aborted);
      } catch (writeErr) {
        // The queue cannot record how the task ended: the engine stops (the row stays `uploading`,
        // which the next start turns back into `pending`).
        if (!ctx.fatal(writeErr)) throw writeErr;
      }
    } finally {
      ctx.tracker.untrack(f.id);
    }
  }

  private settle(f: QueuedFile, err: unknown, aborted: boolean): void {
    const t = this.ctx.transitions;
    if (aborted || err instanceof CancelledError) {
      t.file(f.id, ['uploading'], 'pending');
      return;
    }
    if (err instanceof CredentialsRefusedError) {
      t.file(f.id, ['uploading'], 'pending', { error: err.message });
      this.hooks.blocked(err);
      return;
    }
    // The card it is read from was pulled out: the file waits for the card, nothing failed.
    if (err instanceof LocalFileError && this.hooks.cards.waitIfPulled(f)) return;
    // A device error while the card still looks mounted: a card on its way out, or a reader's
    // moment of trouble. Tried again shortly (the next try finds the card gone, or reads it), not
    // failed at once; after a few such tries it fails as unreadable.
    const deviceWait = err instanceof LocalFileError ? this.hooks.cards.deviceRetryMs(f, err.code) : null;
    if (err instanceof LocalFileError && deviceWait !== null) {
      const at = this.clock.now() + deviceWait;
      const reason = `Reading ${f.fileName} failed (${err.code}) while its card or drive still looked mounted`;
      const message = `${reason}. Trying again at ${whenAt(at, { now: this.clock.now(), seconds: true })} (attempt ${f.attempts + 2}).`;
      this.ctx.log.warn(message);
      t.file(
        f.id,
        ['uploading'],
        'pending',
        { error: reason, retryAt: at, transient: true },
        { kind: 'retry-scheduled', message },
      );
      return;
    }
    const reason = reasonOf(err);
    if (isPassing(err)) {
      const at = this.clock.now() + Math.round(this.ctx.retrySchedule.delayMs(f.attempts)); // whole ms in the queue
      const message = `${reason}. Trying again at ${whenAt(at, { now: this.clock.now(), seconds: true })} (attempt ${f.attempts + 2}).`;
      t.file(
        f.id,
        ['uploading'],
        'pending',
        { error: reason, retryAt: at, transient: true },
        { kind: 'retry-scheduled', message },
      );
      // A passing failure of a gateway call (presign, status read, complete-batch: never a PUT to
      // storage) is an outage at the gateway for the screen and `status` ("Waiting for the
      // gateway"), over at its next answer (gateway-watch.ts), as a silent one is. Not while
      // storage is out: the gateway's status read asks storage, so it fails with it, and that is
      // the same outage (docs/engine.md, "A silent capture gateway").
      if (fromGateway(err) && this.ctx.tracker.outageWhere() !== 'storage')
        this.ctx.tracker.trouble('gateway', reason, Date.now());
      // One notice for the queue when the service cannot be reached at all.
      const notice = unreachableNotice(this.ctx.gateway, err);
      if (notice) this.ctx.warn(notice);
      return;
    }
    this.ctx.log.warn(`${f.fileName} failed: ${reason}`);
    // A changed file no longer stands for its recording: adding the recording again is allowed.
    if (err instanceof FileChangedError) this.ctx.queue.markChanged(f.id);
    t.file(f.id, ['uploading'], 'failed', { error: reason }, { kind: 'failed', message: reason });
  }
}

/** Whether `err` is a capture gateway call's failure (HTTP status or network), not storage's answer to a part's PUT. */
function fromGateway(err: unknown): boolean {
  return (err instanceof HttpStatusError || err instanceof NetworkError) && err.request.method !== 'PUT';
}
