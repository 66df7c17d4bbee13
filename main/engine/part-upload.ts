import type { Got } from 'got';
import { got } from 'got';
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { pipeline } from 'node:stream';
import { Transform } from 'node:stream';
import type { FailedRequest } from '../api/errors.js';
import { CancelledError, FileChangedError, LocalFileError, NetworkError, PartIntegrityError, describeRequest } from '../api/errors.js';
import { toClientError } from '../api/http.js';
import { fileFacts, identityDifference } from '../file-identity.js';
import type { FileIdentity } from '../queue/queue.js';
import type { LinkMonitor } from './link.js';
import type { Bandwidth, Pacing } from './throttle.js';

/** What identified a file when it was queued: size (bytes), modification time (ms) and, for rows since migration 4, device, inode and status-change time. */
export type ExpectedFile = { size: number; mtimeMs: number } & Partial<FileIdentity>;

/** One part to send: bytes `[offset, offset + size)` of the file at `path`, to a presigned URL. */
export interface PartJob {
  path: string;
  /** What identified the file when it was queued; a difference fails the file. */
  expected: ExpectedFile;
  partNumber: number;
  offset: number;
  size: number;
  url: string;
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
 */
export class AnswerLostError extends NetworkError {
  constructor(
    message: string,
    request: FailedRequest,
    code: string | undefined,
    readonly md5Etag: string,
  ) {
    super(message, request, code);
  }
}

// Parts are streamed from disk in chunks of this size, so memory is concurrency × 256 KiB, not
// concurrency × part size (rclone's rule), and never grows with the file.
const CHUNK = 256 * 1024;
const PLAIN_MD5_ETAG = /^"([0-9a-f]{32})"$/;
// On pause or quit, a part whose bytes are all sent waits this long for its answer: storage is
// about to have it. Short, because pause and quit must stop within 2 s whatever the network does;
// a part abandoned here is not lost (the next start finds it in storage and reports its MD5).
const ANSWER_GRACE_MS = 1500;

const putClient: Got = got.extend({
  retry: { limit: 0 }, // the engine retries parts itself, following §7 of the interface
  throwHttpErrors: true,
  decompress: false,
  // No authentication header ever: the presigned URL is the authorization (§4.6, §5.4).
  headers: { 'user-agent': 'capture-uploader' },
});

/** Throws FileChangedError if the file on disk is not the one queued (see identityDifference), LocalFileError if it cannot be read. */
export async function assertUnchanged(path: string, expected: ExpectedFile): Promise<void> {
  let now;
  try {
    now = await fileFacts(path);
  } catch (err) {
    throw new LocalFileError(path, (err as NodeJS.ErrnoException).code ?? 'error');
  }
  const difference = identityDifference(now, expected);
  if (difference) throw new FileChangedError(path, difference);
}

/**
 * The quoted MD5 of bytes `[offset, offset + size)` of a file, read read-only: the ETag S3 gives
 * an unencrypted part, for a part storage holds whose ETag this queue lost (a crash, a lost
 * reply). Checks the file is unchanged before and after. Throws LocalFileError, FileChangedError.
 */
export async function partMd5Etag(path: string, expected: ExpectedFile, offset: number, size: number): Promise<string> {
  await assertUnchanged(path, expected);
  const md5 = createHash('md5');
  try {
    for await (const chunk of createReadStream(path, { flags: 'r', start: offset, end: offset + size - 1, highWaterMark: CHUNK })) md5.update(chunk as Buffer);
  } catch (err) {
    throw new LocalFileError(path, (err as NodeJS.ErrnoException).code ?? 'error');
  }
  await assertUnchanged(path, expected);
  return `"${md5.digest('hex')}"`;
}

/**
 * PUTs one part (§4.6) with no headers but its length, reading it from disk (read-only) only now,
 * hashing it with MD5 on the way, under the shared bandwidth limit. Checks the file is unchanged
 * before and after sending.
 *
 * Stall watch: while sending, a part that moves no byte for `stallTimeoutMs` (time held back by
 * the bandwidth limit does not count) is aborted; once every byte is handed over, the wait for the
 * answer may last as long as the link needs to deliver what is still buffered (LinkMonitor).
 * On pause or quit a fully sent part gets 1.5 s for its answer.
 *
 * Resolves with the ETag exactly as storage sent it. Throws PartIntegrityError when the answer has
 * no ETag or a plain-MD5 ETag that is not the part's MD5; AnswerLostError when every byte went
 * out and no answer came; HttpStatusError (with S3's code) or NetworkError from the request;
 * LocalFileError when the file cannot be read; FileChangedError; CancelledError when `signal` aborts.
 */
export async function uploadPart(job: PartJob, opts: PartUploadOptions): Promise<PartResult> {
  await assertUnchanged(job.path, job.expected);
  const request = describeRequest('PUT', job.url);
  const md5 = createHash('md5');
  const hasher = new Transform({
    transform(chunk: Buffer, _enc, done) {
      md5.update(chunk);
      done(null, chunk);
    },
  });
  let readError: NodeJS.ErrnoException | undefined;
  const source = createReadStream(job.path, { flags: 'r', start: job.offset, end: job.offset + job.size - 1, highWaterMark: CHUNK });
  source.once('error', (err) => (readError = err));
  const pacing: Pacing = { waiting: false };
  // pipeline() tears every stage down together when the request is aborted, so no stage is left writing into a destroyed one.
  const body = pipeline(source, hasher, opts.bandwidth.stream(pacing), () => {});

  const controller = new AbortController();
  // Stop reading the file the moment the request is abandoned, before got tears the request down.
  controller.signal.addEventListener('abort', () => body.destroy(), { once: true });
  let sentAt: number | undefined;
  let settleLink: (() => void) | undefined;
  let grace: NodeJS.Timeout | undefined;
  const onOuterAbort = () => {
    if (sentAt === undefined) return controller.abort(new CancelledError());
    grace = setTimeout(() => controller.abort(new CancelledError()), ANSWER_GRACE_MS);
  };
  opts.signal.addEventListener('abort', onOuterAbort, { once: true });
  const startedAt = Date.now();
  let lastMove = startedAt;
  let stalled = false;
  const watchdog = setInterval(
    () => {
      const now = Date.now();
      if (pacing.waiting) lastMove = now;
      const quiet = sentAt === undefined ? now - lastMove >= opts.stallTimeoutMs : now - sentAt >= opts.link.answerAllowanceMs(opts.stallTimeoutMs);
      if (!quiet) return;
      stalled = true;
      controller.abort(new NetworkError(`No progress for ${Math.round((now - (sentAt ?? lastMove)) / 1000)} s`, request, 'ESTALLED'));
    },
    Math.min(1000, Math.max(50, opts.stallTimeoutMs / 4)),
  );

  try {
    const pending = putClient.put(job.url, {
      body,
      headers: { 'content-length': String(job.size) },
      signal: controller.signal,
    });
    pending.on('uploadProgress', (p) => {
      lastMove = Date.now();
      if (p.transferred >= job.size && sentAt === undefined) {
        sentAt = lastMove;
        settleLink = opts.link.handedOver(job.size);
      }
      opts.onProgress(Math.min(p.transferred, job.size));
    });
    const res = await pending;
    opts.link.answered(job.size, startedAt);
    const etag = res.headers.etag;
    const md5Etag = `"${md5.digest('hex')}"`;
    if (!etag) throw new PartIntegrityError(`Storage accepted part ${job.partNumber} without an ETag header; the part is sent again`);
    await assertUnchanged(job.path, job.expected);
    const plain = PLAIN_MD5_ETAG.test(etag);
    if (plain && etag !== md5Etag) {
      throw new PartIntegrityError(`Part ${job.partNumber} arrived corrupted (its ETag is not the MD5 of the bytes sent); the part is sent again`);
    }
    return { etag, md5Etag, md5Checked: plain };
  } catch (err) {
    if (readError) throw new LocalFileError(job.path, readError.code ?? 'error');
    if (opts.signal.aborted) throw new CancelledError();
    if (err instanceof PartIntegrityError || err instanceof FileChangedError || err instanceof LocalFileError) throw err;
    const failure = stalled ? (controller.signal.reason as NetworkError) : toClientError(err, request);
    if (sentAt !== undefined && failure instanceof NetworkError) {
      throw new AnswerLostError(`${failure.message} after the whole part was sent`, request, failure.code, `"${md5.digest('hex')}"`);
    }
    throw failure;
  } finally {
    clearInterval(watchdog);
    clearTimeout(grace);
    settleLink?.();
    opts.signal.removeEventListener('abort', onOuterAbort);
    body.destroy();
  }
}
