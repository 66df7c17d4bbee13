import { CancelledError, credentialsRefusal, reasonOf } from '../api/errors.js';
import type { CredentialsRefusedError } from '../api/errors.js';
import type { QueuedCapture } from '../queue/queue.js';
import type { EngineContext } from './context.js';
import { registrationOutcome } from './registration.js';
import { unreachableNotice } from './unreachable.js';

// On quit, an add-capture already sent is given this long for its answer before it is abandoned
// (and the capture marked registration_unknown): long enough for a healthy service, short enough
// for quit to finish within 2 s.
const SENT_GRACE_MS = 1500;

/** What the registrar tells the engine. */
export interface RegistrarHooks {
  /** A capture was registered: its files are pending. */
  registered(): void;
  /** The service refuses the queue's credentials. */
  blocked(err: CredentialsRefusedError): void;
  /** The registrar ran out of due captures (or was stopped). */
  idle(): void;
}

/**
 * Registers queued captures with add-capture (§4.4), one at a time, as the only owner of that
 * call. Each capture is claimed in the queue (`queued` → `registering`, one UPDATE) before the
 * request leaves, so it is never sent twice by two callers, and a crash in between leaves a row
 * the next start recognises (`registration_unknown`).
 *
 * A registration that failed for a passing reason (not sent, 429/500/502/503) goes back to
 * `queued` with a time on the durable retry schedule, and every other due capture waits until
 * then too, since it would meet the same outage. A refusal of the credentials stops the queue.
 */
export class Registrar {
  private loop?: Promise<void>;
  private inflight?: { controller: AbortController; sending: boolean };
  private stopped = false;

  constructor(
    private readonly ctx: EngineContext,
    private readonly hooks: RegistrarHooks,
  ) {}

  /** Whether a registration loop is running. */
  get busy(): boolean {
    return this.loop !== undefined;
  }

  /**
   * Starts registering due captures unless already doing so or stopped. The first is claimed
   * here, synchronously, so a kick with nothing due starts no loop (and wakes nobody).
   */
  kick(): void {
    if (this.loop || this.stopped) return;
    const first = this.ctx.queue.claimDueCapture(Date.now());
    if (!first) return;
    this.loop = this.run(first).finally(() => {
      this.loop = undefined;
      this.hooks.idle();
    });
  }

  /** Registers every due capture (joining a loop already running) and resolves when none is left. */
  async registerDue(): Promise<void> {
    this.kick();
    await this.loop;
  }

  /** Allows registering again after `stop()`. */
  restart(): void {
    this.stopped = false;
  }

  /**
   * Stops registering: a capture waiting for sign-in goes back to `queued`; one whose add-capture
   * is already sent gets 1.5 s for its answer, then is abandoned as `registration_unknown`.
   */
  async stop(): Promise<void> {
    this.stopped = true;
    const flight = this.inflight;
    if (flight && !flight.sending) flight.controller.abort();
    const timer = flight?.sending ? setTimeout(() => flight.controller.abort(), SENT_GRACE_MS) : undefined;
    await this.loop;
    clearTimeout(timer);
  }

  private async run(first: QueuedCapture): Promise<void> {
    for (let c: QueuedCapture | undefined = first; c; c = this.stopped ? undefined : this.ctx.queue.claimDueCapture(Date.now())) {
      this.ctx.transitions.announceCapture(c);
      await this.registerOne(c);
    }
  }

  private async registerOne(c: QueuedCapture): Promise<void> {
    const { ctx } = this;
    const flight = { controller: new AbortController(), sending: false };
    this.inflight = flight;
    try {
      await ctx.gateway.ready(flight.controller.signal);
      flight.sending = true;
      const [result] = await ctx.gateway.addCaptures([c.request], flight.controller.signal);
      if (!result) throw new Error('The service answered add-capture without a result');
      ctx.transitions.registered(c, result);
      this.hooks.registered();
    } catch (err) {
      try {
        if (ctx.fatal(err)) return;
        this.settle(c, err, flight.sending);
      } catch (writeErr) {
        // Not recorded: the row stays `registering`, which the next start marks registration_unknown.
        if (!ctx.fatal(writeErr)) throw writeErr;
      }
    } finally {
      this.inflight = undefined;
    }
  }

  private settle(c: QueuedCapture, err: unknown, sent: boolean): void {
    const t = this.ctx.transitions;
    const refused = credentialsRefusal(err);
    if (refused) {
      t.capture(c.id, ['registering'], 'queued', refused.message);
      this.stopped = true;
      this.hooks.blocked(refused);
      return;
    }
    if (err instanceof CancelledError && !sent) {
      t.capture(c.id, ['registering'], 'queued', null);
      return;
    }
    const outcome = registrationOutcome(err);
    if (outcome.state !== 'queued') {
      const kind = outcome.state === 'rejected' ? 'rejected' : 'registration-unknown';
      t.capture(c.id, ['registering'], outcome.state, outcome.message, undefined, { kind, message: outcome.message });
      if (outcome.state === 'registration_unknown') this.ctx.warn(`Could not tell whether "${c.label}" was registered: ${reasonOf(err)}`);
      return;
    }
    const at = Math.round(Date.now() + this.ctx.retrySchedule.delayMs(c.attempts)); // whole ms in the queue
    // An unreachable service is the queue's problem, said once for all (issue 17 #6), not this capture's.
    const notice = unreachableNotice(this.ctx.gateway, err);
    const reason = notice ? 'Not registered yet: the service cannot be reached (see the notice for the queue)' : outcome.message;
    const message = `${reason}. Sent again at ${new Date(at).toLocaleTimeString('en-GB')} (attempt ${c.attempts + 2}).`;
    t.capture(c.id, ['registering'], 'queued', message, at, { kind: 'registration-retry', message });
    // The others would meet the same outage: they wait for the same time, without counting an attempt.
    this.ctx.queue.deferQueuedCaptures(at);
    if (notice) this.ctx.warn(notice);
  }
}
