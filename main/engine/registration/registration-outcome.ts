import { HttpStatusError, NetworkError, RequestNotSentError, reasonOf } from '../../api/errors.js';
import { isUnreachable } from '../../api/unreachable-error.js';
import type { QueuedCapture } from '../../queue/queue.js';

// Network failures that mean the request never left this machine.
const NOT_SENT = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'ENETUNREACH', 'EHOSTUNREACH']);

// Whether an answer says the request was not processed, so sending it again cannot register the
// capture twice (docs/decisions/0039-add-capture-503.md): 429 always (RFC 6585 §4: a limit turned
// it away); 503 only with Retry-After, the origin saying when to come back (RFC 9110 §15.6.4). A
// 503 without it is what a proxy in front says when the gateway's connection ends before its
// answer (Envoy's "upstream connect error or disconnect/reset before headers"), which may come
// after the gateway acted.
const notProcessed = (err: HttpStatusError) =>
  err.status === 429 || (err.status === 503 && err.retryAfterMs !== undefined);

/** What becomes of a capture whose add-capture (§4.4) failed. */
export interface RegistrationOutcome {
  /** `queued`: not registered, sent again at its scheduled time; `rejected`: refused; `registration_unknown`: a person decides. */
  state: 'queued' | 'rejected' | 'registration_unknown';
  message: string;
  /** For `queued` after 429 or 503: the wait the answer's Retry-After asked for (ms), when it had one (always, for 503). */
  retryAfterMs?: number;
}

/**
 * Decides a failed registration (capture-upload-interface.md §4.4, §7). add-capture is not
 * idempotent and the interface has no way to look a capture up, so the one question is whether
 * the service may have registered the capture:
 * - not sent (signing in failed first, connection refused, name not resolved, nothing the service
 *   understood was sent) or answered 429, or 503 with Retry-After (not processed): not registered,
 *   so it stays `queued` and is sent again on the retry schedule, or at the time Retry-After asks;
 * - any other 4xx but 408: refused, `rejected` with the service's message (§7);
 * - anything else (500, 502, 503 without Retry-After, 504, 408, a timeout, a reset or lost reply
 *   after the body was sent, an unreadable 200, cancelled after sending): the service may have it,
 *   so a person decides
 *   (`registration_unknown`), and it is never sent again without a person's word.
 * (Refusals of the queue's credentials are decided before this, by `credentialsRefusal`.)
 */
export function registrationOutcome(err: unknown): RegistrationOutcome {
  const reason = reasonOf(err);
  const notSent =
    err instanceof RequestNotSentError ||
    isUnreachable(err) || // nothing the service understood was sent
    (err instanceof NetworkError && NOT_SENT.has(err.code ?? ''));
  if (notSent) return { state: 'queued', message: `Not registered yet: ${reason}` };
  if (err instanceof HttpStatusError && notProcessed(err)) {
    return { state: 'queued', message: `Not registered yet: ${reason}`, retryAfterMs: err.retryAfterMs };
  }
  if (err instanceof HttpStatusError && err.status >= 400 && err.status < 500 && err.status !== 408) {
    return {
      state: 'rejected',
      message: `The service refused this capture: ${err.message}. Correct the capture and register it again.`,
    };
  }
  return {
    state: 'registration_unknown',
    message: `No clear answer to the registration (${reason}); the service may or may not have this capture. Register it again, or drop it if it already appears on the platform.`,
  };
}

/**
 * The one notice for every capture whose registration became unknown in one round:
 * what happened, what to look for on the platform (project, structure, capture time, file names),
 * and the two choices, register again or forget it here. `err` is the first such failure.
 */
export function unknownRegistrationsNotice(captures: readonly QueuedCapture[], err: unknown): string {
  const what =
    err instanceof HttpStatusError
      ? `the service answered ${err.status} (${err.message})`
      : `no clear answer came (${reasonOf(err)})`;
  const list = captures
    .map(
      (c) =>
        `capture ${c.id} "${c.label}" (structure ${c.structure}, taken ${c.request.captureDateTime}, files ${c.request.files.map((f) => f.fileName).join(', ')})`,
    )
    .join('; ');
  return (
    `${captures.length} capture(s) may have been registered although ${what} after add-capture was sent; ` +
    `nothing more is sent for them until you decide. On the platform, look in project ${captures[0]?.project ?? ''} for each one's structure, capture time and files: ` +
    `if it is not there, register it again (Register again; capture-uploader resolve CAPTURE --register-again); ` +
    `if it is there, forget it here (It is on the platform: drop it; capture-uploader resolve CAPTURE --drop). ${list}.`
  );
}
