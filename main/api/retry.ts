import { setTimeout as sleep } from 'node:timers/promises';
import type { RetryPolicy } from './errors.js';
import { CancelledError, HttpStatusError, NetworkError } from './errors.js';

/**
 * The one in-process retry of a gateway or progress-records call (capture-upload-interface.md
 * §7–§8). got's own retry is off everywhere (`retry: { limit: 0 }` in http.ts): this is the only
 * layer that repeats a JSON call. Part PUTs are retried by the part sender (engine/part-task.ts)
 * and whole files by the durable schedule (engine/retry-schedule.ts); see docs/engine.md, "Who retries what".
 */

/**
 * Statuses a JSON call is sent again for: 408 and 429, and the 5xx of §7's retry classification that
 * can pass (500, 502–504; 501 and 505 say the call will never be served, so they are not repeated);
 * 521/522/524 are a CDN's "origin down".
 */
export const RETRIED_STATUSES: ReadonlySet<number> = new Set([408, 429, 500, 502, 503, 504, 521, 522, 524]);

/**
 * Network error codes a JSON call is sent again for: a reset, refused or timed-out connection, a
 * name that did not resolve (yet). A TLS failure or a web page in the service's place is not
 * retried: it will answer the same a second later.
 */
export const RETRIED_CODES: ReadonlySet<string> = new Set([
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
 * A Retry-After longer than this (ms) is not waited out inside one call: the call fails and the
 * durable schedule, whose waits survive a restart, takes the file over.
 */
export const MAX_RETRY_AFTER_MS = 60_000;

/** Whether a failed JSON call is sent again (§7): the statuses and network codes above. */
export function isRetriedCallError(err: unknown): boolean {
  if (err instanceof HttpStatusError)
    return RETRIED_STATUSES.has(err.status) && (err.retryAfterMs ?? 0) <= MAX_RETRY_AFTER_MS;
  if (err instanceof NetworkError) return err.code !== undefined && RETRIED_CODES.has(err.code);
  return false;
}

/**
 * Runs `attempt` and, while it fails with an error {@link isRetriedCallError} accepts, runs it
 * again up to `policy.retries` more times, waiting `policy.delayMs(n)` ms before retry `n`
 * (0-based), or the answer's Retry-After when that is longer. Resolves with the first success;
 * throws the last error once the retries are spent or the error is not retried. When `signal`
 * aborts (before a try or during a wait) it throws CancelledError at once (§7 "Cancellation stops
 * retries at once").
 */
export async function withRetries<T>(policy: RetryPolicy, attempt: () => Promise<T>, signal?: AbortSignal): Promise<T> {
  for (let n = 0; ; n++) {
    try {
      signal?.throwIfAborted();
      return await attempt();
    } catch (err) {
      if (signal?.aborted) throw new CancelledError();
      if (n >= policy.retries || !isRetriedCallError(err)) throw err;
      const asked = err instanceof HttpStatusError ? (err.retryAfterMs ?? 0) : 0;
      try {
        await sleep(Math.max(policy.delayMs(n), asked), undefined, { signal });
      } catch {
        throw new CancelledError();
      }
    }
  }
}
