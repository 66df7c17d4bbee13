import type { QueueDatabase } from '../../queue/db.js';
import { dueRetryTimesBeyond, shiftRetryTimes } from '../../queue/writer.js';

/**
 * The longest wait the durable retry schedule ever asks for (ms): a stored retry time further
 * ahead than this (plus STEP_TOLERANCE_MS) can only come from a wall clock that stepped back
 * while no engine ran, and is due at once.
 */
export const MAX_RETRY_WAIT_MS = 15 * 60_000;
/** A difference between the wall clock and the monotonic clock smaller than this (ms) is drift, not a step. */
const STEP_TOLERANCE_MS = 2000;

/**
 * The engine's time for the durable retry schedule (README: time and clocks).
 *
 * Retry times are stored in the queue as ms since the epoch, so that a restart, the CLI and the
 * app all keep them and people can read them. Waiting for them, though, runs on the monotonic
 * clock (performance.now(), which an NTP correction or a daylight-saving step of a clock that
 * keeps local time does not move): `now()` is the wall clock as read at the last `check()`,
 * advanced by the monotonic clock since. `check()` compares both clocks; when the wall clock has
 * stepped, it moves every stored retry time by the same step (one transaction), so each wait keeps
 * the length it was scheduled with and the times people read match their clock again. Without
 * this, a step back of an hour after a retry was scheduled made it wait the full hour.
 *
 * Steps while no engine runs cannot be measured: at start, a stored time further ahead than the
 * longest retry wait is taken as such a step and made due at once (`clampFuture`).
 */
export class QueueClock {
  private offset: number;

  constructor(
    private readonly db: QueueDatabase,
    private readonly wall: () => number = Date.now,
    private readonly mono: () => number = () => performance.now(),
  ) {
    this.offset = this.wall() - this.mono();
  }

  /** Ms since the epoch on the queue's time line: the wall clock at the last check, advanced monotonically. */
  now(): number {
    return Math.round(this.mono() + this.offset);
  }

  /**
   * Compares the wall clock with the monotonic one; when it stepped by STEP_TOLERANCE_MS or more,
   * moves the stored retry times of pending files and queued captures by the step and answers the
   * step (ms, negative when the clock went back), else 0. Throws what SQLite throws.
   */
  check(): number {
    const offset = this.wall() - this.mono();
    const step = Math.round(offset - this.offset);
    if (Math.abs(step) < STEP_TOLERANCE_MS) return 0;
    shiftRetryTimes(this.db, step);
    this.offset = offset;
    return step;
  }

  /**
   * Makes due now every stored retry time more than `maxWaitMs` (+ STEP_TOLERANCE_MS) ahead: the
   * wall clock stepped back while no engine ran. Answers how many rows changed. Throws what SQLite throws.
   */
  clampFuture(maxWaitMs = MAX_RETRY_WAIT_MS): number {
    const now = this.now();
    const limit = now + maxWaitMs + STEP_TOLERANCE_MS;
    return dueRetryTimesBeyond(this.db, now, limit);
  }
}
