import { CancelledError, HttpStatusError, credentialsRefusal, reasonOf } from '../../api/errors.js';
import type { CredentialsRefusedError } from '../../api/errors.js';
import type { AddCaptureResult } from '../../api/schemas.js';
import { spreadRetryAfter } from '../../api/storage-answer.js';
import { ANSWER_RESERVE_BYTES, AnswerReserve } from '../../queue/answer-reserve.js';
import { queueStorageError } from '../../queue/db.js';
import type { QueuedCapture } from '../../queue/queue.js';
import type { EngineContext } from '../context.js';
import type { RegistrationOutcome } from './registration-outcome.js';
import { registrationOutcome, unknownRegistrationsNotice } from './registration-outcome.js';
import { whenAt } from '../../../shared/when.js';
import { unreachableNotice } from '../outages/unreachable-notice.js';

// On quit, an add-capture already sent is given this long for its answer before it is abandoned
// (and the capture marked registration_unknown): long enough for a healthy service, short enough
// for quit to finish within 2 s.
const SENT_GRACE_MS = 1500;
// An answer the queue could not record is tried again this often while it is held in memory.
const HELD_RETRY_MS = 1000;
/**
 * How many add-capture requests are in flight at once, each its own capture, claim and answer.
 * Two, so the client's work on one capture (claim, commits, the answer's rows) overlaps the
 * service's on the other instead of waiting for it: a card of 5,000 captures then takes about the
 * longer side's time, not both sides' added (docs/decisions/0021-registration-lanes.md). Not more: §4.4
 * is not idempotent, and every request in flight when the link drops becomes a capture whose
 * registration is unknown, for a person to decide.
 */
export const REGISTRATION_LANES = 2;

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
 * Registers queued captures with add-capture (§4.4), one capture per request and at most
 * REGISTRATION_LANES requests at once, as the only owner of that call. Each capture is claimed in the queue (`queued` → `registering`, one committed UPDATE),
 * then the gateway signs in, then the queue records, committed, that the request is sent, and
 * only then does the body leave. So no capture is sent by two callers, and a crash or Ctrl-C
 * while signing in leaves a row the next start puts back in the queue, while one after the mark
 * is for a person to decide (`registration_unknown`). When the gateway already holds a token, no
 * sign-in comes between, so the claim and the sent mark are one commit: a registration then waits
 * for the disk twice (this claim, the answer), not three times (docs/queue-commits.md).
 *
 * A registration that failed before it was sent, or was answered 429 or 503 with Retry-After,
 * goes back to `queued` with a time on the durable retry schedule (or Retry-After's), and every
 * other due capture waits until then too, since it would meet the same outage. An answer that may
 * come after the service acted (500, 502, 503 without Retry-After, 504, a timeout or reset after
 * sending) makes it `registration_unknown`, said once for all such captures of the round; the
 * others wait for the schedule as well, and the next add-capture waits for a read the capture
 * service answers (`probe`, docs/decisions/0039-add-capture-503.md). A refusal of the credentials stops the queue. A queue
 * that cannot be written (full disk, read-only, corrupt) stops registering at once.
 *
 * An answer the platform gave is never lost to a full disk (docs/decisions/0008-answer-reserve.md):
 * a registration is sent only while room for its answer is kept in reserve beside queue.db
 * (AnswerReserve); when committing the answer fails for room, the reserve is released and the
 * commit tried again; if it still fails, the answer is held in memory, committed again every
 * second, and registering stops until the queue can be written.
 */
export class Registrar {
  private loop?: Promise<void>;
  /** The stop under way, which a later stop joins. */
  private stopping?: Promise<void>;
  private readonly inflight = new Set<{ controller: AbortController; sending: boolean }>();
  private stopped = false;
  /** Set for good when the queue could not be written: nothing more is claimed or sent. */
  private halted = false;
  /**
   * Set when a registration was left unknown by the service's trouble (not by a stop); cleared
   * when the probe finds the service answering. While set, no add-capture is sent before a probe.
   */
  private doubt = false;
  /** Captures of this round whose registration became unknown, with the first cause, for one notice. */
  private unknown: { captures: QueuedCapture[]; cause?: unknown } = { captures: [] };
  /** Room on the queue's disk for an add-capture answer, in place before each registration is sent. */
  private readonly reserve: AnswerReserve;
  /** Answers the platform gave that the queue could not record yet (no room), oldest first. */
  private readonly held: { c: QueuedCapture; result: AddCaptureResult }[] = [];
  private heldTimer?: NodeJS.Timeout;

  constructor(
    private readonly ctx: EngineContext,
    private readonly hooks: RegistrarHooks,
  ) {
    // Room for the answer of every request that can be in flight at once, one per lane.
    this.reserve = new AnswerReserve(ctx.queue.db.name, REGISTRATION_LANES * ANSWER_RESERVE_BYTES);
  }

  /** How many add-capture answers are held in memory because the queue could not record them yet. */
  get heldAnswers(): number {
    return this.held.length;
  }

  /** Whether a registration loop is running. */
  get busy(): boolean {
    return this.loop !== undefined;
  }

  /**
   * Starts registering due captures unless already doing so or stopped. The first is claimed
   * here, synchronously, so a call with nothing due starts no loop (and wakes nobody).
   * Throws what the queue throws, except a storage failure (handed to `ctx.fatal`).
   */
  startRegistering(): void {
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
    this.startRegistering();
    await this.loop;
  }

  /** Allows registering again after `stop()` (not after the queue could not be written). */
  restart(): void {
    this.stopped = false;
  }

  /**
   * Stops registering: a capture waiting for sign-in goes back to `queued`; one whose add-capture
   * is already sent gets `sentGraceMs` (default 1.5 s) for its answer, then is abandoned as
   * `registration_unknown`. A stop while one runs joins it, with its grace: a drain ending its own
   * loop must not cut short the wait a signal's stop gave.
   */
  stop(sentGraceMs = SENT_GRACE_MS): Promise<void> {
    this.stopping ??= this.stopNow(sentGraceMs).finally(() => (this.stopping = undefined));
    return this.stopping;
  }

  private async stopNow(sentGraceMs: number): Promise<void> {
    this.stopped = true;
    const flights = [...this.inflight];
    for (const f of flights) if (!f.sending) f.controller.abort();
    const sent = flights.filter((f) => f.sending);
    const timer =
      sent.length > 0 ? setTimeout(() => sent.forEach((f) => f.controller.abort()), sentGraceMs) : undefined;
    await this.loop;
    clearTimeout(timer);
    this.commitHeld(); // a last try before the process may end
  }

  /**
   * Stops claiming when the queue cannot be written any more: a capture not sent yet goes back to
   * `queued`, but a request already sent keeps waiting for its answer (bounded by the request's own
   * timeouts), since that answer is what the reserve beside queue.db keeps room for; another lane's
   * failed claim must not abandon it. Resolves when no request is in flight.
   */
  async stopClaiming(): Promise<void> {
    this.stopped = true;
    for (const f of this.inflight) if (!f.sending) f.controller.abort();
    await this.loop;
  }

  /** The next due capture, claimed; undefined when none is due, when stopped, or when the queue cannot be written. */
  private claim(): QueuedCapture | undefined {
    if (this.stopped || this.halted) return undefined;
    try {
      // Signed in already, with room kept for the answer, nothing stands between the claim and
      // the send: the claim's commit carries the sent mark too (one wait for the disk per capture
      // instead of two). Without room, the claim is plain and registerOne says why nothing is sent.
      // In doubt, the gateway is asked first (registerOne), so the sent mark waits for that answer.
      const send = this.ctx.gateway.signedIn && !this.doubt && this.reserve.ensure();
      return this.ctx.queue.schedule.claimDueCapture(Date.now(), send);
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

  /** Registers `first`, then every capture still due, in REGISTRATION_LANES lanes that each claim their next. */
  private async run(first: QueuedCapture): Promise<void> {
    const lane = async (c: QueuedCapture | undefined) => {
      for (; c; c = this.claim()) {
        this.ctx.transitions.announceCapture(c);
        await this.registerOne(c);
      }
    };
    try {
      // The other lanes start at once on what else is due; one finding nothing ends there.
      await Promise.all([lane(first), ...Array.from({ length: REGISTRATION_LANES - 1 }, () => lane(this.claim()))]);
    } finally {
      const { captures, cause } = this.unknown;
      this.unknown = { captures: [] };
      if (captures.length > 0) this.ctx.warn(unknownRegistrationsNotice(captures, cause));
    }
  }

  /**
   * After a registration left in doubt, asks the capture service something that registers nothing
   * before the next add-capture is sent: the upload status of the capture registered last (§4.8),
   * or, with none, the project's design update time (§4.3). An answer, even a refusal of that
   * read (4xx but 408 and 429), says the service is up, and registering goes on; a 5xx, 408, 429,
   * a timeout or no answer is thrown, so the capture, sent nothing, stays `queued` and waits for
   * the schedule (docs/decisions/0039-add-capture-503.md).
   */
  private async probe(signal: AbortSignal): Promise<void> {
    const { ctx } = this;
    const id = ctx.queue.lastCaptureId();
    try {
      if (id) await ctx.gateway.captureUploadStatus(id, signal);
      else await ctx.gateway.latestDefaultDesignUpdate(signal);
    } catch (err) {
      const answered = err instanceof HttpStatusError && err.status < 500 && err.status !== 408 && err.status !== 429;
      if (!answered) throw err;
    }
    this.doubt = false;
    ctx.log.info('The capture service answers again: registering goes on');
  }

  private async registerOne(c: QueuedCapture): Promise<void> {
    const { ctx } = this;
    // Claimed with its sent mark (signed in at the claim): the body leaves now.
    const flight = { controller: new AbortController(), sending: c.sentAt !== null };
    this.inflight.add(flight);
    try {
      if (!flight.sending) {
        // §4.4 is not idempotent: nothing is sent unless its answer can be committed, so room for it
        // is kept first; written before signing in, then only looked at again before the body leaves.
        if (!this.reserve.ensure()) throw noRoomForAnswer();
        await ctx.gateway.ready(flight.controller.signal);
        if (this.doubt) await this.probe(flight.controller.signal);
        if (flight.controller.signal.aborted) throw new CancelledError();
        if (!this.reserve.ensure()) throw noRoomForAnswer();
        // Committed before the body leaves: from here on a crash leaves it for a person.
        ctx.queue.schedule.markCaptureSent(c.id);
        flight.sending = true;
      }
      const [result] = await ctx.gateway.addCaptures([c.request], flight.controller.signal);
      if (!result) throw new Error('The service answered add-capture without a result');
      if (this.record(c, result)) this.hooks.registered();
    } catch (err) {
      try {
        if (this.halt(err)) return; // the row stays `registering`: the next start decides it by its sent mark
        this.settle(c, err, flight.sending);
      } catch (writeErr) {
        // Not recorded: the row stays `registering`, which the next start decides by its sent mark.
        if (!this.halt(writeErr)) throw writeErr;
      }
    } finally {
      this.inflight.delete(flight);
    }
  }

  /**
   * Commits the platform's answer: on a failure for room, again with the reserve released; if that
   * fails too, holds it in memory (committed again every HELD_RETRY_MS) and stops registering.
   * Answers whether it is committed. Throws what the queue throws other than a storage failure.
   */
  private record(c: QueuedCapture, result: AddCaptureResult): boolean {
    let failure: unknown;
    for (const withReserve of [false, true]) {
      // Released by this answer, or by another lane's a moment ago: the room it freed is for both.
      if (withReserve) this.reserve.release();
      try {
        this.ctx.transitions.registered(c, result);
        if (withReserve)
          this.ctx.log.info(
            `Capture ${c.id} "${c.label}": registered as ${result.capture.captureId}, recorded in the room kept in reserve for it (the disk is full)`,
          );
        return true;
      } catch (err) {
        if (!queueStorageError(this.ctx.queue.db.name, err)) throw err;
        failure = err;
      }
    }
    this.held.push({ c, result });
    this.heldTimer ??= setInterval(() => this.commitHeld(), HELD_RETRY_MS).unref();
    this.ctx.warn(
      `The platform registered capture ${c.id} "${c.label}" as ${result.capture.captureId}, but the upload queue cannot record it yet (${reasonOf(failure)}). ` +
        'The answer is kept in memory and recorded as soon as the queue can be written: free space on its disk and keep Capture Uploader running until then.',
    );
    this.halt(failure);
    return false;
  }

  /** Commits the answers held in memory, oldest first, until one still cannot be. Never throws. */
  private commitHeld(): void {
    while (this.held.length > 0 && this.ctx.queue.db.open) {
      const { c, result } = this.held[0]!;
      try {
        this.ctx.transitions.registered(c, result);
      } catch {
        return;
      }
      this.held.shift();
      this.ctx.log.info(
        `Capture ${c.id} "${c.label}": registered as ${result.capture.captureId}, recorded now that the queue can be written again`,
      );
      this.hooks.registered();
    }
    clearInterval(this.heldTimer);
    this.heldTimer = undefined;
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
    const outcome: RegistrationOutcome = sent
      ? registrationOutcome(err)
      : { state: 'queued', message: `Not registered yet: ${reasonOf(err)}` };
    if (outcome.state !== 'queued') {
      const kind = outcome.state === 'rejected' ? 'rejected' : 'registration-unknown';
      t.capture(c.id, ['registering'], outcome.state, outcome.message, undefined, { kind, message: outcome.message });
      if (outcome.state === 'registration_unknown') {
        this.unknown.captures.push(c);
        this.unknown.cause ??= err;
        // The others would meet the same trouble and each be left for a person too: they wait for
        // the schedule's time, so an outage leaves at most one capture per lane in doubt
        // (docs/decisions/0039-add-capture-503.md). A stop leaves them as they are.
        if (!(err instanceof CancelledError)) {
          this.doubt = true;
          this.ctx.queue.schedule.deferQueuedCaptures(
            Math.round(Date.now() + this.ctx.retrySchedule.delayMs(c.attempts)),
          );
        }
      }
      return;
    }
    // Retry-After when the service gave one (429, 503), spread past it, else the durable schedule;
    // whole ms in the queue (docs/decisions/0040-full-jitter.md).
    const wait =
      outcome.retryAfterMs === undefined
        ? this.ctx.retrySchedule.delayMs(c.attempts)
        : spreadRetryAfter(outcome.retryAfterMs);
    const at = Math.round(Date.now() + wait);
    // An unreachable service is the queue's problem, said once for all, not this capture's.
    const notice = unreachableNotice(this.ctx.gateway, err);
    const reason = notice
      ? 'Not registered yet: the service cannot be reached (see the notice for the queue)'
      : outcome.message;
    const message = `${reason}. Sent again at ${whenAt(at, { seconds: true })} (attempt ${c.attempts + 2}).`;
    t.capture(c.id, ['registering'], 'queued', message, at, { kind: 'registration-retry', message });
    // The others would meet the same outage: they wait for the same time, without counting an attempt.
    this.ctx.queue.schedule.deferQueuedCaptures(at);
    if (notice) this.ctx.warn(notice);
  }
}

/** What a full disk looks like to the engine (SQLITE_FULL), for a registration held back because its answer would have no room. */
function noRoomForAnswer(): Error {
  return Object.assign(new Error('database or disk is full: no room for the answer to add-capture'), {
    code: 'SQLITE_FULL',
  });
}
