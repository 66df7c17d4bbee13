import { CancelledError } from '../../api/errors.js';

interface Waiter {
  fileId: number;
  seq: number;
  grant: () => void;
}

/**
 * One request limit shared by every file (Uppy's RateLimitedQueue): at most `limit` part uploads
 * at once. A slot is held only while a request runs; a part waiting out a backoff gives its slot
 * back first (Uppy waits out backoff outside its queue), so one failing file cannot hold the
 * others up.
 *
 * Slots go first to files of captures a person moved to the front of the queue (`rank`:
 * "the site manager needs floor 3 first"); among files of one rank they are shared fairly:
 * the next slot goes to the waiting file that holds the fewest slots now, ties to the file served
 * longest ago, then in arrival order; never oldest-file-first, which
 * let one slow or failing file starve the rest. On 429/SlowDown/503 (`slowDown()`) no new request
 * starts for the advised time, then the limit is one and climbs back by one per success. The limit
 * can be changed while running.
 */
export class Limiter {
  private active = 0;
  private effective: number;
  private seq = 0;
  private waiters: Waiter[] = [];
  /** While storage's slow-down pause lasts (performance.now() ms), with the timer that ends it. */
  private pausedUntil = 0;
  private pauseTimer: NodeJS.Timeout | undefined;
  /** Slots each file holds now. */
  private readonly held = new Map<number, number>();
  /** When each file was last granted a slot (a grant counter, not a time). */
  private readonly lastServed = new Map<number, number>();
  /** Each file's rank (its capture's priority, main/queue/schedule.ts); absent: 0. Higher is served first. */
  private readonly ranks = new Map<number, number>();

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

  /** Changes the limit (≥ 1); more waiters start at once when it grows. Throws RangeError. */
  setLimit(n: number): void {
    if (!Number.isInteger(n) || n < 1) throw new RangeError(`concurrency must be a whole number ≥ 1, not ${n}`);
    this.max = n;
    this.effective = Math.min(this.effective, n) || 1;
    if (this.effective < n && this.active < n) this.effective = n;
    this.pump();
  }

  /**
   * Waits for a slot for a part of file `fileId` and returns its release function (call it
   * exactly once; further calls do nothing). Rejects with CancelledError when `signal` aborts first.
   */
  acquire(fileId: number, signal?: AbortSignal): Promise<() => void> {
    if (signal?.aborted) return Promise.reject(new CancelledError());
    return new Promise((resolve, reject) => {
      const onAbort = () => {
        this.waiters = this.waiters.filter((w) => w !== waiter);
        reject(new CancelledError());
      };
      const waiter: Waiter = {
        fileId,
        seq: this.seq++,
        grant: () => {
          signal?.removeEventListener('abort', onAbort);
          this.active++;
          this.held.set(fileId, (this.held.get(fileId) ?? 0) + 1);
          this.lastServed.set(fileId, this.seq++);
          let released = false;
          resolve(() => {
            if (released) return;
            released = true;
            this.active--;
            const n = (this.held.get(fileId) ?? 1) - 1;
            if (n > 0) this.held.set(fileId, n);
            else this.held.delete(fileId);
            this.pump();
          });
        },
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.waiters.push(waiter);
      this.pump();
    });
  }

  /**
   * Storage asked to slow down (429, SlowDown, 503): no new upload of any file starts for `pauseMs`
   * (its Retry-After, else the part's backoff), then one at a time until successes climb back
   * (Uppy's RateLimitedQueue). Requests already running go on. A shorter pause never cuts a longer one.
   */
  slowDown(pauseMs = 0): void {
    this.effective = 1;
    // performance.now(): a wall-clock step must not stretch or cut the pause.
    const until = performance.now() + pauseMs;
    if (pauseMs <= 0 || until <= this.pausedUntil) return;
    this.pausedUntil = until;
    clearTimeout(this.pauseTimer);
    this.pauseTimer = setTimeout(() => {
      this.pausedUntil = 0;
      this.pauseTimer = undefined;
      this.pump();
    }, pauseMs);
    // A part waiting out the same pause holds the process open; this timer alone must not keep a quitting one alive.
    this.pauseTimer.unref();
  }

  /** A part succeeded: the limit climbs back by one towards the configured one. */
  succeeded(): void {
    if (this.effective < this.max) {
      this.effective++;
      this.pump();
    }
  }

  /** Sets a file's rank (its capture's priority; 0 the queue's own order): waiting parts of a higher rank are served first. */
  rank(fileId: number, priority: number): void {
    if (priority === 0) this.ranks.delete(fileId);
    else this.ranks.set(fileId, priority);
    this.pump();
  }

  /** Forgets the turn order and rank of a file that is done, so the maps do not grow with the queue. */
  forget(fileId: number): void {
    if (!this.held.has(fileId)) this.lastServed.delete(fileId);
    this.ranks.delete(fileId);
  }

  private pump(): void {
    if (this.pauseTimer) return; // paused by slowDown: the timer pumps when it ends
    while (this.active < this.effective && this.waiters.length > 0) {
      let best = 0;
      for (let i = 1; i < this.waiters.length; i++) if (this.before(this.waiters[i]!, this.waiters[best]!)) best = i;
      const [w] = this.waiters.splice(best, 1);
      w!.grant();
    }
  }

  /** Whether waiter `a` should be served before `b`. */
  private before(a: Waiter, b: Waiter): boolean {
    const ra = this.ranks.get(a.fileId) ?? 0;
    const rb = this.ranks.get(b.fileId) ?? 0;
    if (ra !== rb) return ra > rb;
    const ha = this.held.get(a.fileId) ?? 0;
    const hb = this.held.get(b.fileId) ?? 0;
    if (ha !== hb) return ha < hb;
    const sa = this.lastServed.get(a.fileId) ?? -1;
    const sb = this.lastServed.get(b.fileId) ?? -1;
    if (sa !== sb) return sa < sb;
    return a.seq < b.seq;
  }
}
