import type { QueueHold } from '../../queue/meta.js';
import type { UploadQueue } from '../../queue/queue.js';
import { whenAt } from '../../../shared/when.js';
import type { EngineEvent } from '../events.js';

/**
 * The queue-wide holds (QueueHold): a person's "Pause until 07:00" and the bandwidth
 * timetable's pause hours, kept in the queue's meta table apart from each file's own state, so
 * a hold outlives a restart and its end resumes no file a person paused. While one holds, the
 * Scheduler starts no file (captures are still registered: a small request each). A change is
 * committed with its activity line, then announced (`hold`, with the hold in force after it);
 * `changed` then lets the engine stop parts in flight (held: their files go back to `pending`,
 * stored parts kept) or wake the drain (ended).
 */
export class Holds {
  /** `fatal` answers whether an error was the queue's storage failing (the engine then stops). */
  constructor(
    private readonly queue: UploadQueue,
    private readonly emit: (e: EngineEvent) => void,
    private readonly changed: (held: boolean) => void,
    private readonly fatal: (err: unknown) => boolean,
  ) {}

  /** The hold in force now (a person's before the timetable's), or null. */
  get current(): QueueHold | null {
    return this.queue.meta.holdInForce();
  }

  /** A person's hold as stored, whether or not its time has passed (UploadLimits ends it then), or null. */
  get person(): QueueHold | null {
    return this.queue.meta.hold('person', -Infinity);
  }

  /** When the hold in force ends (ms since epoch; Infinity: by hand), or null when none holds. */
  endsAt(): number | null {
    return holdEnd(this.current);
  }

  /** A person holds the queue until `until` (ISO 8601), or until `release` (null). Throws SqliteError on a storage failure. */
  holdUntil(until: string | null): void {
    this.set('person', until);
  }

  /** Ends a person's hold now (the timetable's pause hours still hold, if in force). Throws SqliteError on a storage failure. */
  release(): void {
    this.set('person', undefined);
  }

  /**
   * The timetable's pause hours: held until `until` (ISO 8601, its next change), or ended
   * (undefined). Called from timers: a queue that cannot be written stops the engine instead of throwing.
   */
  byTimetable(until: string | undefined): void {
    try {
      this.set('timetable', until);
    } catch (err) {
      if (!this.fatal(err)) throw err;
    }
  }

  /** Sets (`until`, null: open-ended) or ends (undefined) the hold of `by`; what is already stored writes nothing. */
  private set(by: QueueHold['by'], until: string | null | undefined): void {
    const q = this.queue;
    const stored = q.meta.get<{ until: string | null }>(by === 'person' ? 'hold' : 'timetableHold');
    if (stored ? stored.until === until : until === undefined) return;
    const entry = q.transaction(() => {
      q.meta.setHold(by, until);
      const message =
        until === undefined
          ? `Hold ended (${by === 'person' ? 'by a person' : 'by the timetable'}); files paused one by one stay paused`
          : holdMessage({ until, by });
      return q.activity.add({
        captureRow: null,
        fileId: null,
        subject: 'queue',
        kind: until === undefined ? 'released' : 'held',
        message,
      });
    })();
    this.emit({ type: 'activity', entry });
    // Announced after every write: a hold whose time passed already reads as none, and its end must still reach the screen.
    const after = this.current;
    this.emit({ type: 'hold', hold: after });
    this.changed(after !== null);
  }
}

/** When a hold ends (ms since epoch; Infinity when a person must end it), or null when none is in force. */
function holdEnd(h: QueueHold | null): number | null {
  if (!h) return null;
  return h.until === null ? Infinity : Date.parse(h.until);
}

/**
 * A hold in words, in the one time format (shared/when.ts whenAt: the locale's clock, the date
 * when not today): "Paused until 07:00", "Paused by the timetable until 18:00", or
 * "Paused until resumed" — the words the app's queue screen uses. `locale` (BCP 47) for tests.
 */
function holdLabel(
  h: Pick<QueueHold, 'until'> & Partial<Pick<QueueHold, 'by'>>,
  now = new Date(),
  locale?: string,
): string {
  const by = h.by === 'timetable' ? 'Paused by the timetable' : 'Paused';
  if (h.until === null) return `${by} until resumed`;
  return `${by} until ${whenAt(h.until, { now: now.getTime(), locale })}`;
}

/** What a hold means, for the activity log, a drain's warning and `status`: its label, then that nothing starts. */
export function holdMessage(
  h: Pick<QueueHold, 'until'> & Partial<Pick<QueueHold, 'by'>>,
  now = new Date(),
  locale?: string,
): string {
  // An open-ended hold has no "then": it lasts until a person resumes the queue.
  const until = h.until === null ? 'no upload starts until the queue is resumed' : 'no upload starts before then';
  return `${holdLabel(h, now, locale)}: ${until} (files paused one by one stay paused after it)`;
}
