import { HttpStatusError, NetworkError, RequestNotSentError, reasonOf } from '../api/errors.js';

// Network failures that mean the request never left this machine.
const NOT_SENT = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'ENETUNREACH', 'EHOSTUNREACH']);

/** What becomes of a capture whose add-capture (§4.4) failed, and whether to stop registering for now. */
export interface RegistrationOutcome {
  state: 'queued' | 'rejected' | 'registration_unknown';
  message: string;
  /** The service cannot be reached: the other queued captures wait too. */
  stop: boolean;
}

/**
 * Decides a failed registration. add-capture is not idempotent, so the one question is whether
 * the service may have registered the capture:
 * - not sent (sign-in failed first, connection refused, name not resolved) or answered 500, 502,
 *   503 or 429: not registered, so it stays `queued` and is sent again later;
 * - any other 4xx: refused, `rejected` with the service's message (§7);
 * - anything else (timeout, reset, lost reply, 504): the service may have it, so a person decides
 *   (`registration_unknown`), and it is never sent twice silently.
 */
export function registrationOutcome(err: unknown): RegistrationOutcome {
  const reason = reasonOf(err);
  const notRegistered =
    err instanceof RequestNotSentError ||
    (err instanceof NetworkError && NOT_SENT.has(err.code ?? '')) ||
    (err instanceof HttpStatusError && [429, 500, 502, 503].includes(err.status));
  if (notRegistered) return { state: 'queued', message: `Not registered yet: ${reason}. It will be sent again.`, stop: true };
  if (err instanceof HttpStatusError && err.status >= 400 && err.status < 500 && err.status !== 408) {
    return { state: 'rejected', message: `The service refused this capture: ${err.message}. Fix it and add the files again.`, stop: false };
  }
  return {
    state: 'registration_unknown',
    message: `No clear answer to the registration (${reason}); the service may or may not have this capture. Register it again, or drop it if it already appears on the platform.`,
    stop: false,
  };
}
