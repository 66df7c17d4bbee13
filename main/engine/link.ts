import type { Bandwidth } from './throttle.js';

// The rate is measured over the last few answered parts: enough to smooth one odd part, few
// enough to follow a link that changed.
const SAMPLES = 8;

/**
 * What the link to storage is doing, for the whole engine, so the stall watchdog can tell a slow
 * link from a dead one.
 *
 * While a part's bytes are still going out, progress is visible: a part that moves nothing for
 * the stall timeout is stalled. Once its last byte is handed to the socket, up to several MiB may
 * still sit in the system's send buffers and reach storage only at the link's real rate; storage
 * answers after the last of them. So the wait for an answer is judged against the rate measured
 * from answered parts (bytes over the time from first byte to answer, over the last few parts),
 * and against all bytes handed over but not yet answered, which share the link. Before any
 * answer, the slowest rate the engine is configured for (`floor`, bytes per second) stands in.
 */
export class LinkMonitor {
  private readonly answers: { bytes: number; startedAt: number; answeredAt: number }[] = [];
  private unanswered = 0;

  constructor(
    private readonly floor: number,
    private readonly bandwidth: Bandwidth,
  ) {}

  /** The link's rate in bytes per second: measured from answered parts, else the floor (or the bandwidth limit, if lower). */
  rate(): number {
    const limit = this.bandwidth.limit ?? Infinity;
    if (this.answers.length === 0) return Math.min(this.floor, limit);
    const bytes = this.answers.reduce((n, a) => n + a.bytes, 0);
    const from = Math.min(...this.answers.map((a) => a.startedAt));
    const to = Math.max(...this.answers.map((a) => a.answeredAt));
    return Math.max(1, (bytes * 1000) / Math.max(1, to - from));
  }

  /** `bytes` more of a part were handed to the socket; call the returned function once when the part is answered or abandoned. */
  handedOver(bytes: number): () => void {
    this.unanswered += bytes;
    let settled = false;
    return () => {
      if (settled) return;
      settled = true;
      this.unanswered -= bytes;
    };
  }

  /**
   * A part waited longer than its allowance: the rate measured so far no longer holds (storage or
   * the link slowed down), so it is forgotten and the floor stands in until parts are answered
   * again. Without this, a link that slowed after fast parts stalled every retry of the same part.
   */
  stalled(): void {
    this.answers.length = 0;
  }

  /**
   * Storage answered a part of `bytes` whose first byte left at `startedAt`, answered at
   * `answeredAt` (both ms on the monotonic clock, performance.now(): a wall-clock step must not
   * bend the measured rate).
   */
  answered(bytes: number, startedAt: number, answeredAt = performance.now()): void {
    this.answers.push({ bytes, startedAt, answeredAt });
    if (this.answers.length > SAMPLES) this.answers.shift();
  }

  /**
   * How long (ms) a fully sent part may wait for its answer before it counts as stalled: the
   * stall timeout (`stallTimeoutMs`) plus twice the time the link needs, at its rate, for every
   * byte handed over and not yet answered.
   */
  answerAllowanceMs(stallTimeoutMs: number): number {
    return stallTimeoutMs + (2 * this.unanswered * 1000) / this.rate();
  }
}
