import type { FailedRequest } from './errors.js';
import { NetworkError, RequestNotSentError } from './errors.js';

// A request that never reached the service: told apart from every other network
// error, so that even add-capture may be sent again and the message names the settings' cause.

/**
 * The request never reached the service, or what answered was not the service: the name did not
 * resolve, the connection was refused or timed out before it was made, TLS failed (an untrusted
 * certificate, https on a plain-http port), something else answered with a web page (a captive
 * portal, a proxy), or the address answered 404/405 on a path the interface fixes (no such service
 * there). Nothing the service understood was sent, so even add-capture may be sent again. One
 * cause of the settings or the network, shared by every call:.
 * `plainCause` says that cause in plain words ("connection refused (nothing listens at that
 * port)"); `code` is the errno or TLS code, `HTML_ANSWER`, or `HTTP_404` / `HTTP_405`.
 */
export class UnreachableError extends NetworkError {
  constructor(
    readonly plainCause: string,
    request: FailedRequest,
    code: string | undefined,
  ) {
    super(`The service cannot be reached: ${plainCause}`, request, code);
  }
}

// Error codes of a request that never left this machine, with what they mean in plain words.
const UNREACHABLE_CODES: Record<string, string> = {
  ECONNREFUSED: 'connection refused (nothing listens at that port)',
  ENETUNREACH: 'no route to that network (is this computer connected?)',
  EHOSTUNREACH: 'no route to that host (is this computer connected?)',
  EPROTO: 'the address does not speak https at that port (try http://, or another port)',
  ERR_SSL_WRONG_VERSION_NUMBER: 'the address does not speak https at that port (try http://, or another port)',
  DEPTH_ZERO_SELF_SIGNED_CERT: 'its TLS certificate is not trusted (self-signed)',
  SELF_SIGNED_CERT_IN_CHAIN:
    'its TLS certificate is not trusted (a self-signed certificate in the chain: a proxy inspecting traffic?)',
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: 'its TLS certificate is not trusted (the issuer is unknown)',
  UNABLE_TO_GET_ISSUER_CERT_LOCALLY: 'its TLS certificate is not trusted (the issuer is unknown)',
  UNABLE_TO_GET_ISSUER_CERT: 'its TLS certificate is not trusted (the issuer is unknown)',
  CERT_HAS_EXPIRED: "its TLS certificate has expired (or this computer's clock is wrong)",
  CERT_NOT_YET_VALID: "its TLS certificate is not valid yet (or this computer's clock is wrong)",
  ERR_TLS_CERT_ALTNAME_INVALID: 'its TLS certificate is for another name',
};

/**
 * The UnreachableError a low-level failure amounts to (see that class), or undefined when the
 * request may have reached the service. `code` is the errno or TLS code; `timeoutEvent` got's
 * timeout phase (`lookup`, `connect`, `secureConnect`: before anything was sent).
 */
export function unreachableFrom(
  request: FailedRequest,
  code: string | undefined,
  timeoutEvent?: string,
): UnreachableError | undefined {
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') {
    const host = request.host?.replace(/:\d+$/, '') ?? 'of the address';
    return new UnreachableError(
      `the name ${host} cannot be resolved (DNS): check the address, or this computer's network`,
      request,
      code,
    );
  }
  if (timeoutEvent && ['lookup', 'connect', 'secureConnect'].includes(timeoutEvent)) {
    return new UnreachableError(
      `no answer within the connect timeout (a firewall, or the wrong address or port)`,
      request,
      code,
    );
  }
  const plain = code ? UNREACHABLE_CODES[code] : undefined;
  return plain ? new UnreachableError(plain, request, code) : undefined;
}

/** The UnreachableError behind `err` (also when signing in failed with one first), or undefined. */
export function unreachableOf(err: unknown): UnreachableError | undefined {
  if (err instanceof UnreachableError) return err;
  if (err instanceof RequestNotSentError && err.cause instanceof UnreachableError) return err.cause;
  return undefined;
}

/** Whether `err` says nothing the service understood was sent (see {@link UnreachableError}). */
export function isUnreachable(err: unknown): boolean {
  return unreachableOf(err) !== undefined;
}
