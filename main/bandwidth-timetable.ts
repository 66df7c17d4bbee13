import type { TimetableEntry } from '../shared/bandwidth.js';
import { nextChange, rateAt } from '../shared/bandwidth.js';

/** Timers are re-armed at least this often (ms), so a clock change or a night asleep is caught up with. */
const MAX_WAIT_MS = 15 * 60_000;

/**
 * Applies a bandwidth timetable (shared/bandwidth.ts) to a running engine: the limit in force now
 * at once, then each change at its local time. `now` is injectable for tests. Returns a function
 * that stops it (the limit last set stays).
 */
export function applyTimetable(
  engine: { setBandwidth(bytesPerSecond: number | null): void },
  entries: readonly TimetableEntry[],
  onChange?: (bytesPerSecond: number | null, until: Date | null) => void,
  now: () => Date = () => new Date(),
): () => void {
  let timer: NodeJS.Timeout | undefined;
  let last: number | null | undefined;
  const tick = () => {
    const at = now();
    const rate = rateAt(entries, at);
    const until = nextChange(entries, at);
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
  return () => clearTimeout(timer);
}
