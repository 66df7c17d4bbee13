/** Whether a part's bytes are being held back by the bandwidth limit right now (read by the stall watchdog). */
export interface Pacing {
  waiting: boolean;
}

// The limit moves bytes in slices of a quarter second's worth (part-wire.ts writes one slice at a
// time), so a slow limit (8 KiB/s) moves 2 KiB at a time: progress stays smooth and no slice
// waits long enough to look like a stall.
const SLICE_SECONDS = 0.25;
const MIN_SLICE = 1024;

/**
 * A bandwidth limit shared by every part upload: a token bucket whose rate (bytes per second,
 * null for none) can change while uploads run. With a burst of at most a quarter second, the
 * measured rate follows the limit closely instead of overshooting after a pause.
 */
export class Bandwidth {
  private next = 0;
  constructor(private rate: number | null = null) {
    this.set(rate);
  }

  /** The limit in bytes per second, or null. */
  get limit(): number | null {
    return this.rate;
  }

  /** Sets the limit in bytes per second (> 0), or null to remove it; takes effect on the next slice. Throws RangeError. */
  set(rate: number | null): void {
    if (rate !== null && !(Number.isFinite(rate) && rate > 0)) throw new RangeError(`bandwidth must be a positive number of bytes per second, not ${rate}`);
    this.rate = rate;
    this.next = 0;
  }

  /** Resolves once `bytes` more may be sent under the limit. */
  async take(bytes: number): Promise<void> {
    if (!this.rate) return;
    const now = Date.now();
    // Allow at most 250 ms of credit so an idle period does not turn into a burst.
    this.next = Math.max(this.next, now - 250) + (bytes / this.rate) * 1000;
    const wait = this.next - now;
    if (wait > 1) await new Promise((r) => setTimeout(r, wait));
  }

  /** The largest slice (bytes) let through at once under the current limit, or Infinity with none. */
  sliceSize(): number {
    return this.rate ? Math.max(MIN_SLICE, Math.floor(this.rate * SLICE_SECONDS)) : Infinity;
  }
}
