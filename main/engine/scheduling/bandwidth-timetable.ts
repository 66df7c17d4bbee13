import type { TimetableEntry } from '../../../shared/bandwidth.js';
import { nextChange, pausedAt, rateAt } from '../../../shared/bandwidth.js';

/** Timers are re-armed at least this often (ms), so a clock change or a night asleep is caught up with. */
const MAX_WAIT_MS = 15 * 60_000;

/**
 * What a timetable drives: the bandwidth limit, and (optionally) the queue-wide hold of its
 * `pause` hours (UploadEngine.holds.byTimetable: until ISO 8601, undefined to end it).
 */
export interface TimetableTarget {
  setBandwidth(bytesPerSecond: number | null): void;
  holds?: { byTimetable(until: string | undefined): void };
}

/**
 * Applies a bandwidth timetable (shared/bandwidth.ts) to a running engine: the limit in force now
 * at once, then each change at its local time; during a `pause` entry the queue is held until the
 * next change (a queue-wide hold, not each file's pause). `now` is injectable for tests. Returns a
 * function that stops it (the limit last set stays; a pause hold in force ends).
 */
export function applyTimetable(
  engine: TimetableTarget,
  entries: readonly TimetableEntry[],
  onChange?: (bytesPerSecond: number | null, until: Date | null) => void,
  now: () => Date = () => new Date(),
): () => void {
  let timer: NodeJS.Timeout | undefined;
  let last: number | null | undefined;
  let stopped = false;
  const tick = () => {
    const at = now();
    const rate = rateAt(entries, at);
    const until = nextChange(entries, at);
    // Set at every tick: the hold's end moves with the next change, and an ended one is cleared.
    engine.holds?.byTimetable(pausedAt(entries, at) && until ? until.toISOString() : undefined);
    if (rate !== last) {
      last = rate;
      engine.setBandwidth(rate);
      onChange?.(rate, until);
    }
    if (!until) return;
    timer = setTimeout(tick, Math.min(MAX_WAIT_MS, Math.max(1000, until.getTime() - at.getTime())));
    timer.unref?.();
  };
  tick();
  return () => {
    if (stopped) return;
    stopped = true;
    clearTimeout(timer);
    engine.holds?.byTimetable(undefined);
  };
}
