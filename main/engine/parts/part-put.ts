// One PUT of a part (§4.6): the file checked unchanged, the part watched (part-stall-watch.ts), and
// storage's ETag checked against the part's MD5 (uploadPart). Retried by part-retries.ts.
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
import { etagIsPartMd5, retryAfterMs, storageErrorMessage } from '../../api/storage-answer.js';
import { contentDifference, fileFacts } from '../../intake/file-identity.js';
import type { FileIdentity } from '../../queue/queue.js';
import { ANSWER_GRACE_ON_STOP_MS, EngineStopping, UnansweredPartError } from './in-doubt.js';
import type { LinkMonitor } from '../outages/link.js';
import { PartMd5 } from '../../hash/local-md5.js';
import { PartFileError, putFromFile } from './part-bytes.js';
import type { Bandwidth } from '../scheduling/bandwidth.js';
import { PartStallWatch } from './part-stall-watch.js';

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
 * Watched by PartStallWatch (docs/engine.md, "A silent link"): a part that moves no byte for
 * `stallTimeoutMs`, waits on its buffers or its answer past what its connection measured, or
 * stays on the wire past its deadline is given up.
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
  const controller = new AbortController();
  const startedAt = performance.now();
  const watch = new PartStallWatch(
    { ...opts, partNumber: job.partNumber, size: job.size },
    request,
    (reason) => controller.abort(reason),
    startedAt,
  );
  let grace: NodeJS.Timeout | undefined;
  const onOuterAbort = () => {
    if (watch.sentAt === undefined) return controller.abort(new CancelledError());
    // Quitting may wait a few seconds for an answer about to come; a person's pause must stop the bytes at once.
    const graceMs = opts.signal.reason instanceof EngineStopping ? ANSWER_GRACE_ON_STOP_MS : ANSWER_GRACE_MS;
    grace = setTimeout(() => controller.abort(new CancelledError()), graceMs);
  };
  opts.signal.addEventListener('abort', onOuterAbort, { once: true });
  try {
    const answer = await putFromFile(job.url, job.path, job.offset, job.size, {
      bandwidth: opts.bandwidth,
      pacing: watch.pacing,
      ...(md5 ? { md5 } : {}),
      onSent: watch.onSent,
      onWriting: watch.onWriting,
      signal: controller.signal,
    });
    answered = true;
    opts.link.alive();
    if (answer.status < 200 || answer.status >= 300) throw refusal(answer, request);
    opts.link.answered(job.size, startedAt, performance.now());
    return await acceptedPart(answer, job.partNumber, md5Etag(), unchanged);
  } catch (err) {
    if (err instanceof PartFileError) {
      if (err.code === 'EOF') await assertUnchanged(job.path, job.expected); // it shrank: FileChangedError says how
      throw new LocalFileError(job.path, err.code);
    }
    // Every byte went out and no answer came before the stop: storage may store the part yet (in-doubt.ts).
    if (opts.signal.aborted)
      throw watch.sentAt !== undefined && !answered ? new UnansweredPartError(md5Etag()) : new CancelledError();
    if (
      err instanceof PartIntegrityError ||
      err instanceof FileChangedError ||
      err instanceof LocalFileError ||
      err instanceof HttpStatusError
    )
      throw err;
    const failure = watch.stalled ? (controller.signal.reason as NetworkError) : toNetworkError(err, request);
    if (watch.sentAt !== undefined) {
      throw new AnswerLostError(
        `${failure.message} after the whole part was sent`,
        request,
        failure.code,
        md5Etag(),
        watch.stalled,
      );
    }
    throw failure;
  } finally {
    watch.close();
    clearTimeout(grace);
    opts.signal.removeEventListener('abort', onOuterAbort);
  }
}

/** Storage's answer to a part PUT, as putFromFile gives it. */
type PartAnswer = Awaited<ReturnType<typeof putFromFile>>;

/** The HttpStatusError for a part PUT answered other than 2xx: S3's code and message, and its Retry-After (ms). */
function refusal(answer: PartAnswer, request: FailedRequest): HttpStatusError {
  return new HttpStatusError(
    storageErrorMessage(answer.status, answer.text, answer.headers),
    answer.status,
    request,
    s3CodeOf(answer.text),
    retryAfterMs(answer.headers['retry-after']),
  );
}

/**
 * The part storage accepted (2xx), its ETag checked: present, from storage rather than a web page,
 * the file still unchanged (`unchanged`), and, when storage says the part is not encrypted with KMS
 * or a customer key (etagIsPartMd5), equal to `sentMd5`. Throws PartIntegrityError, or what
 * `unchanged` throws (FileChangedError, LocalFileError).
 */
async function acceptedPart(
  answer: PartAnswer,
  partNumber: number,
  sentMd5: string,
  unchanged: () => Promise<void>,
): Promise<PartResult> {
  const etag = answer.etag;
  if (!etag) {
    // A network sign-in page or a proxy answering 200 in storage's place: nothing was stored.
    if (/html/i.test(String(answer.headers['content-type'] ?? ''))) {
      throw new PartIntegrityError(
        `A web page answered part ${partNumber} instead of storage (a network sign-in page or a proxy?); the part is sent again`,
      );
    }
    throw new PartIntegrityError(`Storage accepted part ${partNumber} without an ETag header; the part is sent again`);
  }
  await unchanged();
  // Under SSE-KMS or SSE-C the ETag looks like an MD5 but is not one (README: what the client relies on).
  const plain = PLAIN_MD5_ETAG.test(etag) && etagIsPartMd5(answer.headers);
  if (plain && etag !== sentMd5) {
    throw new PartIntegrityError(
      `Part ${partNumber} arrived corrupted (its ETag is not the MD5 of the bytes sent); the part is sent again`,
    );
  }
  return { etag, md5Etag: sentMd5, md5Checked: plain };
}

// The request's own error is not kept as the cause: node's errors can carry the request, and with
// it the presigned URL's signature, which must never reach a log.
function toNetworkError(err: unknown, request: FailedRequest): NetworkError {
  if (err instanceof NetworkError) return err;
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  return new NetworkError(`No answer from storage: ${code ?? 'connection closed'}`, request, code ?? 'ECONNRESET');
}
