import type { QueueMeta } from '../../queue/meta.js';
import type { Outage } from '../progress/progress.js';
import type { Note } from '../progress/transitions.js';

/** An activity line about an outage: `at` ISO 8601 (an outage starts when it started, not when it was noticed), `subject` where. */
export type OutageNote = Note & { at?: string; subject: string };

/**
 * Keeps the outage the running engine sees (ProgressTracker: from the first passing failure of a
 * part request until storage acknowledges a part) in the queue's meta table (QueueMeta.setOutage),
 * so `capture-uploader status`, another process, says "Waiting for storage" exactly when the
 * screen does. Written when an outage starts or changes place, cleared when storage (or, for
 * one at the gateway, the gateway) answers again, when the drain ends and when an engine opens the queue (one left by a process
 * that stopped is no longer seen by anyone). A failure to write is the engine's `fatal` to judge.
 *
 * Each outage is also written to the activity log, with the start and cause the screen shows
 * (`outage`, at its start; `outage-over` when it ends), so `capture-uploader log` and the morning
 * summary (shared/night-summary.ts) tell the same outage as the screen (docs/engine.md, "A silent link").
 */
export class OutageRecord {
  private last: Outage | null | undefined;

  constructor(
    private readonly meta: QueueMeta,
    private readonly note: (note: OutageNote) => void,
    private readonly fatal: (err: unknown) => boolean,
  ) {}

  /** The tracker's outage now (null: none); written only when it started, ended or moved (not on each failure). */
  seen(outage: Outage | null): void {
    const last = this.last;
    if (
      last !== undefined &&
      (last === null ? outage === null : outage !== null && outage.where === last.where && outage.since === last.since)
    )
      return;
    this.write(outage);
  }

  /** No outage is seen any more (the drain ended, or a new engine opened the queue). */
  clear(): void {
    this.write(null, 'no longer watched: the drain ended');
  }

  private write(outage: Outage | null, ended?: string): void {
    const last = this.last;
    try {
      this.meta.setOutage(outage && { where: outage.where, since: outage.since, cause: outage.cause });
      this.last = outage;
      if (outage && (!last || last.where !== outage.where || last.since !== outage.since)) {
        this.note({
          kind: 'outage',
          at: new Date(outage.since).toISOString(),
          subject: where(outage.where),
          message: outage.cause,
        });
      } else if (!outage && last) {
        this.note({
          kind: 'outage-over',
          subject: where(last.where),
          message: ended ?? `${last.where === 'storage' ? 'storage' : 'the capture gateway'} answered again`,
        });
      }
    } catch (err) {
      if (!this.fatal(err)) throw err;
    }
  }
}

const where = (w: Outage['where']) => (w === 'storage' ? 'storage' : 'capture gateway');
