import { CancelledError } from '../api/errors.js';

interface Waiter {
  priority: number;
  seq: number;
  grant: () => void;
  reject: (err: unknown) => void;
}

/**
 * One request limit shared by every file (Uppy's RateLimitedQueue): at most `limit` part uploads
 * at once. Waiters with a lower `priority` number go first (the older file finishes first), ties
 * in arrival order. On 429/SlowDown (`slowDown()`) the limit drops to one and climbs back by one
 * per success. The limit can be changed while running.
 */
export class Limiter {
  private active = 0;
  private effective: number;
  private seq = 0;
  private readonly waiters: Waiter[] = [];

  constructor(private max: number) {
    if (!Number.isInteger(max) || max < 1) throw new RangeError(`concurrency must be a whole number ≥ 1, not ${max}`);
    this.effective = max;
  }

  /** The configured limit. */
  get limit(): number {
    return this.max;
  }

  /** Uploads running now. */
  get running(): number {
    return this.active;
  }

  /** Changes the limit (≥ 1); more waiters start at once when it grows. */
  setLimit(n: number): void {
    if (!Number.isInteger(n) || n < 1) throw new RangeError(`concurrency must be a whole number ≥ 1, not ${n}`);
    this.max = n;
    this.effective = Math.min(this.effective, n) || 1;
    if (this.effective < n && this.active < n) this.effective = n;
    this.pump();
  }

  /**
   * Waits for a slot and returns its release function (call it exactly once).
   * Rejects with CancelledError when `signal` aborts first.
   */
  acquire(priority: number, signal?: AbortSignal): Promise<() => void> {
    if (signal?.aborted) return Promise.reject(new CancelledError());
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        priority,
        seq: this.seq++,
        grant: () => {
          signal?.removeEventListener('abort', onAbort);
          this.active++;
          let released = false;
          resolve(() => {
            if (released) return;
            released = true;
            this.active--;
            this.pump();
          });
        },
        reject,
      };
      const onAbort = () => {
        const i = this.waiters.indexOf(waiter);
        if (i >= 0) this.waiters.splice(i, 1);
        reject(new CancelledError());
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.waiters.push(waiter);
      this.waiters.sort((a, b) => a.priority - b.priority || a.seq - b.seq);
      this.pump();
    });
  }

  /** Storage asked to slow down (429 / SlowDown): one upload at a time until successes climb back. */
  slowDown(): void {
    this.effective = 1;
  }

  /** A part succeeded: the limit climbs back by one towards the configured one. */
  succeeded(): void {
    if (this.effective < this.max) {
      this.effective++;
      this.pump();
    }
  }

  private pump(): void {
    while (this.active < this.effective && this.waiters.length > 0) this.waiters.shift()!.grant();
  }
}
