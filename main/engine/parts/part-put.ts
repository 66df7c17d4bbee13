// One PUT of a part (§4.6): the file checked unchanged, the stall watchdog and the part's deadline,
// and storage's ETag checked against the part's MD5 (uploadPart). Retried by part-retries.ts.
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import type { FailedRequest } from '../../api/errors.js';
import {
  CancelledError,
  FileChangedError,
  HttpStatusError,
  LocalFileError,
  NetworkError,
  PartIntegrityError,
  describeRequest,
} from '../../api/errors.js';
import { s3CodeOf } from '../../api/http.js';
import { DEADLINE_CODE } from '../../api/retry-table.js';
import { etagIsPartMd5, retryAfterMs, storageErrorMessage } from '../../api/storage-answer.js';
import { contentDifference, fileFacts } from '../../intake/file-identity.js';
import type { FileIdentity } from '../../queue/queue.js';
import { ANSWER_GRACE_ON_STOP_MS, EngineStopping, UnansweredPartError } from './in-doubt.js';
import type { LinkMonitor } from '../outages/link.js';
import { PartMd5 } from '../../hash/local-md5.js';
import { PartFileError, putFromFile } from './part-bytes.js';
import type { Bandwidth, Pacing } from '../scheduling/bandwidth.js';

/** What identified a file when it was queued: size (bytes), modification time (ms) and, for rows since migration 4, device, inode and status-change time. */
export type ExpectedFile = { size: number; mtimeMs: number } & Partial<FileIdentity>;

/** One part to send: bytes `[offset, offset + size)` of the file at `path`, to a presigned URL. */
export interface PartPut {
  path: string;
  /** What identified the file when it was queued; a difference fails the file. */
  expected: ExpectedFile;
  partNumber: number;
  offset: number;
  size: number;
  url: string;
  /**
   * The part's quoted MD5 when already known: computed from the card's bytes while the offload
   * copied them (main/offload/part-md5.ts), for this very file. The bytes sent are then not
   * hashed again, and storage's ETag is checked against this MD5 instead.
   */
  md5Etag?: string;
  /**
   * The check run before and after sending that the file still holds the queued bytes; by
   * default assertUnchanged. The engine passes its StoredBytesCheck (stored-bytes.ts), which also
   * compares the parts already stored when the file's status-change time, inode or device moved.
   * Throws FileChangedError or LocalFileError.
   */
  check?: () => Promise<void>;
}

/** How a part upload behaves. Times in ms. */
export interface PartUploadOptions {
  bandwidth: Bandwidth;
  /** The engine's view of the link, to judge the wait for the answer after the last byte. */
  link: LinkMonitor;
  /** Abort and retry a part that moved no byte this long while sending (default 30 000). */
  stallTimeoutMs: number;
  /** Called with the bytes of this part sent so far. */
  onProgress(sent: number): void;
  signal: AbortSignal;
}

/**
 * What storage answered: the ETag exactly as sent (quotes included); `md5Etag`, the quoted MD5 of
 * the bytes sent (what S3 answers for an unencrypted part); and whether the ETag was checked against it.
 */
export interface PartResult {
  etag: string;
  md5Etag: string;
  md5Checked: boolean;
}

/**
 * Every byte of the part was sent but no answer came (connection dropped, or the wait for the
 * answer ran out): storage may hold the part all the same. `md5Etag` (the quoted MD5 of the bytes
 * sent) is the ETag to report if the service then says storage has it. Retried like any network
 * error (§7), but only after asking whether storage has the part, so it is never stored twice.
 * `givenUp` is true when this client gave up waiting (the stall rules or the part's deadline:
 * the bytes may still be on their way, behind a slow link or a proxy that holds them), false
 * when the other side closed the connection (storage, if it has them, stores them within seconds).
 */
export class AnswerLostError extends NetworkError {
  constructor(
    message: string,
    request: FailedRequest,
    code: string | undefined,
    readonly md5Etag: string,
    readonly givenUp = false,
  ) {
    super(message, request, code);
  }
}

// A lost ETag's part is read again in chunks of this size: memory stays small whatever the part
// size (rclone's rule). Parts being sent are read by part-bytes.ts.
const CHUNK = 1024 * 1024;
const PLAIN_MD5_ETAG = /^"([0-9a-f]{32})"$/;
// On pause or cancel, a part whose bytes are all sent waits this long for its answer: storage is
// about to have it. Short, because a pause must stop the bytes within 2 s whatever the network
// does; on quit the wait is ANSWER_GRACE_ON_STOP_MS. A part given up here is marked unanswered and
// the next start asks for it before sending it again (in-doubt.ts).
const ANSWER_GRACE_MS = 1500;
// A write whose completion took this long (ms) found the send buffer full: the bytes taken before
// it are what the system's buffers hold, and the pace of later writes is the link's own. A second,
// so that a busy event loop never passes for a full buffer; a link fast enough never to make a
// 256 KiB write wait that long drains its buffers well inside the stall timeout anyway.
const WAITED_WRITE_MS = 1000;

/**
 * A part's whole time on the wire (ms), not counting time its bytes are held back by this
 * computer's bandwidth limit: twice the stall timeout, plus twice its `bytes` at `minRate` (the
 * slowest link accepted, or the bandwidth limit when that is slower; bytes per second). Its
 * silences are judged by the stall rules; this bounds a link that takes its bytes, only slower
 * than any the engine is built for, and whose measured drain would otherwise let it wait for
 * ever (docs/engine.md, "Every wait has a deadline").
 */
function partDeadlineMs(bytes: number, stallTimeoutMs: number, minRate: number): number {
  return 2 * stallTimeoutMs + Math.ceil((2 * bytes * 1000) / minRate);
}

/**
 * How long one look at a file on its card or drive may take (ms): a stat, or the read of a MiB.
 * A card half out of its reader, a dead network share or a stale mount can leave such a call
 * unanswered for ever; the engine stops waiting for it then (the call itself cannot be taken
 * back) and treats it as a device error: tried again after 2, 5 and 10 s, then failed as
 * unreadable (pulled-cards.ts deviceRetryMs).
 */
const CARD_READ_DEADLINE_MS = 30_000;

/**
 * Resolves as `work` does, or rejects with LocalFileError(`path`, 'ETIMEDOUT') once `ms` passed
 * without an answer (CARD_READ_DEADLINE_MS by default); a rejection of `work` passes unchanged.
 */
export function cardDeadline<T>(path: string, work: Promise<T>, ms = CARD_READ_DEADLINE_MS): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new LocalFileError(path, 'ETIMEDOUT')), ms);
  });
  return Promise.race([work, late]).finally(() => clearTimeout(timer));
}

/**
 * Throws FileChangedError if the file's bytes may differ from those queued (see
 * contentDifference), LocalFileError if it cannot be read, or if its card does not answer within
 * CARD_READ_DEADLINE_MS (code ETIMEDOUT).
 */
export async function assertUnchanged(path: string, expected: ExpectedFile): Promise<void> {
  let difference;
  try {
    difference = await cardDeadline(path, (async () => contentDifference(path, await fileFacts(path), expected))());
  } catch (err) {
    if (err instanceof LocalFileError) throw err;
    throw new LocalFileError(path, (err as NodeJS.ErrnoException).code ?? 'error');
  }
  if (difference) throw new FileChangedError(path, difference);
}

/**
 * The quoted MD5 of bytes `[offset, offset + size)` of a file, read read-only: the ETag S3 gives
 * an unencrypted part, for a part storage holds whose ETag this queue lost (a crash, a lost
 * reply). Checks the file is unchanged before and after. Throws LocalFileError, FileChangedError.
 */
export async function partMd5Etag(path: string, expected: ExpectedFile, offset: number, size: number): Promise<string> {
  await assertUnchanged(path, expected);
  const etag = await bytesMd5Etag(path, offset, size);
  await assertUnchanged(path, expected);
  return etag;
}

/**
 * The quoted MD5 of bytes `[offset, offset + size)` of the file at `path`, read read-only in
 * MiB chunks, each within CARD_READ_DEADLINE_MS (a card that stops answering mid-part is a device
 * error, not a wait for ever; `deadlineMs` for tests). Throws LocalFileError (code ETIMEDOUT for a
 * card that stopped answering).
 */
export async function bytesMd5Etag(
  path: string,
  offset: number,
  size: number,
  deadlineMs = CARD_READ_DEADLINE_MS,
): Promise<string> {
  const md5 = createHash('md5');
  if (size <= 0) return `"${md5.digest('hex')}"`;
  const stream = createReadStream(path, { flags: 'r', start: offset, end: offset + size - 1, highWaterMark: CHUNK });
  try {
    const chunks = stream[Symbol.asyncIterator]();
    for (;;) {
      const next = await cardDeadline(path, chunks.next(), deadlineMs);
      if (next.done) break;
      md5.update(next.value as Buffer);
    }
  } catch (err) {
    if (err instanceof LocalFileError) throw err;
    throw new LocalFileError(path, (err as NodeJS.ErrnoException).code ?? 'error');
  } finally {
    stream.destroy();
  }
  return `"${md5.digest('hex')}"`;
}

/**
 * PUTs one part (§4.6) with no headers but its length, reading it from disk (read-only) only now,
 * hashing it with MD5 once as it is read (part-bytes.ts) unless its MD5 is already known
 * (`job.md5Etag`, from the offload: then the bytes sent are not hashed at all), under the shared
 * bandwidth limit. Checks the file is unchanged before and after sending.
 *
 * Why every byte is hashed: storage's ETag of an unencrypted part is the MD5 of the bytes it
 * received, and §4.6 allows no header (no Content-MD5, no checksum) by which storage could check
 * them itself, so comparing that ETag with our own MD5 is the only way a part corrupted on its
 * way (a mangling proxy, a plain-HTTP link, a faulty storage node) is caught and sent again; and
 * that MD5 is the ETag to report when storage has a part whose answer was lost. It is the one cost
 * of the hot path kept on purpose: about 0.7 CPU s/GiB with four parts hashed at once by the SIMD
 * kernel (main/hash/local-md5.ts), 1.3–1.4 s/GiB with OpenSSL's MD5 on this machine.
 *
 * Stall watch (on the monotonic clock; docs/engine.md, "A silent link"): while sending, a part
 * that moves no byte for `stallTimeoutMs` (time held back by the bandwidth limit does not count)
 * is aborted. While a write waits on a full send buffer, and once every byte is handed over, it
 * waits at most twice the stall timeout since its connection last took a byte, or longer only by
 * twice what this connection measured its own buffers to need at its own rate (the buffer holds
 * several MiB, and a write on a 32 KiB/s link waited 35 s while bytes moved all along), else at
 * the rate of the link's recent answers; a part smaller than the buffers with nothing measured at
 * all, by its own bytes at the slowest link assumed (LinkMonitor.slowest). Every byte taken and every answer is a sign of life for the
 * LinkMonitor, which tells a silent link.
 * On pause or cancel a fully sent part gets 1.5 s for its answer, on quit (EngineStopping) 5 s; a
 * part abandoned is reset, so no byte of it still in this computer's buffers reaches storage
 * afterwards (part-bytes.ts), though storage may still store what it has already received.
 *
 * Resolves with the ETag exactly as storage sent it. Throws PartIntegrityError when the answer has
 * no ETag, or a plain-MD5 ETag that is not the part's MD5 while storage says the part is not
 * encrypted with KMS or a customer key (etagIsPartMd5); AnswerLostError when every byte went
 * out and no answer came; HttpStatusError (with S3's code) or NetworkError from the request;
 * LocalFileError when the file cannot be read; FileChangedError; CancelledError when `signal`
 * aborts, UnansweredPartError (a CancelledError) when it aborts after every byte went out.
 */
export async function uploadPart(job: PartPut, opts: PartUploadOptions): Promise<PartResult> {
  const unchanged = job.check ?? (() => assertUnchanged(job.path, job.expected));
  await unchanged();
  // A pause during the stat above has no listener yet to hear it.
  if (opts.signal.aborted) throw new CancelledError();
  const request = describeRequest('PUT', job.url);
  // An imported copy's part MD5 (computed during the offload) stands in for hashing the bytes sent:
  // such a part is not hashed at all, and takes none of the MD5 kernel's slots (part-bytes.ts).
  const md5 = job.md5Etag ? undefined : new PartMd5();
  let digest: string | undefined;
  // A hash can be finalized once; the MD5 ETag may be wanted on the answer and again on a later failure.
  const md5Etag = () => job.md5Etag ?? (digest ??= `"${md5!.digestHex()}"`);
  let answered = false;
  const pacing: Pacing = { waiting: false };
  const controller = new AbortController();
  let sentAt: number | undefined;
  let grace: NodeJS.Timeout | undefined;
  const onOuterAbort = () => {
    if (sentAt === undefined) return controller.abort(new CancelledError());
    // Quitting may wait a few seconds for an answer about to come; a person's pause must stop the bytes at once.
    const graceMs = opts.signal.reason instanceof EngineStopping ? ANSWER_GRACE_ON_STOP_MS : ANSWER_GRACE_MS;
    grace = setTimeout(() => controller.abort(new CancelledError()), graceMs);
  };
  opts.signal.addEventListener('abort', onOuterAbort, { once: true });
  // Every duration here is measured on the monotonic clock: a wall-clock step must neither fake a stall nor hide one.
  const startedAt = performance.now();
  let lastMove = startedAt;
  let writing = false;
  let writeStartedAt = startedAt;
  let stalled = false;
  // The bytes of this part handed to the system so far.
  let onLink = 0;
  // What this connection tells of the link (docs/engine.md, "A silent link"): the bytes it took
  // at once before its first write had to wait (what the system's buffers hold once full), and
  // from then on the rate at which it took more: the rate at which those buffers drain.
  let burst: number | undefined;
  let burstEnd = 0;
  let ownRate: number | undefined;
  const watch = opts.link.open();
  // How long the bytes this connection holds may still take to reach storage (ms): at its own
  // drain rate when measured, else at the rate measured from answered parts, else unknown (0).
  const drainMs = () => {
    if (ownRate !== undefined) return ((burst ?? 0) * 1000) / ownRate;
    const rate = opts.link.rate();
    return rate === undefined ? 0 : (onLink * 1000) / rate;
  };
  // Nothing measured at all, and every byte taken at once (the part is smaller than the buffers):
  // its own bytes at the slowest link the engine is built for. Not counted as life for the link.
  // A part whose own connection measured nothing takes the rate of the link's recent answers
  // (drainMs): without it, a part the buffers took at once on a silent link would wait its
  // bytes at the slowest link, past twice the stall timeout (docs/engine.md, "A silent link").
  const assumedDrainMs = () =>
    sentAt !== undefined && burst === undefined && opts.link.rate() === undefined
      ? (onLink * 1000) / Math.min(opts.link.slowest, opts.bandwidth.limit ?? Infinity)
      : 0;
  // Its whole time on the wire, less what the bandwidth limit held back (partDeadlineMs).
  const slowest = Math.min(opts.link.slowest, opts.bandwidth.limit ?? Infinity);
  const deadlineMs = partDeadlineMs(job.size, opts.stallTimeoutMs, slowest);
  let onWireMs = 0;
  let lastTick = startedAt;
  // One timer per part, not one per chunk: each write only stamps lastMove, the timer judges it.
  const watchdog = setInterval(
    () => {
      const now = performance.now();
      if (!pacing.waiting) onWireMs += now - lastTick;
      lastTick = now;
      if (onWireMs >= deadlineMs) {
        stalled = true;
        controller.abort(
          new NetworkError(
            `Storage answers too slowly: part ${job.partNumber} took ${Math.round(onWireMs / 1000)} s for ${onLink} of ${job.size} bytes, more than a part of this size may take (${Math.round(deadlineMs / 1000)} s at the slowest link accepted, ${Math.round(slowest / 1024)} KiB/s)`,
            request,
            DEADLINE_CODE,
          ),
        );
        return;
      }
      if (pacing.waiting) lastMove = now;
      watch.holding = pacing.waiting;
      // While a write waits for room in the send buffer, and once every byte is handed over, the
      // link is carrying what the buffers hold: nothing shows it until a write completes or
      // storage answers. The wait is bounded by twice the stall timeout, or longer only by what
      // this very connection measured its buffers to need (at 32 KiB/s the ~4 MiB the system
      // buffers take 128 s), never by what the rest of the queue has in flight.
      const onTheLink = sentAt !== undefined || writing;
      const drain = onTheLink ? drainMs() : 0;
      watch.drainingUntil = onTheLink ? lastMove + drain : 0;
      const allowance = onTheLink
        ? Math.max(2 * opts.stallTimeoutMs, opts.stallTimeoutMs + 2 * drain, opts.stallTimeoutMs + assumedDrainMs())
        : opts.stallTimeoutMs;
      const quietFor = now - lastMove;
      if (quietFor < allowance) return;
      stalled = true;
      controller.abort(new NetworkError(`No progress for ${Math.round(quietFor / 1000)} s`, request, 'ESTALLED'));
    },
    Math.min(1000, Math.max(50, opts.stallTimeoutMs / 4)),
  );
  const onWriting = (w: boolean) => {
    const now = performance.now();
    writing = w;
    if (w) writeStartedAt = now;
    else {
      // The connection took the bytes: a sign of life from storage (its buffers had room).
      if (burst === undefined && now - writeStartedAt >= WAITED_WRITE_MS) {
        burst = onLink;
        burstEnd = writeStartedAt;
      }
      opts.link.alive(now);
    }
    lastMove = now;
  };
  const onSent = (sent: number) => {
    const now = performance.now();
    lastMove = now;
    onLink = sent;
    if (burst !== undefined && now - burstEnd >= 1) ownRate = ((sent - burst) * 1000) / (now - burstEnd);
    if (sent >= job.size && sentAt === undefined) sentAt = lastMove;
    opts.onProgress(sent);
  };

  try {
    const answer = await putFromFile(job.url, job.path, job.offset, job.size, {
      bandwidth: opts.bandwidth,
      pacing,
      ...(md5 ? { md5 } : {}),
      onSent,
      onWriting,
      signal: controller.signal,
    });
    answered = true;
    opts.link.alive();
    if (answer.status < 200 || answer.status >= 300) {
      const message = storageErrorMessage(answer.status, answer.text, answer.headers);
      throw new HttpStatusError(
        message,
        answer.status,
        request,
        s3CodeOf(answer.text),
        retryAfterMs(answer.headers['retry-after']),
      );
    }
    opts.link.answered(job.size, startedAt, performance.now());
    const etag = answer.etag;
    const sentMd5 = md5Etag();
    if (!etag) {
      // A network sign-in page or a proxy answering 200 in storage's place: nothing was stored.
      if (/html/i.test(String(answer.headers['content-type'] ?? ''))) {
        throw new PartIntegrityError(
          `A web page answered part ${job.partNumber} instead of storage (a network sign-in page or a proxy?); the part is sent again`,
        );
      }
      throw new PartIntegrityError(
        `Storage accepted part ${job.partNumber} without an ETag header; the part is sent again`,
      );
    }
    await unchanged();
    // Under SSE-KMS or SSE-C the ETag looks like an MD5 but is not one (README: what the client relies on).
    const plain = PLAIN_MD5_ETAG.test(etag) && etagIsPartMd5(answer.headers);
    if (plain && etag !== sentMd5) {
      throw new PartIntegrityError(
        `Part ${job.partNumber} arrived corrupted (its ETag is not the MD5 of the bytes sent); the part is sent again`,
      );
    }
    return { etag, md5Etag: sentMd5, md5Checked: plain };
  } catch (err) {
    if (err instanceof PartFileError) {
      if (err.code === 'EOF') await assertUnchanged(job.path, job.expected); // it shrank: FileChangedError says how
      throw new LocalFileError(job.path, err.code);
    }
    // Every byte went out and no answer came before the stop: storage may store the part yet (in-doubt.ts).
    if (opts.signal.aborted)
      throw sentAt !== undefined && !answered ? new UnansweredPartError(md5Etag()) : new CancelledError();
    if (
      err instanceof PartIntegrityError ||
      err instanceof FileChangedError ||
      err instanceof LocalFileError ||
      err instanceof HttpStatusError
    )
      throw err;
    const failure = stalled ? (controller.signal.reason as NetworkError) : toNetworkError(err, request);
    if (sentAt !== undefined) {
      throw new AnswerLostError(
        `${failure.message} after the whole part was sent`,
        request,
        failure.code,
        md5Etag(),
        stalled,
      );
    }
    throw failure;
  } finally {
    clearInterval(watchdog);
    clearTimeout(grace);
    watch.close();
    opts.signal.removeEventListener('abort', onOuterAbort);
  }
}

// The request's own error is not kept as the cause: node's errors can carry the request, and with
// it the presigned URL's signature, which must never reach a log.
function toNetworkError(err: unknown, request: FailedRequest): NetworkError {
  if (err instanceof NetworkError) return err;
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  return new NetworkError(`No answer from storage: ${code ?? 'connection closed'}`, request, code ?? 'ECONNRESET');
}
