import type { QueueTotals } from '../../../../shared/ipc.js';

/** The queue's state in a word or two, for across the room, and its colour (a CSS class). */
export interface Headline {
  text: string;
  tone: 'moving' | 'retrying' | 'paused' | 'needs-you' | 'done' | 'idle';
}

/**
 * What the whole queue is doing, from its totals: "Uploading" while anything moves; "Waiting"
 * for files queued while nothing uploads (registration, a pause until a time); "Waiting to
 * retry" when what is left waits for retry times; "Paused" when what is left is paused; "2 need
 * you" when only files or captures needing a person are left; "All 200 files uploaded" when done.
 * Before all that, while work is left: "Stopped" when the service refuses the queue's credentials
 * (`blocked`), "Paused until 07:00" during a pause until a time (`pausedUntil`, as shown).
 */
export function queueHeadline(t: QueueTotals, stop: { blocked?: boolean; pausedUntil?: string } = {}): Headline {
  const counted = t.files - t.cancelled;
  if (counted === 0) return { text: 'Nothing queued', tone: 'idle' };
  const left = counted - t.completed - t.needYou;
  if (stop.blocked && left > 0) return { text: 'Stopped', tone: 'needs-you' };
  if (stop.pausedUntil && left > 0) return { text: `Paused until ${stop.pausedUntil}`, tone: 'paused' };
  if (t.uploading > 0) return { text: 'Uploading', tone: 'moving' };
  if (t.queued > 0) return { text: 'Waiting', tone: 'moving' };
  if (t.retrying > 0) return { text: 'Waiting to retry', tone: 'retrying' };
  if (t.paused > 0) return { text: 'Paused', tone: 'paused' };
  if (t.needYou > 0) return { text: `${t.needYou} need${t.needYou === 1 ? 's' : ''} you`, tone: 'needs-you' };
  return { text: `All ${counted} file${counted === 1 ? '' : 's'} uploaded`, tone: 'done' };
}
