import type { QueueMeta } from '../queue/meta.js';
import type { Outage } from './progress.js';

/**
 * Keeps the outage the running engine sees (ProgressTracker: from the first passing failure of a
 * part request until storage acknowledges a part) in the queue's meta table (QueueMeta.setOutage),
 * so `capture-uploader status`, another process, says "Waiting for storage" exactly when the
 * screen does (issue 18 #2). Written when an outage starts or changes place, cleared when storage
 * answers again, when the drain ends and when an engine opens the queue (one left by a process
 * that stopped is no longer seen by anyone). A failure to write is the engine's `fatal` to judge.
 */
export class OutageRecord {
  private last: Outage | null | undefined;

  constructor(
    private readonly meta: QueueMeta,
    private readonly fatal: (err: unknown) => boolean,
  ) {}

  /** The tracker's outage now (null: none); written only when it started, ended or moved (not on each failure). */
  seen(outage: Outage | null): void {
    const last = this.last;
    if (last !== undefined && (last === null ? outage === null : outage !== null && outage.where === last.where && outage.since === last.since)) return;
    this.write(outage);
  }

  /** No outage is seen any more (the drain ended, or a new engine opened the queue). */
  clear(): void {
    this.write(null);
  }

  private write(outage: Outage | null): void {
    try {
      this.meta.setOutage(outage && { where: outage.where, since: outage.since, cause: outage.cause });
      this.last = outage;
    } catch (err) {
      if (!this.fatal(err)) throw err;
    }
  }
}
