import type { UploadQueue } from '../../queue/queue.js';

/**
 * Accepted parts waiting to be written to the queue. Parts finishing close together are stored in
 * one transaction (at most `delayMs` after the first, 100 ms by default) rather than one commit
 * each; `flush()` writes at once and runs before every complete-batch and on shutdown.
 *
 * A crash inside that window loses only the ETags of parts storage already holds: presign-missing
 * will not hand them out again (nothing is re-sent) and the status read with syncFromS3 (§4.9)
 * makes the service count them.
 */
export class PartLedger {
  private buffer: { fileId: number; partNumber: number; etag: string }[] = [];
  private timer?: NodeJS.Timeout;

  constructor(
    private readonly queue: UploadQueue,
    private readonly delayMs = 100,
    /** Called with an error of a timed flush (full disk, read-only queue), which has no caller to throw to. */
    private readonly onError: (err: unknown) => void = (err) => {
      throw err;
    },
  ) {}

  /** Buffers an accepted part (ETag exactly as storage returned it). */
  add(fileId: number, partNumber: number, etag: string): void {
    this.buffer.push({ fileId, partNumber, etag });
    this.timer ??= setTimeout(() => {
      try {
        this.flush();
      } catch (err) {
        this.onError(err);
      }
    }, this.delayMs);
  }

  /**
   * Writes every buffered part in one transaction. Throws SqliteError when the queue cannot be
   * written; the parts stay buffered then (storage has them either way).
   */
  flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    if (this.buffer.length === 0) return;
    this.queue.recordParts(this.buffer);
    this.buffer = [];
  }
}
