// One part tried until storage has it: the retry loop, by the retry table of §7 (sendPart).
// Each try is one PUT (part-put.ts); its bytes go on the wire in part-bytes.ts.
import { setTimeout as sleep } from 'node:timers/promises';
import {
  CancelledError,
  HttpStatusError,
  PartIntegrityError,
  StorageRefusedError,
  reasonOf,
} from '../../api/errors.js';
import { retryDecision } from '../../api/retry-table.js';
import type { QueuedFile } from '../../queue/queue.js';
import type { EngineContext } from '../context.js';
import { UnansweredPartError } from './in-doubt.js';
import { AnswerLostError, uploadPart } from './part-put.js';
import type { PresignedUrls } from './presigned-urls.js';

/**
 * How one part ended: `stored` (storage answered with its ETag, written to the ledger; `md5Etag`
 * is the quoted MD5 of the bytes sent), `held`
 * (presign-missing no longer lists it: storage already has it), or `uncertain` (every byte went out
 * but the answer was lost: storage may have it, or still be storing it; the part is already marked
 * unanswered in the queue; `md5Etag` is what to report if it does, `error` how it was lost; when
 * this client gave up waiting (`error.givenUp`), `slot` is its request slot, kept: the part may
 * still be on the link, and another part sent behind it only slows both. Release it once settled).
 */
export type PartOutcome =
  | { kind: 'stored'; etag: string; md5Etag: string }
  | { kind: 'held' }
  | { kind: 'uncertain'; md5Etag: string; error: AnswerLostError; slot?: () => void };

/** One part of a file to send, with what its retries share with the file's other parts. */
export interface PartTask {
  file: QueuedFile;
  partNumber: number;
  urls: PresignedUrls;
  signal: AbortSignal;
  /** Consecutive failures of the file's parts: retry delays grow with it and start over after a success (tus). */
  backoff: { failures: number };
  /** Tries so far per part number, across rounds. */
  tries: Map<number, number>;
  /** A slot of the shared limiter already held for the first try, if any. */
  slot?: () => void;
  /** The part's quoted MD5 kept from the offload's copy pass, when it may be used (main/offload/part-md5.ts storedPartMd5s). */
  md5Etag?: string;
  /** The file's check before and after the part is sent (part-put.ts PartPut.check); assertUnchanged when absent. */
  check?: () => Promise<void>;
}

/**
 * Sends one part (§4.6) until storage has it, following the retry table of §7 for storage's
 * answers to the PUT (a failed presign call was already retried by the gateway's policy and ends
 * the part; the durable schedule takes the file over): network errors,
 * 5xx, RequestTimeout and a missing ETag back off and retry (the §8 policy); 403/AccessDenied
 * presigns again and retries at once, and after `maxResigns` such refusals ends with
 * StorageRefusedError (a passing failure); 429/SlowDown/503 pause every new part request of the
 * queue for Retry-After (else the backoff) and drop the concurrency to one; other 4xx, a changed
 * or unreadable file, and cancellation end it. A limiter slot is held only while the request
 * runs: the backoff is waited out without it.
 * Throws the last error once the part's retries are spent.
 */
export async function sendPart(ctx: EngineContext, job: PartTask): Promise<PartOutcome> {
  const { file: f, partNumber: n } = job;
  const offset = (n - 1) * f.partSize!;
  const size = Math.min(f.partSize!, f.size - offset);
  let slot = job.slot;
  let resigns = 0;
  let mustResend: unknown; // storage has a copy, but a bad one (no ETag, or not the bytes sent)
  for (;;) {
    let delay = 0;
    let release = slot ?? (await ctx.limiter.acquire(f.id, job.signal));
    slot = undefined;
    let fromStorage = false; // a gateway error while presigning is judged as the gateway's, never as storage's 403
    try {
      const url = await job.urls.get(n);
      // A pause during the presign has no listener yet to hear it.
      if (job.signal.aborted) throw new CancelledError();
      fromStorage = true;
      if (!url) {
        if (mustResend) throw mustResend; // no URL can be had for a part the service counts as stored
        return { kind: 'held' }; // storage already has it: never sent twice
      }
      const result = await uploadPart(
        {
          path: f.path,
          expected: f,
          partNumber: n,
          offset,
          size,
          url,
          ...(job.md5Etag ? { md5Etag: job.md5Etag } : {}),
          ...(job.check ? { check: job.check } : {}),
        },
        {
          bandwidth: ctx.bandwidth,
          link: ctx.link,
          stallTimeoutMs: ctx.stallTimeoutMs,
          signal: job.signal,
          onProgress: (sent) => ctx.tracker.partProgress(f.id, n, sent),
        },
      );
      noteEtagStyle(ctx, result.md5Checked);
      // Recorded even when the file was paused meanwhile: storage has the part.
      ctx.ledger.add(f.id, n, result.etag);
      ctx.tracker.partDone(f.id, n, size);
      ctx.limiter.succeeded();
      job.backoff.failures = 0;
      return { kind: 'stored', etag: result.etag, md5Etag: result.md5Etag };
    } catch (err) {
      ctx.tracker.partDone(f.id, n, 0);
      // Written before the work unwinds: this run, or the next start after a crash or a stop, asks
      // for this part over the settle time before sending it again (in-doubt.ts).
      if (err instanceof AnswerLostError || err instanceof UnansweredPartError)
        markUnanswered(ctx, f.id, n, Date.now());
      if (err instanceof AnswerLostError) {
        // Said when it is given up, not only once settled: the settling asks the service, which
        // may be as silent as storage (docs/engine.md, "A silent link").
        ctx.log.info(
          `Part ${n} of ${f.fileName}: ${reasonOf(err)}; asking whether storage has it before sending it again`,
        );
        if (!err.givenUp) return { kind: 'uncertain', md5Etag: err.md5Etag, error: err };
        const kept = release;
        release = () => {};
        return { kind: 'uncertain', md5Etag: err.md5Etag, error: err, slot: kept };
      }
      const { action } = retryDecision(err, fromStorage ? 'storage' : 'call');
      if (action === 'cancel' || action === 'fail' || action === 'reauth' || action === 'stop') throw err;
      // Presigning is a gateway call, already retried by its own policy (api/retry.ts): this loop
      // retries only storage's answers to the PUT, so tries never multiply across layers.
      if (!fromStorage) throw err;
      if (action === 'resign' && err instanceof HttpStatusError) {
        job.urls.invalidate(n);
        if (++resigns > ctx.maxResigns) {
          // §7 says presign again; storage refusing fresh URLs too is something in between, never the API key.
          throw new StorageRefusedError(
            `Storage refused part ${n} of ${f.fileName} ${resigns} times, even with freshly presigned URLs: ${reasonOf(err)}. If this goes on, check this computer's clock and any proxy or network sign-in between it and storage`,
            err,
          );
        }
        ctx.log.info(`Part ${n} of ${f.fileName}: the presigned URL was refused (${reasonOf(err)}); presigning again`);
        continue;
      }
      if (err instanceof PartIntegrityError) mustResend = err;
      // A passing failure: the screen says "Waiting for storage" (or the gateway) from now until a part is acknowledged.
      else ctx.tracker.trouble(fromStorage ? 'storage' : 'gateway', reasonOf(err));
      const tries = (job.tries.get(n) ?? 0) + 1;
      job.tries.set(n, tries);
      delay = ctx.partRetry.delayMs(Math.min(job.backoff.failures++, 6));
      if (action === 'slowdown') {
        // The whole queue's new requests wait, not just this slot: Retry-After, else the backoff.
        delay = (err instanceof HttpStatusError ? err.retryAfterMs : undefined) ?? delay;
        ctx.limiter.slowDown(delay);
      }
      if (tries > ctx.partRetry.retries) throw err;
      ctx.log.info(
        `Part ${n} of ${f.fileName}: ${reasonOf(err)}; retry ${tries} of ${ctx.partRetry.retries} in ${Math.round(delay)} ms`,
      );
    } finally {
      release();
    }
    try {
      await sleep(delay, undefined, { signal: job.signal });
    } catch {
      throw new CancelledError();
    }
  }
}

/**
 * Marks a part sent in full but unanswered (at: ms since 1970) or clears the mark (null), in the
 * queue at once (in-doubt.ts). A queue that cannot be written stops the engine (said once), and
 * the part is then only sent again if storage lacks it; other errors are thrown.
 */
export function markUnanswered(ctx: EngineContext, fileId: number, partNumber: number, at: number | null): void {
  try {
    ctx.queue.markUnanswered(fileId, [partNumber], at);
  } catch (err) {
    // The queue cannot be written: the engine stops (said once); the part is then only sent again if storage lacks it.
    if (!ctx.fatal(err)) throw err;
  }
}

function noteEtagStyle(ctx: EngineContext, md5: boolean): void {
  if (ctx.etagsAreMd5 === md5) return;
  ctx.etagsAreMd5 = md5;
  if (!md5)
    ctx.warn(
      'Storage encrypts parts with KMS or a customer key, or gives ETags that are not MD5 digests, so parts cannot be checked against them; uploads go on unchecked.',
    );
}
