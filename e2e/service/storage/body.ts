import { createHash } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import type { IncomingMessage } from 'node:http';
import type { FaultAction } from '../faults.js';
import { sleep } from '../http-router.js';
import type { S3Error } from './s3-error-response.js';
import { s3Errors } from './s3-error-response.js';
import type { StorageOptions } from './request.js';
import type { VerifiedRequest } from './sigv4.js';
import type { ReceivedBody } from './disk-store.js';

// Request bodies as the local storage receives them (server.ts).

/**
 * Streams a request body into a temporary file of the store, hashing it as it goes, under the
 * shared bandwidth cap. Checks Content-Length (IncompleteBody), Content-MD5 (BadDigest) and a
 * signed payload hash (XAmzContentSHA256Mismatch). Returns undefined when the connection was
 * reset by a fault or dropped by the client: nothing is stored then.
 */
export async function receiveBody(
  opts: StorageOptions,
  req: IncomingMessage,
  verified: VerifiedRequest,
  fault: FaultAction | undefined,
): Promise<ReceivedBody | undefined> {
  const tmpFile = opts.store.tmpFile();
  const out = createWriteStream(tmpFile);
  // A write still in flight when the client drops the connection fails once `out` is destroyed;
  // that failure is expected then, and any other one is checked when the body is complete.
  let writeError: Error | undefined;
  out.on('error', (err) => (writeError ??= err));
  const md5 = createHash('md5');
  const sha256 = verified.payloadSha256 ? createHash('sha256') : undefined;
  const resetAt = fault?.type === 'reset' ? fault.afterBytes : Infinity;
  // A slow path for this request alone (the `slowBody` fault): reading is held back to its rate.
  const slowRate = fault?.type === 'slowBody' ? fault.bytesPerSecond : undefined;
  const startedAt = performance.now();
  let size = 0;
  const discard = async () => {
    out.destroy();
    await rm(tmpFile, { force: true });
  };
  try {
    for await (const chunk of req as AsyncIterable<Buffer>) {
      if (size + chunk.length >= resetAt) {
        req.socket.destroy();
        await discard();
        return undefined;
      }
      await opts.faults.throttle.consume(chunk.length);
      if (slowRate) {
        const due = startedAt + ((size + chunk.length) / slowRate) * 1000;
        if (due > performance.now()) await sleep(due - performance.now());
      }
      opts.store.bytesReceived += chunk.length;
      size += chunk.length;
      md5.update(chunk);
      sha256?.update(chunk);
      if (!out.write(chunk)) await new Promise<void>((r) => out.once('drain', () => r()));
    }
  } catch {
    await discard();
    return undefined;
  }
  if (!req.complete) {
    await discard();
    return undefined;
  }
  await new Promise<void>((resolve, reject) => out.end((err?: Error | null) => (err ? reject(err) : resolve())));
  if (writeError) {
    await rm(tmpFile, { force: true });
    throw writeError;
  }
  const declared = req.headers['content-length'];
  const md5Digest = md5.digest();
  const fail = async (e: S3Error) => {
    await rm(tmpFile, { force: true });
    throw e;
  };
  if (declared !== undefined && Number(declared) !== size) await fail(s3Errors.incompleteBody());
  const contentMd5 = req.headers['content-md5'];
  if (contentMd5 && contentMd5 !== md5Digest.toString('base64')) await fail(s3Errors.badDigest());
  if (sha256 && sha256.digest('hex') !== verified.payloadSha256) await fail(s3Errors.sha256Mismatch());
  return { tmpFile, md5Hex: md5Digest.toString('hex'), size };
}

/** A small request body (CompleteMultipartUpload's XML) as UTF-8 text. Throws S3Error MalformedXML above 1 MiB. */
export async function readSmallBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const c of req as AsyncIterable<Buffer>) {
    size += c.length;
    if (size > 1024 * 1024) throw s3Errors.malformedXml();
    chunks.push(c);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** Reads a request body to its end and drops it (a request answered without its body). */
export async function drain(req: IncomingMessage): Promise<void> {
  for await (const _ of req as AsyncIterable<Buffer>) void _;
}
