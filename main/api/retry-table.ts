import type { ErrorAction } from './errors.js';
import {
  CancelledError,
  HttpStatusError,
  NetworkError,
  PartIntegrityError,
  LocalFileError,
  PresignAnswerError,
  RequestNotSentError,
  StorageRefusedError,
  isOutOfMemory,
} from './errors.js';
import { UnreachableError } from './unreachable-error.js';

/**
 * The one decision whether a failed request is tried again, and by which layer
 * (capture-upload-interface.md §7 "Retry classification", with §8's per-request retries;
 * docs/engine.md, "Who retries what"). The part sender (engine/parts/part-retries.ts), the JSON calls'
 * retry (retry.ts withRetries) and the durable schedule (engine/scheduling/scheduler.ts) all ask
 * {@link retryDecision}; nothing else reads statuses or codes to decide a retry.
 */

/** Where a failed request went: a part PUT to storage (§4.6), or a call to the gateway, sign-in or progress service. */
export type RequestSide = 'storage' | 'call';

/**
 * What becomes of one failed request. `action` is the request's own (§7): `retry` (back off and
 * send it again, §8's retries), `resign` (storage 403: presign again), `reauth` (a service's 401:
 * sign in again, once), `slowdown` (pause the queue's new part requests for Retry-After, then
 * retry), `fail` (not sent again by this layer), `cancel` (stop at once), `stop` (a fault of this
 * computer itself: the engine stops, nothing is marked failed). `passing` says whether
 * the file or registration is tried again later by the durable schedule once the request's own
 * retries are spent (true), or needs a person (false). `row` names the row of RETRY_TABLE that decided.
 */
export interface RetryDecision {
  action: ErrorAction;
  passing: boolean;
  row: string;
}

/** One row of the table: what it matches, and the decision for a part PUT and for a service call. */
export interface RetryRow {
  row: string;
  matches(err: unknown, side: RequestSide): boolean;
  storage: Omit<RetryDecision, 'row'>;
  call: Omit<RetryDecision, 'row'>;
}

/**
 * Network error codes a service call is sent again for within the call: a reset, refused or
 * timed-out connection, a name that did not resolve (yet). A TLS failure, a web page in the
 * service's place or a 404 on a fixed path is not repeated at once (it answers the same a second
 * later) but is passing: the settings or the network may be corrected.
 */
const RETRIED_CODES: ReadonlySet<string> = new Set([
  'ETIMEDOUT',
  'ECONNRESET',
  'EADDRINUSE',
  'ECONNREFUSED',
  'EPIPE',
  'ENOTFOUND',
  'ENETUNREACH',
  'EAI_AGAIN',
]);

/**
 * Statuses that say the request will never be served there, whatever the wait: 501 Not
 * Implemented and 505 HTTP Version Not Supported (RFC 9110 §15.6.2, §15.6.6), from storage, the
 * gateway or something in between. §7 retries every storage 5xx, so they get the request's own
 * retries; they are never passing.
 */
const NEVER_SERVED: ReadonlySet<number> = new Set([501, 505]);

/**
 * A Retry-After longer than this (ms) is not waited out inside one call: the call fails and the
 * durable schedule, whose waits survive a restart, takes the file over.
 */
const MAX_RETRY_AFTER_MS = 60_000;

/** A network error whose code is the answer taking longer than its total deadline (http.ts): given up, not repeated at once. */
export const DEADLINE_CODE = 'EDEADLINE';

const status = (err: unknown): number | undefined => (err instanceof HttpStatusError ? err.status : undefined);
const s3Code = (err: unknown): string | undefined => (err instanceof HttpStatusError ? err.s3Code : undefined);
const both = (d: Omit<RetryDecision, 'row'>) => ({ storage: d, call: d });

/**
 * §7's retry classification as rows, tried in order; the first that matches decides. A request
 * matching none is refused (`fail`, not passing). Tested as this table (retry-table.test.ts).
 */
export const RETRY_TABLE: readonly RetryRow[] = [
  // §7: "Cancellation stops retries at once."
  {
    row: 'cancelled',
    matches: (err) => err instanceof CancelledError,
    ...both({ action: 'cancel', passing: false }),
  },
  // A fault of this computer itself, which every file would meet: its memory, or its own disk
  // failing a read (a card's EIO is the card's: retried shortly by the scheduler, then failed).
  // The engine stops with one sentence (errors.ts localFaultMessage), nothing is marked failed,
  // and the CLI exits 2.
  {
    row: 'out of memory',
    matches: (err) => isOutOfMemory(err),
    ...both({ action: 'stop', passing: false }),
  },
  {
    row: "this computer's own disk failed (EIO)",
    matches: (err) => err instanceof LocalFileError && err.code === 'EIO' && !err.removable,
    ...both({ action: 'stop', passing: false }),
  },
  // Signing in failed first: nothing was sent; decided by the sign-in's own failure below (a 401 there is the account).
  {
    row: 'sign-in refused the account',
    matches: (err) => err instanceof RequestNotSentError && status(err.cause) === 401,
    ...both({ action: 'fail', passing: false }),
  },
  // A presign answer that does not fit the file (engine/parts/presigned-urls.ts): asked again as §8
  // retries a call, then a person decides. Not passing: the same gateway gives the same answer on
  // the durable schedule, which would then read as an outage for ever.
  {
    row: 'presign answer does not fit the file',
    matches: (err) => err instanceof PresignAnswerError,
    ...both({ action: 'retry', passing: false }),
  },
  // An answer, or a part, that took longer than its whole deadline (a trickle, a link slower than
  // any accepted): said and tried again on the durable schedule, not at once (it would again).
  {
    row: 'answer too slow (deadline)',
    matches: (err) => err instanceof NetworkError && err.code === DEADLINE_CODE,
    ...both({ action: 'fail', passing: true }),
  },
  // Nothing the service understood was sent (TLS, a web page, a fixed path answering 404): the
  // settings or the network, corrected by a person or by itself; a refused or unresolved
  // connection is also repeated at once (RETRIED_CODES).
  {
    row: 'service unreachable',
    matches: (err) => err instanceof UnreachableError && !RETRIED_CODES.has(err.code ?? ''),
    ...both({ action: 'fail', passing: true }),
  },
  // §7 "Network error or timeout: Yes".
  {
    row: 'network error or timeout',
    matches: (err, side) =>
      err instanceof NetworkError && (side === 'storage' || (err.code !== undefined && RETRIED_CODES.has(err.code))),
    ...both({ action: 'retry', passing: true }),
  },
  {
    row: 'network error of another kind',
    matches: (err) => err instanceof NetworkError,
    ...both({ action: 'fail', passing: true }),
  },
  // §7: "A missing ETag response header on a part PUT counts as a failed part and is retried."
  {
    row: 'missing or wrong ETag',
    matches: (err) => err instanceof PartIntegrityError,
    ...both({ action: 'retry', passing: true }),
  },
  // §7 "Storage 403: presign again"; refused even with fresh URLs, something in between: passing.
  {
    row: 'storage refused fresh URLs',
    matches: (err) => err instanceof StorageRefusedError,
    ...both({ action: 'retry', passing: true }),
  },
  {
    row: 'never served (501, 505)',
    matches: (err) => NEVER_SERVED.has(status(err) ?? 0),
    ...both({ action: 'retry', passing: false }),
  },
  // A Retry-After over a minute is the durable schedule's to wait, not one call's.
  {
    row: 'Retry-After over a minute',
    matches: (err, side) =>
      side === 'call' && err instanceof HttpStatusError && (err.retryAfterMs ?? 0) > MAX_RETRY_AFTER_MS,
    ...both({ action: 'fail', passing: true }),
  },
  {
    row: 'SlowDown or 429',
    matches: (err) => status(err) === 429 || s3Code(err) === 'SlowDown',
    storage: { action: 'slowdown', passing: true },
    call: { action: 'retry', passing: true },
  },
  // Storage's 503 is S3's SlowDown whatever its body says (a proxy's page, another S3 implementation).
  {
    row: '503',
    matches: (err) => status(err) === 503,
    storage: { action: 'slowdown', passing: true },
    call: { action: 'retry', passing: true },
  },
  // §7 "Storage 5xx: Yes"; §8 retries every service call alike.
  {
    row: '5xx',
    matches: (err) => (status(err) ?? 0) >= 500,
    ...both({ action: 'retry', passing: true }),
  },
  // §7 "Storage 403 / AccessDenied: Re-sign". A gateway 403 concerns its own capture or file (or the credentials).
  {
    row: '403 or AccessDenied',
    matches: (err) => status(err) === 403 || s3Code(err) === 'AccessDenied',
    storage: { action: 'resign', passing: false },
    call: { action: 'fail', passing: false },
  },
  // §7 "Storage RequestTimeout (a 4xx): Yes"; 408 is its HTTP form.
  {
    row: 'RequestTimeout or 408',
    matches: (err) => s3Code(err) === 'RequestTimeout' || status(err) === 408,
    ...both({ action: 'retry', passing: true }),
  },
  // §5.3: a 401 signs in again once (the gateway does it); a second is the credentials'.
  {
    row: '401',
    matches: (err, side) => side === 'call' && status(err) === 401,
    storage: { action: 'fail', passing: false },
    call: { action: 'reauth', passing: false },
  },
  // §7 "Other 4xx (e.g. validation): No".
  {
    row: 'other 4xx',
    matches: (err) => (status(err) ?? 0) >= 400,
    ...both({ action: 'fail', passing: false }),
  },
];

const REFUSED: RetryDecision = { action: 'fail', passing: false, row: 'anything else' };

/**
 * What becomes of `err`, a failure of a request to `side` (see RetryDecision): the first row of
 * RETRY_TABLE that matches. A sign-in that failed first (RequestNotSentError) is decided by its
 * cause, as a call. Errors of the file itself (changed, unreadable), a bad answer shape and
 * anything unknown match no row: `fail`, not passing.
 */
export function retryDecision(err: unknown, side: RequestSide): RetryDecision {
  for (const r of RETRY_TABLE) if (r.matches(err, side)) return { ...r[side], row: r.row };
  if (err instanceof RequestNotSentError) return retryDecision(err.cause, 'call');
  return REFUSED;
}

/**
 * Whether `err` is a fault of this computer itself (the table's `stop`: its memory, its own
 * disk), to stop the engine on rather than to fail a file (engine.ts).
 */
export function isLocalFault(err: unknown): boolean {
  return retryDecision(err, 'call').action === 'stop';
}

/**
 * Whether the durable schedule tries the file (or a gateway call's file) again by itself:
 * `retryDecision(err, side).passing`, for a failure of the side it came from (a PUT's failure
 * as storage's, any other as a call's).
 */
export function isPassing(err: unknown): boolean {
  const side: RequestSide =
    (err instanceof HttpStatusError || err instanceof NetworkError) && err.request.method === 'PUT'
      ? 'storage'
      : err instanceof PartIntegrityError || err instanceof StorageRefusedError
        ? 'storage'
        : 'call';
  return retryDecision(err, side).passing;
}
