import { Transform } from 'node:stream';
import type { TransformCallback } from 'node:stream';

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

  /** Sets the limit in bytes per second (> 0), or null to remove it; takes effect on the next chunk. */
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

  /** A pass-through stream that holds each chunk until the limit allows it. */
  stream(): Transform {
    return new Transform({
      transform: (chunk: Buffer, _enc, done: TransformCallback) => {
        this.take(chunk.length).then(() => done(null, chunk), done);
      },
    });
  }
}
