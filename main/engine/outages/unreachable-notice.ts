import { RequestNotSentError } from '../../api/errors.js';
import type { UnreachableError } from '../../api/unreachable-error.js';
import { unreachableOf } from '../../api/unreachable-error.js';
import type { CaptureGateway } from '../../api/gateway.js';

/**
 * The one notice for the whole queue when the capture gateway or the sign-in service cannot be
 * reached: which service, at which address (no query, no credentials), why in plain
 * words, and what to do. The same words for every capture and file that meets it, so the engine's
 * warning (said once per distinct message) is said once. Undefined when `err` is not such a failure.
 */
export function unreachableNotice(gateway: CaptureGateway, err: unknown): string | undefined {
  const cause: UnreachableError | undefined = unreachableOf(err);
  if (!cause) return undefined;
  const signIn = err instanceof RequestNotSentError;
  const { baseUrl, authUrl } = gateway.addresses;
  const what = signIn ? 'the sign-in service' : 'the capture gateway';
  const setting = signIn ? 'sign-in address' : 'capture gateway address';
  return (
    `Cannot reach ${what} at ${shown(signIn ? authUrl : baseUrl)}: ${cause.plainCause}. Nothing was sent; the captures and files ` +
    `that need it wait in the queue and are tried again on the retry schedule, or at once when the settings change. ` +
    `Check the ${setting} in the settings and this computer's network.`
  );
}

// An address as a person typed it, minus anything that could be a secret (user info, query).
function shown(url: string): string {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}${u.pathname === '/' ? '' : u.pathname}`;
  } catch {
    return url;
  }
}
