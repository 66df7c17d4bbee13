import { AsyncLocalStorage } from 'node:async_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import type { RetryPolicy } from './errors.js';
import { CancelledError, HttpStatusError } from './errors.js';
import { retryDecision } from './retry-table.js';

/**
 * The one in-process retry of a gateway or progress-records call (capture-upload-interface.md
 * §7–§8). got's own retry is off everywhere (`retry: { limit: 0 }` in http.ts): this is the only
 * layer that repeats a JSON call. Part PUTs are retried by the part sender (engine/parts/part-retries.ts)
 * and whole files by the durable schedule (engine/scheduling/retry-schedule.ts); see docs/engine.md, "Who retries what".
 */

/**
 * Whether a failed JSON call is sent again within the call: the retry table's decision for a
 * service call (retry-table.ts retryDecision, §7) is `retry`.
 */
export function isRetriedCallError(err: unknown): boolean {
  return retryDecision(err, 'call').action === 'retry';
}

/** A retry about to wait: which (1 for the first retry), of how many at most, the wait (ms) and the failure it follows. */
export interface RetryNote {
  retry: number;
  of: number;
  waitMs: number;
  error: unknown;
}

/**
 * Who hears of the retries of the calls made inside `retryWatch.run(listener, fn)`: each retry,
 * before its wait, calls the listener (which must not throw). For a caller that tells a person
 * its call is being tried again (the default designs' export request, main/service/handlers/designs.ts);
 * the calls made elsewhere hear nothing.
 */
export const retryWatch = new AsyncLocalStorage<(note: RetryNote) => void>();

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
      const waitMs = Math.max(policy.delayMs(n), asked);
      retryWatch.getStore()?.({ retry: n + 1, of: policy.retries, waitMs, error: err });
      try {
        await sleep(waitMs, undefined, { signal });
      } catch {
        throw new CancelledError();
      }
    }
  }
}
