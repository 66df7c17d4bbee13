import { statSync } from 'node:fs';
import { QueueStorageError } from '../queue/db.js';
import type { UploadQueue } from '../queue/queue.js';

/**
 * What a running drain checks of its queue every second (UploadEngine's drain): that the queue
 * file is still the one it opened (a file deleted or replaced under a running drain would take
 * every later write with it), and that the activity log is pruned once a day.
 */
export class QueueFileWatch {
  private lastPrune = Date.now();
  private queueIno?: number;

  /**
   * @param queueFile the queue database's path (':memory:' or '' are not watched)
   * @param fail stops the engine for good on a failure of the queue database (UploadEngine's `fail`)
   * @param stopped whether the engine has stopped for good already (then nothing is pruned)
   */
  constructor(
    private readonly queue: UploadQueue,
    private readonly queueFile: string,
    private readonly fail: (err: unknown) => boolean,
    private readonly stopped: () => boolean,
  ) {}

  /** Prunes the activity log when a day has passed since the last prune (at open, or here). */
  pruneDaily(): void {
    if (Date.now() - this.lastPrune < 86_400_000 || this.stopped()) return;
    this.lastPrune = Date.now();
    try {
      this.queue.activity.prune();
    } catch (err) {
      this.fail(err);
    }
  }

  /** Fails the engine with QueueStorageError 'DELETED' when the queue file is gone or another file took its path. */
  check(): void {
    if (this.queueFile === ':memory:' || this.queueFile === '') return;
    let ino: number | undefined;
    try {
      ino = statSync(this.queueFile).ino;
    } catch {
      ino = undefined;
    }
    this.queueIno ??= ino;
    if (ino === undefined || ino !== this.queueIno) this.fail(new QueueStorageError(this.queueFile, 'DELETED'));
  }
}
