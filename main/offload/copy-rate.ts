/**
 * A copy's speed and time left, from its bytes copied as they grow: the bytes copied over the
 * last `windowMs` (5 s by default) divided by that time, never by less than 1 s, so the first
 * chunk written does not read as a burst. Long enough that a card read in 8 MiB chunks
 * (main/offload/copy.ts CHUNK_BYTES) reads as a steady rate, short enough to follow the reader
 * slowing down. The clock is injected (milliseconds, any origin; performance.now by default) so
 * tests can step it.
 */
export class CopyRate {
  /** Samples within the window, oldest first; the first is the window's anchor. */
  private readonly samples: { t: number; done: number }[];
  private readonly since: number;

  constructor(
    private readonly clock: () => number = () => performance.now(),
    private readonly windowMs = 5000,
    private readonly minElapsedMs = 1000,
  ) {
    this.since = clock();
    this.samples = [{ t: this.since, done: 0 }];
  }

  /**
   * Takes the bytes copied so far (`bytesDone`, never more than `bytesTotal`) and answers the
   * smoothed rate in bytes per second (rounded; 0 before any byte moved) and the seconds left
   * (rounded up): null while unknown, that is before a second of copying has passed or while
   * nothing moves; 0 once every byte is copied.
   */
  sample(bytesDone: number, bytesTotal: number): { bytesPerSecond: number; secondsLeft: number | null } {
    const now = this.clock();
    this.samples.push({ t: now, done: bytesDone });
    // Keep one sample at or before the window's start as the anchor the rate is measured from.
    while (this.samples.length > 2 && this.samples[1]!.t <= now - this.windowMs) this.samples.shift();
    const anchor = this.samples[0]!;
    const moved = Math.max(0, bytesDone - anchor.done);
    const rate = (moved * 1000) / Math.max(this.minElapsedMs, now - anchor.t);
    const left = Math.max(0, bytesTotal - bytesDone);
    let secondsLeft: number | null = null;
    if (left === 0) secondsLeft = 0;
    else if (rate > 0 && now - this.since >= this.minElapsedMs) secondsLeft = Math.ceil(left / rate);
    return { bytesPerSecond: Math.round(rate), secondsLeft };
  }
}
