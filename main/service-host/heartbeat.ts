// The host's watch on the upload service's process (docs/decisions/0035-service-heartbeat.md): a ping
// over the existing channel every few seconds, answered by the service's event loop; a process
// silent for longer than any synchronous step it may take is hung (stopped by a signal, a read the
// system cannot interrupt, a native deadlock, a loop that never yields) and is replaced. The host's
// own pauses (a suspended laptop, its event loop blocked) are never blamed on the service.

/** How the host watches the service: all in ms, measured on the host's monotonic clock. */
export interface HeartbeatOptions {
  /** How often the host pings. */
  intervalMs: number;
  /** Silence (no message of any kind) after which a service that has spoken is taken for hung. */
  deadlineMs: number;
  /** Silence allowed a new process before its first message: loading its code and native modules. */
  startMs: number;
  /** How long a process killed for a hang is waited for before a new one is started anyway. */
  killMs: number;
}

/**
 * The app's choice (docs/decisions/0035-service-heartbeat.md): a ping every 5 s; hung after 30 s of
 * silence, about twice the longest synchronous step measured on a loaded 2-core machine (the
 * whole view of a 100,000-file queue, `npm run bench -- --only service-steps`); 60 s for a new
 * process to load; 5 s for a killed one to end.
 */
export const HEARTBEAT: HeartbeatOptions = { intervalMs: 5_000, deadlineMs: 30_000, startMs: 60_000, killMs: 5_000 };

/** What the watch does: ping the process, and say it is hung (how long it was silent, ms). */
export interface HeartbeatHooks {
  ping(seq: number): void;
  hung(silentMs: number): void;
  /** A ping answered late (its round trip, ms; over a quarter of the deadline): a step near the limit. */
  slow?(roundTripMs: number): void;
}

/**
 * The watch on one service process, from its spawn to its end. `heard()` on every message the
 * process sends (any message shows its event loop ran; `pong` also times the round trip).
 * `hung` is called at most once; the watch then stops.
 */
export class Heartbeat {
  private timer: ReturnType<typeof setInterval> | undefined;
  private lastHeard: number;
  private lastTick: number;
  private spoken = false;
  private seq = 0;
  private readonly sentAt = new Map<number, number>();
  private done = false;

  constructor(
    private readonly opts: HeartbeatOptions,
    private readonly hooks: HeartbeatHooks,
    private readonly now: () => number = () => performance.now(),
  ) {
    this.lastHeard = this.lastTick = this.now();
    this.timer = setInterval(() => this.tick(), opts.intervalMs);
    // The watch never keeps a host alive on its own: closing the app ends it.
    this.timer.unref?.();
    this.ping();
  }

  /** The process sent a message: it lives. */
  heard(): void {
    this.spoken = true;
    this.lastHeard = this.now();
  }

  /** The answer to ping `seq`: it lives, and how long the answer took is looked at. */
  pong(seq: number): void {
    this.heard();
    const sent = this.sentAt.get(seq);
    if (sent === undefined) return;
    for (const s of [...this.sentAt.keys()]) if (s <= seq) this.sentAt.delete(s);
    const roundTrip = this.lastHeard - sent;
    if (roundTrip > this.opts.deadlineMs / 4) this.hooks.slow?.(roundTrip);
  }

  /** Ends the watch (the process ended, or the host closes). */
  stop(): void {
    this.done = true;
    clearInterval(this.timer);
    this.timer = undefined;
  }

  private ping(): void {
    const seq = ++this.seq;
    this.sentAt.set(seq, this.now());
    // Only the newest few are timed: a process that stopped answering does not grow the map.
    if (this.sentAt.size > 8) this.sentAt.delete(Math.min(...this.sentAt.keys()));
    this.hooks.ping(seq);
  }

  private tick(): void {
    if (this.done) return;
    const now = this.now();
    const late = now - this.lastTick - this.opts.intervalMs;
    this.lastTick = now;
    // The host itself did not run for a while (the computer slept, its event loop was blocked):
    // the service's answers may be waiting unread. It gets a whole deadline again from now.
    if (late > this.opts.intervalMs) {
      this.lastHeard = now;
      this.sentAt.clear();
      return this.ping();
    }
    this.ping();
    if (now - this.lastHeard <= this.limit()) return;
    // Timers run before the host reads what arrived; the verdict waits until it has (check phase).
    setImmediate(() => {
      if (this.done) return;
      const silent = this.now() - this.lastHeard;
      if (silent <= this.limit()) return;
      this.stop();
      this.hooks.hung(silent);
    });
  }

  private limit(): number {
    return this.spoken ? this.opts.deadlineMs : this.opts.startMs;
  }
}
