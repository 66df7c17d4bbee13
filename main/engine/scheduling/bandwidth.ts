// The bandwidth limit the queue's part PUTs share (Bandwidth), in bytes per second.
/** Whether a part's bytes are being held back by the bandwidth limit right now (read by the stall watchdog). */
export interface Pacing {
  waiting: boolean;
}

// The limit moves bytes in slices of a quarter second's worth (part-bytes.ts writes one slice at a
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
  /** When the bytes let through so far will have gone out at the limit (performance.now() ms); undefined until the first slice after a (re)set. */
  private next: number | undefined;
  constructor(private rate: number | null = null) {
    this.set(rate);
  }

  /** The limit in bytes per second, or null. */
  get limit(): number | null {
    return this.rate;
  }

  /** Sets the limit in bytes per second (> 0), or null to remove it; takes effect on the next slice. Throws RangeError. */
  set(rate: number | null): void {
    if (rate !== null && !(Number.isFinite(rate) && rate > 0))
      throw new RangeError(`bandwidth must be a positive number of bytes per second, not ${rate}`);
    this.rate = rate;
    this.next = undefined;
  }

  /**
   * Resolves once `bytes` more may be sent under the limit. Rejects with the signal's reason at
   * once when `signal` aborts (pause, quit): the wait must never outlive the part it paces.
   * Times are on the monotonic clock (performance.now()): a wall-clock step back once froze every
   * upload for the length of the step, and a quit waited on a timer no abort reached.
   */
  async take(bytes: number, signal?: AbortSignal): Promise<void> {
    signal?.throwIfAborted();
    if (!this.rate) return;
    const now = performance.now();
    // At most 250 ms of credit after an idle moment (a part ending while none other sends), so
    // the limit is not lost to short gaps yet an idle period does not turn into a burst. None at
    // the start: a quarter second's burst then overshot the limit by 6 % over 64 MiB at 16 MiB/s.
    this.next = (this.next === undefined ? now : Math.max(this.next, now - 250)) + (bytes / this.rate) * 1000;
    const wait = this.next - now;
    if (wait > 1) await pause(wait, signal);
  }

  /** The largest slice (bytes) let through at once under the current limit, or Infinity with none. */
  sliceSize(): number {
    return this.rate ? Math.max(MIN_SLICE, Math.floor(this.rate * SLICE_SECONDS)) : Infinity;
  }
}

/** Waits `ms` (a timer, which Node runs on the monotonic clock); rejects with the signal's reason as soon as it aborts. */
function pause(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
