import type { UnreachableError } from '../api/errors.js';
import { RequestNotSentError, unreachableOf } from '../api/errors.js';
import type { CaptureGateway } from '../api/gateway.js';

/**
 * The one sentence for the whole queue when the capture gateway or the sign-in service cannot be
 * reached (issue 17 #6): which service, at which address (no query, no credentials), why in plain
 * words, and what to do. `waiting` counts the captures (or files) that wait on it; `retryAt` (ms
 * since the epoch) is when they are tried again by themselves. Undefined when `err` is not such a failure.
 */
export function unreachableNotice(gateway: CaptureGateway, err: unknown, waiting: string, retryAt: number): string | undefined {
  const cause: UnreachableError | undefined = unreachableOf(err);
  if (!cause) return undefined;
  const signIn = err instanceof RequestNotSentError;
  const { baseUrl, authUrl } = gateway.addresses;
  const what = signIn ? 'the sign-in service' : 'the capture gateway';
  const setting = signIn ? 'sign-in address' : 'capture gateway address';
  const at = new Date(retryAt).toLocaleTimeString('en-GB', { hour: '2-digit', minute: '2-digit' });
  return (
    `Cannot reach ${what} at ${shown(signIn ? authUrl : baseUrl)}: ${cause.plainCause}. Nothing was sent; ${waiting} wait in the queue ` +
    `and are tried again at ${at}, or at once when the settings change. Check the ${setting} in the settings and this computer's network.`
  );
}

/** Whether `err` means the service cannot be reached (so the work waits, it is not refused). */
export const waitsOnConnection = (err: unknown): boolean => unreachableOf(err) !== undefined;

// An address as a person typed it, minus anything that could be a secret (user info, query).
function shown(url: string): string {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}${u.pathname === '/' ? '' : u.pathname}`;
  } catch {
    return url;
  }
}
