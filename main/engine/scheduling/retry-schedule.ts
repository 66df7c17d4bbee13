/**
 * When to try again, by itself, a file or a registration that failed for a reason that may pass
 * (network down, storage or gateway 5xx, timeouts): the durable schedule whose times live in the
 * queue (migration 3), so a restart, the desktop app and the CLI's `drain --wait` all keep it.
 * It sits above the per-request retries of §7–§8, which have already been spent when it is used.
 */
export interface RetrySchedule {
  /** Wait before automatic attempt `attempt` (0-based: the first retry after a failure), in ms. */
  delayMs(attempt: number): number;
  /**
   * The longest wait `delayMs` ever answers (ms); default 15 min. A stored retry time further
   * ahead than this at start is taken as a step of the wall clock and is due at once (clock.ts).
   */
  maxDelayMs?: number;
}

/**
 * The overnight schedule: 15 s, 30 s, 1 min, 2 min… doubling up to every 15 min, each wait
 * shortened by up to a tenth at random so that files failed by the same outage do not all come
 * back in the same second. It never gives up: a queue left overnight drains after any outage.
 */
export function overnightRetrySchedule(baseMs = 15_000, maxMs = 15 * 60_000): RetrySchedule {
  return {
    maxDelayMs: maxMs,
    delayMs: (attempt) => Math.round(Math.min(maxMs, baseMs * 2 ** Math.min(attempt, 30)) * (1 - Math.random() * 0.1)),
  };
}
