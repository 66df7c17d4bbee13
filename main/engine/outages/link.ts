import { SLOWEST_LINK_BYTES_PER_S } from '../parts/stall.js';
import type { Bandwidth } from '../scheduling/bandwidth.js';

// The rate is measured over the last few answered parts: enough to smooth one odd part, few
// enough to follow a link that changed.
const SAMPLES = 8;
// Parts stored remembered for overtook(): more than the request slots of any engine, so a part in
// doubt is compared with every part sent since it, at any concurrency.
const OVERTAKE_SAMPLES = 64;

/**
 * One part request open on the link, as its stall watchdog sees it (part-put.ts). Times are ms
 * on the monotonic clock (performance.now()).
 */
export interface PartWatch {
  /** The part is held back by this computer's own bandwidth limit: it asks nothing of storage now. */
  holding: boolean;
  /**
   * Until when the bytes this part's connection already holds may still be draining at the rate
   * measured on it (0: nothing known to drain): a time in which silence is not yet a sign that
   * the link died (docs/engine.md, "A silent link").
   */
  drainingUntil: number;
  /** The request ended (answered, failed or abandoned). */
  close(): void;
}

/**
 * What the link to storage is doing, for the whole engine: the last sign of life from storage,
 * the part requests open on it, and the rate measured from answered parts. Tells a slow link from
 * a silent one (docs/engine.md, "A silent link"; docs/decisions/0012-silent-link-stall-timeout.md).
 *
 * A sign of life is a body byte taken by a part's connection (a write to its socket completed)
 * or an answer from storage to a part, whatever its status. While part requests are open and no
 * sign of life came for the stall timeout (past what their own connections may still be
 * draining), the link is silent: `onSilent` is told once, with the wall-clock time (ms since 1970)
 * of the last sign of life, and again only after a new sign of life and a new silence. Every
 * duration is measured on the monotonic clock: a wall-clock step neither fakes a silence nor hides one.
 */
export class LinkMonitor {
  private readonly answers: { bytes: number; startedAt: number; answeredAt: number }[] = [];
  /** The last parts storage stored (OVERTAKE_SAMPLES): what overtook() looks through. */
  private readonly stored: { bytes: number; startedAt: number; answeredAt: number }[] = [];
  private readonly watches = new Set<PartWatch>();
  /** Bytes of the parts given up for lack of an answer and being asked for at storage now (in-doubt.ts). */
  private doubtBytes = 0;
  /** When storage last turned out to hold such a part (monotonic ms): the link was delivering them. */
  private doubtFoundAt = -Infinity;
  private life = performance.now();
  private told = false;
  private timer: NodeJS.Timeout | undefined;

  /**
   * `stallTimeoutMs`: the silence (ms) after which the link counts as silent; `onSilent(since,
   * quietMs)` is called then, `since` ms since 1970 (the last sign of life), `quietMs` how long ago;
   * `slowest` is assumed only for a part smaller than the buffers, which its own connection cannot measure (part-put.ts).
   */
  constructor(
    private readonly bandwidth: Bandwidth,
    private readonly stallTimeoutMs: number,
    private readonly onSilent: (since: number, quietMs: number) => void = () => {},
    /** The slowest link the engine is built for (bytes per second; stall.ts SLOWEST_LINK_BYTES_PER_S). */
    readonly slowest = SLOWEST_LINK_BYTES_PER_S,
  ) {}

  /**
   * The link's rate in bytes per second measured from the last answered parts (capped by the
   * bandwidth limit), or undefined before any part was answered. Kept through a stall. It judges
   * whether the link itself is silent (a connection may still be draining at this rate), never
   * how long one part waits for its answer after its last byte (part-put.ts).
   */
  rate(): number | undefined {
    if (this.answers.length === 0) return undefined;
    const bytes = this.answers.reduce((n, a) => n + a.bytes, 0);
    const from = Math.min(...this.answers.map((a) => a.startedAt));
    const to = Math.max(...this.answers.map((a) => a.answeredAt));
    return Math.min(this.bandwidth.limit ?? Infinity, Math.max(1, (bytes * 1000) / Math.max(1, to - from)));
  }

  /** A sign of life from storage at `now` (ms, monotonic): a body byte taken by a connection, or an answer. */
  alive(now = performance.now()): void {
    if (now > this.life) this.life = now;
    this.told = false;
  }

  /** The monotonic time (ms) of the last sign of life from storage. */
  lastLife(): number {
    return this.life;
  }

  /**
   * A part of `bytes` was given up for lack of an answer and is asked for at storage now: it may
   * still be on the link (a slow uplink, a proxy holding its body). Counted until the returned
   * function is called (found, or sent again). See inDoubtBytes.
   */
  doubt(bytes: number): () => void {
    this.doubtBytes += bytes;
    let done = false;
    return () => {
      if (done) return;
      done = true;
      this.doubtBytes -= bytes;
    };
  }

  /**
   * Storage turned out to hold a part given up for lack of an answer (at `now`, monotonic ms):
   * its bytes reached storage after all, a sign of life, and a sign that the link is delivering
   * what is still in doubt (in-doubt.ts longSettleUntil counts from the last one).
   */
  doubtFound(now = performance.now()): void {
    this.alive(now);
    this.doubtFoundAt = Math.max(this.doubtFoundAt, now);
  }

  /** When storage last turned out to hold a part given up for lack of an answer (monotonic ms; -Infinity: never). */
  lastDoubtFound(): number {
    return this.doubtFoundAt;
  }

  /** Bytes of every part now asked for after being given up for lack of an answer (doubt), the whole engine's. */
  get inDoubtBytes(): number {
    return this.doubtBytes;
  }

  /** The slowest rate the link is assumed to carry (bytes per second): `slowest`, or the bandwidth limit when that is slower. */
  slowestRate(): number {
    return Math.min(this.slowest, this.bandwidth.limit ?? Infinity);
  }

  /** Whether part requests are open on the link and asking something of storage (not held back by the bandwidth limit). */
  asking(): boolean {
    for (const w of this.watches) if (!w.holding) return true;
    return false;
  }

  /** A part request opens on the link: watched until `close()`. */
  open(): PartWatch {
    const watches = this.watches;
    const watch: PartWatch = {
      holding: false,
      drainingUntil: 0,
      close: () => {
        watches.delete(watch);
        if (watches.size === 0 && this.timer) {
          clearInterval(this.timer);
          this.timer = undefined;
        }
      },
    };
    // A request opening after a quiet spell with nothing open (between retries, an idle queue)
    // starts the count afresh: silence counts only while storage is asked for something.
    if (watches.size === 0) this.life = Math.max(this.life, performance.now());
    watches.add(watch);
    if (!this.timer) {
      this.timer = setInterval(() => this.check(), Math.min(1000, Math.max(50, this.stallTimeoutMs / 4)));
      this.timer.unref?.();
    }
    return watch;
  }

  /**
   * When the link counts as silent at `now`: the monotonic time of its last sign of life, or
   * undefined while it is not (nothing asked of storage, a sign of life within the stall timeout,
   * or a connection that may still be draining the bytes it holds).
   */
  silentSince(now = performance.now()): number | undefined {
    let asking = false;
    let presumed = this.life;
    for (const w of this.watches) {
      if (w.holding) continue;
      asking = true;
      presumed = Math.max(presumed, w.drainingUntil);
    }
    if (!asking || now - presumed < this.stallTimeoutMs) return undefined;
    return this.life;
  }

  /**
   * Storage answered a part of `bytes` whose first byte left at `startedAt`, answered at
   * `answeredAt` (both ms on the monotonic clock, performance.now(): a wall-clock step must not
   * bend the measured rate). Also a sign of life.
   */
  answered(bytes: number, startedAt: number, answeredAt = performance.now()): void {
    this.alive(answeredAt);
    this.answers.push({ bytes, startedAt, answeredAt });
    if (this.answers.length > SAMPLES) this.answers.shift();
    this.stored.push({ bytes, startedAt, answeredAt });
    if (this.stored.length > OVERTAKE_SAMPLES) this.stored.shift();
  }

  /**
   * Whether storage stored a part of at least `bytes` whose request started after `since`
   * (monotonic ms; when a part still missing was given up, its every byte sent before): the link
   * delivered a part sent wholly behind it. On a link shared fairly, or through a proxy that
   * forwards in order, the earlier part would have arrived first; missing, it was lost
   * (docs/decisions/0034-in-doubt-long-settle.md).
   */
  overtook(since: number, bytes: number): boolean {
    return this.stored.some((s) => s.startedAt > since && s.bytes >= bytes);
  }

  private check(): void {
    if (this.told) return;
    const now = performance.now();
    const since = this.silentSince(now);
    if (since === undefined) return;
    this.told = true;
    this.onSilent(Math.round(Date.now() - (now - since)), now - since);
  }
}
