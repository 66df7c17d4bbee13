// The stall watch of one part PUT (docs/engine.md, "A silent link"; "Every wait has a deadline"):
// what the connection tells of the link, and when a part that moves nothing is given up.
import type { FailedRequest } from '../../api/errors.js';
import { NetworkError } from '../../api/errors.js';
import { DEADLINE_CODE } from '../../api/retry-table.js';
import type { LinkMonitor } from '../outages/link.js';
import type { Bandwidth, Pacing } from '../scheduling/bandwidth.js';

// A write whose completion took this long (ms) found the send buffer full: the bytes taken before
// it are what the system's buffers hold, and the pace of later writes is the link's own. A second,
// so that a busy event loop never passes for a full buffer; a link fast enough never to make a
// 256 KiB write wait that long drains its buffers well inside the stall timeout anyway.
const WAITED_WRITE_MS = 1000;

/**
 * A part's whole time on the wire (ms), not counting time its bytes are held back by this
 * computer's bandwidth limit: twice the stall timeout, plus twice its `bytes` at `minRate` (the
 * slowest link accepted, or the bandwidth limit when that is slower; bytes per second). Its
 * silences are judged by the stall rules; this bounds a link that takes its bytes, only slower
 * than any the engine is built for, and whose measured drain would otherwise let it wait for
 * ever (docs/engine.md, "Every wait has a deadline").
 */
function partDeadlineMs(bytes: number, stallTimeoutMs: number, minRate: number): number {
  return 2 * stallTimeoutMs + Math.ceil((2 * bytes * 1000) / minRate);
}

/** What the stall watch needs of the part and the engine: sizes in bytes, times in ms. */
export interface StallWatchOptions {
  partNumber: number;
  /** The part's size (bytes). */
  size: number;
  bandwidth: Bandwidth;
  link: LinkMonitor;
  stallTimeoutMs: number;
  /** Called with the bytes of this part sent so far. */
  onProgress(sent: number): void;
}

/**
 * Watches one part PUT on the monotonic clock (a wall-clock step must neither fake a stall nor
 * hide one) and calls `abort` with a NetworkError when it gives the part up:
 * - while sending, no byte moved for the stall timeout (time held back by the bandwidth limit
 *   does not count): `No progress for N s` (code ESTALLED);
 * - while a write waits on a full send buffer, and once every byte is handed over, the wait may
 *   last twice the stall timeout since the connection last took a byte, or longer only by twice
 *   what this connection measured its own buffers to need at its own rate (the buffer holds
 *   several MiB, and a write on a 32 KiB/s link waited 35 s while bytes moved all along), else at
 *   the rate of the link's recent answers; a part smaller than the buffers with nothing measured
 *   at all, by its own bytes at the slowest link assumed (LinkMonitor.slowest);
 * - its whole time on the wire past partDeadlineMs: `Storage answers too slowly` (DEADLINE_CODE).
 * Every byte taken is a sign of life for the LinkMonitor, which tells a silent link. One timer
 * per part, not one per chunk: each write only stamps the time, the timer judges it. `close()`
 * ends the watch; it must be called however the PUT ends.
 */
export class PartStallWatch {
  /** Handed to the PUT: set while the bandwidth limit holds its bytes back. */
  readonly pacing: Pacing = { waiting: false };
  /** Set when this watch gave the part up. */
  stalled = false;
  /** When every byte of the part had been handed to the system (performance.now() ms), if it has. */
  sentAt: number | undefined;
  private lastMove: number;
  private writing = false;
  private writeStartedAt: number;
  // The bytes of this part handed to the system so far.
  private onLink = 0;
  // What this connection tells of the link (docs/engine.md, "A silent link"): the bytes it took
  // at once before its first write had to wait (what the system's buffers hold once full), and
  // from then on the rate at which it took more: the rate at which those buffers drain.
  private burst: number | undefined;
  private burstEnd = 0;
  private ownRate: number | undefined;
  // Its whole time on the wire, less what the bandwidth limit held back (partDeadlineMs).
  private readonly slowest: number;
  private readonly deadlineMs: number;
  private onWireMs = 0;
  private lastTick: number;
  private readonly watch: ReturnType<LinkMonitor['open']>;
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly opts: StallWatchOptions,
    private readonly request: FailedRequest,
    private readonly abort: (reason: NetworkError) => void,
    startedAt: number,
  ) {
    this.lastMove = this.writeStartedAt = this.lastTick = startedAt;
    this.watch = opts.link.open();
    this.slowest = Math.min(opts.link.slowest, opts.bandwidth.limit ?? Infinity);
    this.deadlineMs = partDeadlineMs(opts.size, opts.stallTimeoutMs, this.slowest);
    this.timer = setInterval(() => this.tick(), Math.min(1000, Math.max(50, opts.stallTimeoutMs / 4)));
  }

  /** The PUT's write began (`true`) or the connection took its bytes (`false`). */
  readonly onWriting = (w: boolean): void => {
    const now = performance.now();
    this.writing = w;
    if (w) this.writeStartedAt = now;
    else {
      // The connection took the bytes: a sign of life from storage (its buffers had room).
      if (this.burst === undefined && now - this.writeStartedAt >= WAITED_WRITE_MS) {
        this.burst = this.onLink;
        this.burstEnd = this.writeStartedAt;
      }
      this.opts.link.alive(now);
    }
    this.lastMove = now;
  };

  /** `sent` bytes of the part are handed to the system so far. */
  readonly onSent = (sent: number): void => {
    const now = performance.now();
    this.lastMove = now;
    this.onLink = sent;
    if (this.burst !== undefined && now - this.burstEnd >= 1)
      this.ownRate = ((sent - this.burst) * 1000) / (now - this.burstEnd);
    if (sent >= this.opts.size && this.sentAt === undefined) this.sentAt = this.lastMove;
    this.opts.onProgress(sent);
  };

  /** Ends the watch: its timer and its place in the LinkMonitor. */
  close(): void {
    clearInterval(this.timer);
    this.watch.close();
  }

  // How long the bytes this connection holds may still take to reach storage (ms): at its own
  // drain rate when measured, else at the rate measured from answered parts, else unknown (0).
  private drainMs(): number {
    if (this.ownRate !== undefined) return ((this.burst ?? 0) * 1000) / this.ownRate;
    const rate = this.opts.link.rate();
    return rate === undefined ? 0 : (this.onLink * 1000) / rate;
  }

  // Nothing measured at all, and every byte taken at once (the part is smaller than the buffers):
  // its own bytes at the slowest link the engine is built for. Not counted as life for the link.
  // A part whose own connection measured nothing takes the rate of the link's recent answers
  // (drainMs): without it, a part the buffers took at once on a silent link would wait its
  // bytes at the slowest link, past twice the stall timeout (docs/engine.md, "A silent link").
  private assumedDrainMs(): number {
    return this.sentAt !== undefined && this.burst === undefined && this.opts.link.rate() === undefined
      ? (this.onLink * 1000) / Math.min(this.opts.link.slowest, this.opts.bandwidth.limit ?? Infinity)
      : 0;
  }

  private tick(): void {
    const now = performance.now();
    if (!this.pacing.waiting) this.onWireMs += now - this.lastTick;
    this.lastTick = now;
    if (this.onWireMs >= this.deadlineMs) {
      this.stalled = true;
      this.abort(
        new NetworkError(
          `Storage answers too slowly: part ${this.opts.partNumber} took ${Math.round(this.onWireMs / 1000)} s for ${this.onLink} of ${this.opts.size} bytes, more than a part of this size may take (${Math.round(this.deadlineMs / 1000)} s at the slowest link accepted, ${Math.round(this.slowest / 1024)} KiB/s)`,
          this.request,
          DEADLINE_CODE,
        ),
      );
      return;
    }
    if (this.pacing.waiting) this.lastMove = now;
    this.watch.holding = this.pacing.waiting;
    // While a write waits for room in the send buffer, and once every byte is handed over, the
    // link is carrying what the buffers hold: nothing shows it until a write completes or
    // storage answers. The wait is bounded by twice the stall timeout, or longer only by what
    // this very connection measured its buffers to need (at 32 KiB/s the ~4 MiB the system
    // buffers take 128 s), never by what the rest of the queue has in flight.
    const onTheLink = this.sentAt !== undefined || this.writing;
    const drain = onTheLink ? this.drainMs() : 0;
    this.watch.drainingUntil = onTheLink ? this.lastMove + drain : 0;
    const stall = this.opts.stallTimeoutMs;
    const allowance = onTheLink ? Math.max(2 * stall, stall + 2 * drain, stall + this.assumedDrainMs()) : stall;
    const quietFor = now - this.lastMove;
    if (quietFor < allowance) return;
    this.stalled = true;
    this.abort(new NetworkError(`No progress for ${Math.round(quietFor / 1000)} s`, this.request, 'ESTALLED'));
  }
}
