import type { QueueHold } from '../queue/meta.js';
import type { UploadQueue } from '../queue/queue.js';
import type { EngineEvent } from './events.js';

/**
 * The queue-wide holds (QueueHold, issue 17 #17): a person's "Pause until 07:00" and the bandwidth
 * timetable's pause hours, kept in the queue's meta table apart from each file's own state. A
 * change is committed with its activity line, then announced (`hold`, with the hold in force
 * after it); `changed` then lets the engine stop parts in flight (held) or wake the drain (ended).
 */
export class Holds {
  constructor(
    private readonly queue: UploadQueue,
    private readonly emit: (e: EngineEvent) => void,
    private readonly changed: (held: boolean) => void,
  ) {}

  /** The hold in force now (a person's before the timetable's), or null. */
  get current(): QueueHold | null {
    return this.queue.meta.holdInForce();
  }

  /**
   * Sets the hold of `by` until `until` (ISO 8601; null: until ended by hand) or ends it
   * (undefined). Setting what is already stored writes nothing. Throws SqliteError on a storage failure.
   */
  set(by: QueueHold['by'], until: string | null | undefined): void {
    const q = this.queue;
    const stored = q.meta.get<{ until: string | null }>(by === 'person' ? 'hold' : 'timetableHold');
    if (stored ? stored.until === until : until === undefined) return;
    const entry = q.db.transaction(() => {
      q.meta.setHold(by, until);
      const message = until === undefined ? `Hold ended (${by === 'person' ? 'by a person' : 'by the timetable'}); files paused one by one stay paused` : holdMessage({ until, by });
      return q.activity.add({ captureRow: null, fileId: null, subject: 'queue', kind: until === undefined ? 'released' : 'held', message });
    })();
    this.emit({ type: 'activity', entry });
    // Announced after every write: a hold whose time passed already reads as none, and its end must still reach the screen.
    const after = this.current;
    this.emit({ type: 'hold', hold: after });
    this.changed(after !== null);
  }
}

/** When a hold ends (ms since epoch; Infinity when a person must end it), or null when none is in force. */
export function holdEnd(h: QueueHold | null): number | null {
  if (!h) return null;
  return h.until === null ? Infinity : Date.parse(h.until);
}

/**
 * A hold in words, times local: "Paused until 07:00" (with the day when not today), "Paused by the
 * timetable until 18:00", or "Paused until resumed" — the words the app's queue screen uses.
 */
export function holdLabel(h: Pick<QueueHold, 'until'> & Partial<Pick<QueueHold, 'by'>>, now = new Date()): string {
  const by = h.by === 'timetable' ? 'Paused by the timetable' : 'Paused';
  if (h.until === null) return `${by} until resumed`;
  const at = new Date(h.until);
  const clock = at.toLocaleTimeString('en-GB', { hour: '2-digit', minute: '2-digit' });
  const sameDay = at.toDateString() === now.toDateString();
  return `${by} until ${clock}${sameDay ? '' : ` on ${at.toLocaleDateString('en-GB', { weekday: 'short', day: 'numeric', month: 'short' })}`}`;
}

/** What a hold means, for the activity log, a drain's warning and `status`: its label, then that nothing starts. */
export function holdMessage(h: Pick<QueueHold, 'until'> & Partial<Pick<QueueHold, 'by'>>, now = new Date()): string {
  return `${holdLabel(h, now)}: no upload starts before then (files paused one by one stay paused after it)`;
}
