import type { CallWatch } from '../api/http.js';

/**
 * What the capture gateway is doing, for the whole engine: its calls open now (presign-missing,
 * complete-batch, the status read, add-capture: every try, CaptureGateway.watchCalls) and its last
 * sign of life, on the monotonic clock (docs/engine.md, "A silent capture gateway").
 *
 * A sign of life is anything the gateway sends back: an answer's headers, a byte of its body, its
 * end, whatever the status. While calls are open and none came for the stall timeout, the
 * gateway is silent: `onSilent(since, quietMs)` is told, `since` the wall-clock time (ms
 * since 1970) of the last sign of life and `quietMs` how long ago, once it takes it (answers
 * anything but false; false: asked again at the next check); after that, the first sign of
 * life tells `onAnswer()` once. Silence counts only while the gateway is asked for something: a
 * call opening with none open starts the count afresh. Counting silence, never the length of an
 * answer, a §4.5 answer of thousands of URLs arriving slowly is life all along.
 */
export class GatewayMonitor {
  private open = 0;
  private life = performance.now();
  private told = false;
  private timer: NodeJS.Timeout | undefined;

  /** `stallTimeoutMs`: the silence (ms) after which the gateway counts as silent (stall.ts STALL_TIMEOUT_MS). */
  constructor(
    private readonly stallTimeoutMs: number,
    private readonly onSilent: (since: number, quietMs: number) => boolean | void,
    private readonly onAnswer: () => void,
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
    return {
      alive: () => this.alive(),
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

  private alive(): void {
    this.life = Math.max(this.life, performance.now());
    if (!this.told) return;
    this.told = false;
    this.onAnswer();
  }

  private check(): void {
    if (this.told) return;
    const now = performance.now();
    const since = this.silentSince(now);
    if (since === undefined) return;
    this.told = this.onSilent(Math.round(Date.now() - (now - since)), now - since) !== false;
  }
}
