import type { BatchResult } from '../queue/batch.js';
import type { FileState, UploadQueue } from '../queue/queue.js';
import type { EngineContext } from './context.js';
import type { EngineEvent } from './events.js';
import type { Scheduler } from './scheduling/scheduler.js';

/**
 * A person's controls of the queue (pause, cancel, resume, the batches, decisions, corrections,
 * removal), as UploadEngine offers them: each is committed to the queue (through Transitions or one
 * batch transaction) before the work it stops is aborted, and the drain is woken to look again.
 */
export class QueueControls {
  private readonly queue: UploadQueue;

  constructor(
    private readonly ctx: EngineContext,
    private readonly scheduler: Scheduler,
    private readonly emit: (e: EngineEvent) => void,
  ) {
    this.queue = ctx.queue;
  }

  /** Pauses one file: committed at once; its parts in flight are aborted; stored parts are kept. */
  pause(fileId: number): void {
    this.control(fileId, ['pending', 'uploading'], 'paused', 'paused', 'Paused');
  }

  /** Cancels one file: no more retries, nothing more is sent. */
  cancel(fileId: number): void {
    this.control(fileId, ['pending', 'uploading', 'paused', 'failed'], 'cancelled', 'cancelled', 'Cancelled');
  }

  /**
   * Resumes a paused file, re-queues a failed or cancelled one, or tries a file waiting for its
   * retry time now; it carries on from the parts storage has, with its attempts counted afresh.
   */
  resume(fileId: number): void {
    const f = this.queue.file(fileId);
    if (!f?.uploadId || (f.state === 'pending' && f.nextAttemptAt === null)) return;
    if (
      this.ctx.transitions.file(
        fileId,
        ['paused', 'failed', 'cancelled', 'pending'],
        'pending',
        { resetAttempts: true },
        { kind: 'resumed', message: 'Queued again by a person' },
      )
    ) {
      this.scheduler.wake();
    }
  }

  /**
   * Pauses every pending or uploading file (each its own pause, which only a person's resume
   * ends) in one transaction with one activity line and one event; parts in flight are aborted.
   * Answers how many files were paused.
   */
  pauseAll(): number {
    const r = this.batch(() => this.queue.batch.pauseAll());
    void this.scheduler.abort(r.fileIds);
    return r.fileIds.length;
  }

  /** Resumes every paused file, as `pauseAll` does in one transaction and one event. Answers how many. */
  resumeAll(): number {
    return this.batch(() => this.queue.batch.resumeAll()).fileIds.length;
  }

  /** Sends every failed or cancelled file again and tries every file waiting for its retry time now; one transaction. Answers how many. */
  retryAll(): number {
    return this.batch(() => this.queue.batch.retryAll()).fileIds.length;
  }

  private batch(run: () => BatchResult): BatchResult {
    const r = run();
    if (r.fileIds.length + r.captureRows.length > 0)
      this.emit({ type: 'batch', fileIds: r.fileIds, captureRows: r.captureRows });
    if (r.entry) this.emit({ type: 'activity', entry: r.entry });
    this.scheduler.wake();
    return r;
  }

  /**
   * Decides a capture that waits for a person (registration unknown, rejected, failed, or queued):
   * `register-again` queues it to be sent now, `drop` removes it from the local queue.
   * Throws Error when the capture is not waiting for a decision.
   */
  resolveRegistration(captureRow: number, decision: 'register-again' | 'drop'): void {
    const c = this.queue.capture(captureRow);
    if (!c || !['registration_unknown', 'rejected', 'failed', 'queued'].includes(c.state)) {
      throw new Error(`Capture ${captureRow} is not waiting for a decision`);
    }
    if (decision === 'drop') {
      void this.removeCapture(captureRow);
      return;
    }
    // Back to `queued` with no retry time: due now.
    this.ctx.transitions.capture(
      captureRow,
      ['registration_unknown', 'rejected', 'failed', 'queued'],
      'queued',
      null,
      undefined,
      { kind: 'queued', message: 'To be registered again, by a person' },
    );
    this.scheduler.wake();
  }

  /**
   * Corrects a capture the service refused (or one not registered yet) and queues it to be
   * registered again at once (§4.4). Throws Error when the capture is registered already or gone.
   */
  editCapture(
    captureRow: number,
    change: { structure: string; design?: string; type: 'interior' | 'exterior'; captureDateTime: string },
  ): void {
    const q = this.queue;
    const revised = q.transaction(() => {
      if (!q.reviseCapture(captureRow, change)) return false;
      return this.ctx.transitions.capture(captureRow, ['rejected', 'failed', 'queued'], 'queued', null, undefined, {
        kind: 'queued',
        message: `Corrected by a person (structure ${change.structure}${change.design ? `, design ${change.design}` : ''}, ${change.type}, ${change.captureDateTime}); to be registered again`,
      });
    })();
    if (!revised)
      throw new Error(`Capture ${captureRow} cannot be changed: it is registered already or no longer in the queue.`);
    this.scheduler.wake();
  }

  /**
   * Moves a capture to the front of the queue (`front`), or back to its own place by age, and
   * makes the uploads follow at once (Scheduler.reprioritize): its registration and its files go
   * before every capture not moved, the last one moved first. One activity line,
   * one event. Throws Error when the capture is no longer in the queue.
   */
  async moveCapture(captureRow: number, front: boolean): Promise<void> {
    const q = this.queue;
    const entry = q.transaction(() => {
      const c = q.capture(captureRow);
      if (!c || q.schedule.setFront(captureRow, front) === null) return undefined;
      const message = front
        ? 'Moved to the front of the queue by a person'
        : 'Moved back to its place in the queue by a person';
      return q.activity.add({ captureRow, fileId: null, subject: c.label, kind: 'moved', message });
    })();
    if (!entry) throw new Error(`Capture ${captureRow} is no longer in the queue.`);
    this.emit({ type: 'batch', fileIds: [], captureRows: [captureRow] });
    this.emit({ type: 'activity', entry });
    await this.scheduler.reprioritize();
  }

  /** Takes every completed capture off this computer's queue (nothing at the platform changes) in one transaction; answers how many. */
  clearCompleted(): number {
    return this.batch(() => this.queue.batch.removeCompletedCaptures()).captureRows.length;
  }

  /**
   * Removes a capture and its files from this computer's queue (nothing at the platform changes),
   * even while its files upload: the rows go first, then their tasks are stopped.
   */
  async removeCapture(captureRow: number): Promise<void> {
    const ids = this.queue.filesOf(captureRow).map((f) => f.id);
    this.ctx.transitions.removeCapture(captureRow);
    await this.scheduler.abort(ids);
  }

  /** Removes one file from this computer's queue (its capture stays; nothing at the platform changes). */
  async removeFile(fileId: number): Promise<void> {
    // Before registration the capture's request lists every file (§4.4), and the manifest must
    // match what is queued: one file alone leaves only once its capture is registered.
    const f = this.queue.file(fileId);
    const c = f && this.queue.capture(f.captureRow);
    if (c && ['queued', 'registering', 'registration_unknown', 'rejected'].includes(c.state)) {
      throw new Error(
        `${f.fileName} cannot be removed alone while its capture "${c.label}" is not registered: remove the whole capture, or remove the file once the capture is registered.`,
      );
    }
    this.ctx.transitions.removeFile(fileId);
    await this.scheduler.abort([fileId]);
  }

  private control(
    fileId: number,
    from: FileState[],
    to: FileState,
    kind: 'paused' | 'cancelled',
    message: string,
  ): void {
    if (this.ctx.transitions.file(fileId, from, to, {}, { kind, message })) void this.scheduler.abort([fileId]);
  }
}
