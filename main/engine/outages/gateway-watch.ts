import type { CallWatch } from '../../api/http.js';
import { SLOWEST_LINK_BYTES_PER_S } from '../../api/http.js';

/**
 * What the capture gateway is doing, for the whole engine: its calls open now (presign-missing,
 * complete-batch, the status read, add-capture: every try, CaptureGateway.watchCalls) and its last
 * sign of life, on the monotonic clock (docs/engine.md, "A silent capture gateway").
 *
 * It counts answers, not bytes. A sign of life is an answer beginning (its headers, whatever the
 * status) or ending; the bytes of an answer's body count only at the pace they came, as life up to
 * the time they would have taken at the slowest link accepted (`minRate`): a §4.5 answer of
 * thousands of URLs arriving at 32 KiB/s is life all along, one that sends a space a second is
 * not. While calls are open and no life came for the stall timeout, the gateway is silent, or
 * too slow when bytes did trickle in meanwhile: `onSilent(since, quietMs, trickling)` is told,
 * `since` the wall-clock time (ms since 1970) of the last sign of life and `quietMs` how long ago,
 * once it takes it (answers anything but false; false: asked again at the next check); after
 * that, the first answer, or body bytes keeping pace again, tells `onAnswer()` once. Silence counts
 * only while the gateway is asked for something: a call opening with none open starts the count afresh.
 */
export class GatewayMonitor {
  private open = 0;
  private life = performance.now();
  /** When the gateway last answered (monotonic ms): an answer began or ended, or body bytes kept pace. */
  private answered = -Infinity;
  private told = false;
  private timer: NodeJS.Timeout | undefined;

  /** Body bytes that came since the last sign of life without keeping the slowest link's pace. */
  private trickled = 0;

  /**
   * `stallTimeoutMs`: the silence (ms) after which the gateway counts as silent (stall.ts
   * STALL_TIMEOUT_MS); `minRate`: the slowest link accepted (bytes per second; http.ts
   * SLOWEST_LINK_BYTES_PER_S), the pace at which an answer's bytes count as life.
   */
  constructor(
    private readonly stallTimeoutMs: number,
    private readonly onSilent: (since: number, quietMs: number, trickling: boolean) => boolean | void,
    private readonly onAnswer: () => void,
    private readonly minRate = SLOWEST_LINK_BYTES_PER_S,
  ) {}

  /** A try of a call opens: watched until its `close()`. */
  call(): CallWatch {
    if (this.open === 0) this.life = Math.max(this.life, performance.now());
    this.open++;
    if (!this.timer) {
      this.timer = setInterval(() => this.check(), Math.min(1000, Math.max(50, this.stallTimeoutMs / 4)));
      this.timer.unref?.();
    }
    let closed = false;
    // When this answer's body began, and how many of its bytes came (to credit them at minRate).
    let bodyFrom: number | undefined;
    let bytes = 0;
    return {
      alive: () => this.alive(),
      received: (total) => {
        const now = performance.now();
        bodyFrom ??= now;
        const fresh = total - bytes;
        bytes = total;
        // Life up to when these bytes would have come at the slowest link accepted, never later than now.
        const credit = Math.min(now, bodyFrom + (total * 1000) / this.minRate);
        if (credit >= now - 1) {
          bodyFrom = Math.max(bodyFrom, now - (total * 1000) / this.minRate); // a pause later is not covered by bytes earlier
          return this.alive();
        }
        if (fresh > 0) this.trickled += fresh;
        this.life = Math.max(this.life, credit);
      },
      close: () => {
        if (closed) return;
        closed = true;
        if (--this.open === 0 && this.timer) {
          clearInterval(this.timer);
          this.timer = undefined;
        }
      },
    };
  }

  /** Counts the gateway's silence afresh from now (its owner judged the silence so far another's). */
  afresh(): void {
    this.life = Math.max(this.life, performance.now());
  }

  /**
   * When the gateway counts as silent at `now` (ms, monotonic): the monotonic time of its last
   * sign of life, or undefined while it is not (no call open, or a sign of life within the stall timeout).
   */
  silentSince(now = performance.now()): number | undefined {
    return this.open > 0 && now - this.life >= this.stallTimeoutMs ? this.life : undefined;
  }

  /** Whether the gateway answered anything within the last `ms` milliseconds (monotonic clock). */
  answeredWithin(ms: number, now = performance.now()): boolean {
    return now - this.answered <= ms;
  }

  private alive(): void {
    this.life = Math.max(this.life, performance.now());
    this.answered = performance.now();
    this.trickled = 0;
    if (!this.told) return;
    this.told = false;
    this.onAnswer();
  }

  private check(): void {
    if (this.told) return;
    const now = performance.now();
    const since = this.silentSince(now);
    if (since === undefined) return;
    this.told = this.onSilent(Math.round(Date.now() - (now - since)), now - since, this.trickled > 0) !== false;
  }
}
