import { HttpStatusError, NetworkError, RequestNotSentError, isUnreachable, reasonOf } from '../api/errors.js';

// Network failures that mean the request never left this machine.
const NOT_SENT = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'ENETUNREACH', 'EHOSTUNREACH']);

/** What becomes of a capture whose add-capture (§4.4) failed. */
export interface RegistrationOutcome {
  /** `queued`: not registered, sent again at its scheduled time; `rejected`: refused; `registration_unknown`: a person decides. */
  state: 'queued' | 'rejected' | 'registration_unknown';
  message: string;
}

/**
 * Decides a failed registration. add-capture is not idempotent, so the one question is whether
 * the service may have registered the capture:
 * - not sent (sign-in failed first, connection refused, name not resolved) or answered 500, 502,
 *   503 or 429: not registered, so it stays `queued` and is sent again on the retry schedule;
 * - any other 4xx: refused, `rejected` with the service's message (§7);
 * - anything else (timeout, reset, lost reply, 504, cancelled after sending): the service may have
 *   it, so a person decides (`registration_unknown`), and it is never sent twice silently.
 * (Refusals of the queue's credentials are decided before this, by `credentialsRefusal`.)
 */
export function registrationOutcome(err: unknown): RegistrationOutcome {
  const reason = reasonOf(err);
  const notRegistered =
    err instanceof RequestNotSentError ||
    isUnreachable(err) || // nothing the service understood was sent (issue 17 #6)
    (err instanceof NetworkError && NOT_SENT.has(err.code ?? '')) ||
    (err instanceof HttpStatusError && [429, 500, 502, 503].includes(err.status));
  if (notRegistered) return { state: 'queued', message: `Not registered yet: ${reason}` };
  if (err instanceof HttpStatusError && err.status >= 400 && err.status < 500 && err.status !== 408) {
    return { state: 'rejected', message: `The service refused this capture: ${err.message}. Correct the capture and register it again.` };
  }
  return {
    state: 'registration_unknown',
    message: `No clear answer to the registration (${reason}); the service may or may not have this capture. Register it again, or drop it if it already appears on the platform.`,
  };
}
