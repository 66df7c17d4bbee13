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
 * The overnight schedule: attempt n waits at random, evenly, between 15 s and
 * min(15 min, 15 s × 2^(n+1)): 15–30 s, 15–60 s, 15 s–2 min … 15 s–15 min. The waits are spread
 * over the whole interval ("full jitter", never sooner than the first wait), so the clients an
 * outage failed together come back spread over it rather than together; it never gives up, so a
 * queue left overnight drains after any outage (docs/decisions/0040-full-jitter.md). `random`
 * gives [0, 1) (tests pin it).
 */
export function overnightRetrySchedule(baseMs = 15_000, maxMs = 15 * 60_000, random = Math.random): RetrySchedule {
  return {
    maxDelayMs: maxMs,
    delayMs: (attempt) => {
      const ceiling = Math.max(baseMs, Math.min(maxMs, baseMs * 2 ** Math.min(attempt + 1, 30)));
      return Math.round(Math.min(baseMs, maxMs) + random() * (ceiling - Math.min(baseMs, maxMs)));
    },
  };
}
