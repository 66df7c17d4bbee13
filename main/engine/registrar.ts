import { CancelledError, credentialsRefusal, reasonOf } from '../api/errors.js';
import type { CredentialsRefusedError } from '../api/errors.js';
import type { QueuedCapture } from '../queue/queue.js';
import type { EngineContext } from './context.js';
import type { RegistrationOutcome } from './registration.js';
import { registrationOutcome, unknownRegistrationsNotice } from './registration.js';
import { whenAt } from '../../shared/when.js';
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
 * call. Each capture is claimed in the queue (`queued` → `registering`, one committed UPDATE),
 * then the gateway signs in, then the queue records, committed, that the request is sent, and
 * only then does the body leave. So no capture is sent by two callers, and a crash or Ctrl-C
 * while signing in leaves a row the next start puts back in the queue, while one after the mark
 * is for a person to decide (`registration_unknown`). When the gateway already holds a token, no
 * sign-in comes between, so the claim and the sent mark are one commit: a registration then waits
 * for the disk twice (this claim, the answer), not three times (docs/queue-commits.md).
 *
 * A registration that failed before it was sent, or was answered 429/503, goes back to `queued`
 * with a time on the durable retry schedule (or Retry-After's), and every other due capture waits
 * until then too, since it would meet the same outage. An answer that may come after the service
 * acted (500, 502, 504, a timeout or reset after sending) makes it `registration_unknown`, said
 * once for all such captures of the round. A refusal of the credentials stops the queue. A queue
 * that cannot be written (full disk, read-only, corrupt) stops registering at once (issue 17 #1).
 */
export class Registrar {
  private loop?: Promise<void>;
  private inflight?: { controller: AbortController; sending: boolean };
  private stopped = false;
  /** Set for good when the queue could not be written: nothing more is claimed or sent. */
  private halted = false;
  /** Captures of this round whose registration became unknown, with the first cause, for one notice. */
  private unknown: { captures: QueuedCapture[]; cause?: unknown } = { captures: [] };

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
   * Throws what the queue throws, except a storage failure (handed to `ctx.fatal`).
   */
  kick(): void {
    if (this.loop || this.stopped || this.halted) return;
    const first = this.claim();
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

  /** Allows registering again after `stop()` (not after the queue could not be written). */
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

  /** The next due capture, claimed; undefined when none is due, when stopped, or when the queue cannot be written. */
  private claim(): QueuedCapture | undefined {
    if (this.stopped || this.halted) return undefined;
    try {
      // Signed in already, nothing stands between the claim and the send: the claim's commit
      // carries the sent mark too (one wait for the disk per capture instead of two).
      return this.ctx.queue.schedule.claimDueCapture(Date.now(), this.ctx.gateway.signedIn);
    } catch (err) {
      if (this.halt(err)) return undefined;
      throw err;
    }
  }

  /** Stops registering for good when `err` is a storage failure of the queue; answers whether it was. */
  private halt(err: unknown): boolean {
    if (!this.ctx.fatal(err)) return false;
    this.halted = true;
    return true;
  }

  private async run(first: QueuedCapture): Promise<void> {
    try {
      for (let c: QueuedCapture | undefined = first; c; c = this.claim()) {
        this.ctx.transitions.announceCapture(c);
        await this.registerOne(c);
      }
    } finally {
      const { captures, cause } = this.unknown;
      this.unknown = { captures: [] };
      if (captures.length > 0) this.ctx.warn(unknownRegistrationsNotice(captures, cause));
    }
  }

  private async registerOne(c: QueuedCapture): Promise<void> {
    const { ctx } = this;
    // Claimed with its sent mark (signed in at the claim): the body leaves now.
    const flight = { controller: new AbortController(), sending: c.sentAt !== null };
    this.inflight = flight;
    try {
      if (!flight.sending) {
        await ctx.gateway.ready(flight.controller.signal);
        if (flight.controller.signal.aborted) throw new CancelledError();
        // Committed before the body leaves: from here on a crash leaves it for a person.
        ctx.queue.schedule.markCaptureSent(c.id);
        flight.sending = true;
      }
      const [result] = await ctx.gateway.addCaptures([c.request], flight.controller.signal);
      if (!result) throw new Error('The service answered add-capture without a result');
      ctx.transitions.registered(c, result);
      this.hooks.registered();
    } catch (err) {
      try {
        if (this.halt(err)) return; // the row stays `registering`: the next start decides it by its sent mark
        this.settle(c, err, flight.sending);
      } catch (writeErr) {
        // Not recorded: the row stays `registering`, which the next start decides by its sent mark.
        if (!this.halt(writeErr)) throw writeErr;
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
    // Nothing left this machine for this capture before the sent mark: cancelled while signing in
    // (queued, due at once), or the person dropped it meanwhile (no row is left, nothing happens).
    if (!sent && (err instanceof CancelledError || !this.ctx.queue.capture(c.id))) {
      t.capture(c.id, ['registering'], 'queued', null);
      return;
    }
    // Whatever failed before the sent mark, the service cannot have it: never "unknown".
    const outcome: RegistrationOutcome = sent ? registrationOutcome(err) : { state: 'queued', message: `Not registered yet: ${reasonOf(err)}` };
    if (outcome.state !== 'queued') {
      const kind = outcome.state === 'rejected' ? 'rejected' : 'registration-unknown';
      t.capture(c.id, ['registering'], outcome.state, outcome.message, undefined, { kind, message: outcome.message });
      if (outcome.state === 'registration_unknown') {
        this.unknown.captures.push(c);
        this.unknown.cause ??= err;
      }
      return;
    }
    // Retry-After when the service gave one (429, 503), else the durable schedule; whole ms in the queue.
    const at = Math.round(Date.now() + (outcome.retryAfterMs ?? this.ctx.retrySchedule.delayMs(c.attempts)));
    // An unreachable service is the queue's problem, said once for all (issue 17 #6), not this capture's.
    const notice = unreachableNotice(this.ctx.gateway, err);
    const reason = notice ? 'Not registered yet: the service cannot be reached (see the notice for the queue)' : outcome.message;
    const message = `${reason}. Sent again at ${whenAt(at, { seconds: true })} (attempt ${c.attempts + 2}).`;
    t.capture(c.id, ['registering'], 'queued', message, at, { kind: 'registration-retry', message });
    // The others would meet the same outage: they wait for the same time, without counting an attempt.
    this.ctx.queue.schedule.deferQueuedCaptures(at);
    if (notice) this.ctx.warn(notice);
  }
}
