import type { Got } from 'got';
import { got } from 'got';
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { Transform, pipeline } from 'node:stream';
import { CancelledError, FileChangedError, NetworkError, PartIntegrityError, describeRequest } from '../api/errors.js';
import { toClientError } from '../api/http.js';
import type { Bandwidth } from './throttle.js';

/** One part to send: bytes `[offset, offset + size)` of the file at `path`, to a presigned URL. */
export interface PartJob {
  path: string;
  /** Size (bytes) and modification time (ms) the file had when queued; a difference fails the file. */
  expected: { size: number; mtimeMs: number };
  partNumber: number;
  offset: number;
  size: number;
  url: string;
}

/** How a part upload behaves. Times in ms. */
export interface PartUploadOptions {
  bandwidth: Bandwidth;
  /** Abort and retry a part that made no progress for this long (default 30 000). */
  stallTimeoutMs: number;
  /** Called with the bytes of this part sent so far (at most a few times a second per part). */
  onProgress(sent: number): void;
  signal: AbortSignal;
}

/** What storage answered: the ETag exactly as sent (quotes included), and whether it was checked against the MD5. */
export interface PartResult {
  etag: string;
  md5Checked: boolean;
}

// Parts are streamed from disk in chunks of this size, so memory is concurrency × 256 KiB, not
// concurrency × part size (rclone's rule), and never grows with the file.
const CHUNK = 256 * 1024;
const PLAIN_MD5_ETAG = /^"([0-9a-f]{32})"$/;

const putClient: Got = got.extend({
  retry: { limit: 0 }, // the engine retries parts itself, following §7 of the interface
  throwHttpErrors: true,
  decompress: false,
  // No authentication header ever: the presigned URL is the authorization (§4.6, §5.4).
  headers: { 'user-agent': 'capture-uploader' },
});

/** Throws FileChangedError if the file's size or modification time is not what was queued. */
export async function assertUnchanged(path: string, expected: { size: number; mtimeMs: number }): Promise<void> {
  let s;
  try {
    s = await stat(path);
  } catch (err) {
    throw new FileChangedError(path, `it can no longer be read: ${(err as NodeJS.ErrnoException).code ?? String(err)}`);
  }
  if (s.size !== expected.size) throw new FileChangedError(path, `size ${s.size} bytes, queued with ${expected.size}`);
  if (Math.trunc(s.mtimeMs) !== Math.trunc(expected.mtimeMs)) {
    throw new FileChangedError(path, `modified ${new Date(s.mtimeMs).toISOString()}, queued as ${new Date(expected.mtimeMs).toISOString()}`);
  }
}

/**
 * PUTs one part (§4.6) with no headers but its length, reading it from disk (read-only) only now,
 * hashing it with MD5 on the way, under the shared bandwidth limit. Aborts when no byte moved for
 * `stallTimeoutMs`. Checks the file is unchanged before and after sending. When `signal` aborts
 * after every byte was sent, the answer is still awaited (at most 10 s): the result then counts.
 *
 * Resolves with the ETag header exactly as storage sent it. Throws PartIntegrityError when the
 * answer has no ETag or a plain-MD5 ETag that is not the part's MD5; HttpStatusError (with S3's
 * code) or NetworkError from the request; FileChangedError; CancelledError when `signal` aborts.
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
  const source = createReadStream(job.path, { flags: 'r', start: job.offset, end: job.offset + job.size - 1, highWaterMark: CHUNK });
  // pipeline() tears every stage down together when the request is aborted, so no stage is left writing into a destroyed one.
  const body = pipeline(source, hasher, opts.bandwidth.stream(), () => {});

  const controller = new AbortController();
  // Stop reading the file the moment the request is abandoned, before got tears the request down.
  controller.signal.addEventListener('abort', () => body.destroy(), { once: true });
  // On pause or shutdown a part whose bytes are all sent is given a moment to be answered: storage
  // is about to have it, and abandoning it now would make a restarted app send it a second time.
  let fullySent = false;
  let grace: NodeJS.Timeout | undefined;
  const onOuterAbort = () => {
    if (!fullySent) return controller.abort(new CancelledError());
    grace = setTimeout(() => controller.abort(new CancelledError()), Math.min(opts.stallTimeoutMs, 10_000));
  };
  opts.signal.addEventListener('abort', onOuterAbort, { once: true });
  let lastMove = Date.now();
  let stalled = false;
  const watchdog = setInterval(() => {
    if (Date.now() - lastMove >= opts.stallTimeoutMs) {
      stalled = true;
      controller.abort(new NetworkError(`No progress for ${Math.round(opts.stallTimeoutMs / 1000)} s`, request, 'ESTALLED'));
    }
  }, Math.min(1000, Math.max(50, opts.stallTimeoutMs / 4)));

  try {
    const pending = putClient.put(job.url, {
      body,
      headers: { 'content-length': String(job.size) },
      signal: controller.signal,
    });
    pending.on('uploadProgress', (p) => {
      lastMove = Date.now();
      if (p.transferred >= job.size) fullySent = true;
      opts.onProgress(Math.min(p.transferred, job.size));
    });
    const res = await pending;
    const etag = res.headers.etag;
    if (!etag) throw new PartIntegrityError(`Storage accepted part ${job.partNumber} without an ETag header; the part is sent again`);
    await assertUnchanged(job.path, job.expected);
    const plain = PLAIN_MD5_ETAG.exec(etag);
    if (plain && plain[1] !== md5.digest('hex')) {
      throw new PartIntegrityError(`Part ${job.partNumber} arrived corrupted (its ETag is not the MD5 of the bytes sent); the part is sent again`);
    }
    return { etag, md5Checked: Boolean(plain) };
  } catch (err) {
    if (opts.signal.aborted) throw new CancelledError();
    if (stalled) throw controller.signal.reason as Error;
    if (err instanceof PartIntegrityError || err instanceof FileChangedError) throw err;
    throw toClientError(err, request);
  } finally {
    clearInterval(watchdog);
    clearTimeout(grace);
    opts.signal.removeEventListener('abort', onOuterAbort);
    body.destroy();
  }
}
