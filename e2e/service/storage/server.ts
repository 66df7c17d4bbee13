import { randomBytes } from 'node:crypto';
import { rm } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FaultAction } from '../faults.js';
import { sleep } from '../http-router.js';
import { S3Error, s3Errors } from './s3-error-response.js';
import type { VerifiedRequest } from './sigv4.js';
import { verifySigV4 } from './sigv4.js';
import type { ReceivedBody } from './disk-store.js';
import { MAX_PART_NUMBER } from './disk-store.js';
import { errorXml, parseCompleteMultipartUpload, s3Xml } from './xml.js';
import { drain, readSmallBody, receiveBody } from './body.js';
import { getObject, listObjects } from './reads.js';
import type { S3Request, StorageOptions } from './request.js';

export type { StorageOptions } from './request.js';

/** Names the S3 operation of a path-style request (virtual-hosted-style addressing is not served). */
function classify(req: IncomingMessage): S3Request {
  const raw = req.url ?? '/';
  const q = raw.indexOf('?');
  const path = q < 0 ? raw : raw.slice(0, q);
  const query = new URLSearchParams(q < 0 ? '' : raw.slice(q + 1));
  const [, bucketPart = '', ...keyParts] = path.split('/');
  const bucket = decodeURIComponent(bucketPart);
  const key = decodeURIComponent(keyParts.join('/'));
  const m = req.method ?? 'GET';
  const pn = query.get('partNumber');
  const partNumber = pn === null ? undefined : Number(pn);
  const has = (k: string) => query.has(k);
  let operation = 'Unknown';
  if (!bucket) operation = m === 'GET' ? 'ListBuckets' : 'Unknown';
  else if (!key)
    operation =
      m === 'GET'
        ? query.get('list-type') === '2'
          ? 'ListObjectsV2'
          : 'ListObjects'
        : m === 'HEAD'
          ? 'HeadBucket'
          : m === 'PUT'
            ? 'CreateBucket'
            : 'Unknown';
  else if (m === 'PUT') operation = has('uploadId') && pn !== null ? 'UploadPart' : 'PutObject';
  else if (m === 'POST')
    operation = has('uploads') ? 'CreateMultipartUpload' : has('uploadId') ? 'CompleteMultipartUpload' : 'Unknown';
  else if (m === 'GET') operation = has('uploadId') ? 'ListParts' : 'GetObject';
  else if (m === 'HEAD') operation = 'HeadObject';
  else if (m === 'DELETE') operation = has('uploadId') ? 'AbortMultipartUpload' : 'DeleteObject';
  return { operation, bucket, key, query, partNumber };
}

/**
 * Creates the request handler of the local S3-compatible storage.
 *
 * Serves, with S3's rules and error codes: CreateMultipartUpload, UploadPart (presigned or
 * header-signed; ETag header is the quoted MD5 of the part), ListParts with paging
 * (`max-parts`, `part-number-marker`), CompleteMultipartUpload, AbortMultipartUpload,
 * PutObject, GetObject (with Range), HeadObject, HeadBucket, ListBuckets and ListObjects (v1 and
 * v2, with prefix, delimiter, paging and URL encoding). Every request must carry a valid SigV4
 * signature. Faults from the registry are applied per request (see faults.ts); the settings
 * `serverSideEncryption` (KMS-style part ETags and headers), `storageRetryAfterSeconds`
 * (Retry-After on SlowDown and 429) and `partStoreDelayMs` (time from a part's last byte to its
 * storing and answer) change every answer from then on. The `dropWhileStoring` fault closes the
 * connection as a part's last byte arrives and stores the part after that wait all the same.
 */
export function createStorageHandler(opts: StorageOptions): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    const requestId = randomBytes(8).toString('hex').toUpperCase();
    res.setHeader('x-amz-request-id', requestId);
    res.setHeader('server', 'capture-service-storage');
    handle(opts, req, res).catch((err: unknown) => {
      const s3err = err instanceof S3Error ? err : s3Errors.internalError();
      if (!(err instanceof S3Error)) console.error('storage: unexpected error', err);
      sendError(req, res, s3err, requestId, opts.faults.settings.storageRetryAfterSeconds);
    });
  };
}

function sendError(
  req: IncomingMessage,
  res: ServerResponse,
  err: S3Error,
  requestId: string,
  retryAfterSeconds: number | null,
): void {
  if (res.headersSent || res.destroyed) {
    res.destroy();
    return;
  }
  const body = req.method === 'HEAD' ? '' : errorXml(err, (req.url ?? '/').split('?')[0]!, requestId);
  // The body of a refused upload is not read; closing the connection keeps it from being parsed as the next request.
  res.writeHead(err.status, {
    'content-type': 'application/xml',
    'content-length': Buffer.byteLength(body),
    ...(req.readableEnded ? {} : { connection: 'close' }),
    ...(retryAfterSeconds !== null && (err.status === 429 || err.code === 'SlowDown')
      ? { 'retry-after': String(retryAfterSeconds) }
      : {}),
    ...(err.retryAfter === undefined ? {} : { 'retry-after': err.retryAfter }),
  });
  res.end(body);
}

async function handle(opts: StorageOptions, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const arrivedAt = performance.now();
  const r = classify(req);
  const method = req.method ?? 'GET';
  if (opts.faults.settings.latencyMs) await sleep(opts.faults.settings.latencyMs);
  const received = opts.store.received;
  received.push({
    operation: r.operation,
    ...(r.partNumber === undefined ? {} : { partNumber: r.partNumber, key: r.key }),
    at: Date.now(),
  });
  if (received.length > 100_000) received.splice(0, received.length - 100_000);
  const facts = { target: 'storage' as const, operation: r.operation, method, partNumber: r.partNumber, key: r.key };
  let fault = opts.faults.take(facts);
  if (fault?.type === 'html') return sendHtml(req, res, fault.status);
  if (fault?.type === 'latency') await sleep(fault.ms);
  if (fault?.type === 'hang') {
    // The client's own timeout has to end it; cleared first, the link is back and it goes on.
    if (!(await opts.faults.hold(req, facts))) return;
    fault = undefined;
  }
  if (fault?.type === 'reset' && fault.afterBytes === 0) {
    req.socket.destroy();
    return;
  }

  const verified = await verifySigV4(req, opts.credentials);
  if (r.operation === 'ListBuckets') {
    const buckets = await opts.store.listBuckets();
    return sendXml(
      res,
      200,
      s3Xml('ListAllMyBucketsResult', {
        Owner: { ID: 'local', DisplayName: 'local' },
        Buckets: { Bucket: buckets.map((b) => ({ Name: b.name, CreationDate: b.created })) },
      }),
    );
  }
  if (r.operation === 'CreateBucket') {
    // Clients such as rclone make sure the bucket exists before writing: as S3 in us-east-1 does
    // for a bucket of your own, that is a success; other buckets are created empty.
    await drain(req);
    if (!/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/.test(r.bucket) || r.bucket.includes('..')) {
      throw new S3Error('InvalidBucketName', 'The specified bucket is not valid.', 400);
    }
    await opts.store.init([r.bucket]);
    res.writeHead(200, { location: `/${r.bucket}`, 'content-length': 0 });
    res.end();
    return;
  }
  opts.store.assertBucket(r.bucket);

  switch (r.operation) {
    case 'UploadPart':
      return uploadPart(opts, r, req, res, verified, fault, arrivedAt);
    case 'PutObject': {
      if (req.headers['x-amz-copy-source']) throw s3Errors.notImplemented('CopyObject');
      const body = await receiveBody(opts, req, verified, fault);
      if (!body || (await resetAfterBody(fault, req, body))) return;
      const failure = await faultAfterBody(fault, body);
      if (failure) throw failure;
      const etag = await opts.store.putObject(
        r.bucket,
        r.key,
        body,
        String(req.headers['content-type'] ?? 'binary/octet-stream'),
      );
      if (fault?.type === 'statusAfterActing') throw statusError(fault.status);
      res.writeHead(200, { etag, 'content-length': 0 });
      res.end();
      return;
    }
    case 'CreateMultipartUpload': {
      await drain(req);
      if (fault?.type === 'status') throw statusError(fault.status, fault.retryAfter);
      const contentType = String(req.headers['content-type'] ?? 'binary/octet-stream');
      const uploadId = await opts.store.createMultipartUpload(r.bucket, r.key, contentType);
      return sendXml(
        res,
        200,
        s3Xml('InitiateMultipartUploadResult', { Bucket: r.bucket, Key: r.key, UploadId: uploadId }),
      );
    }
    case 'ListParts': {
      if (fault?.type === 'status') throw statusError(fault.status, fault.retryAfter);
      const upload = await opts.store.getUpload(r.query.get('uploadId') ?? '', r.bucket, r.key);
      const maxParts = Math.min(Number(r.query.get('max-parts') ?? 1000) || 1000, 1000);
      const marker = Number(r.query.get('part-number-marker') ?? 0) || 0;
      const all = (await opts.store.listParts(upload)).filter((p) => p.partNumber > marker);
      const page = all.slice(0, maxParts);
      const truncated = all.length > page.length;
      return sendXml(
        res,
        200,
        s3Xml('ListPartsResult', {
          Bucket: r.bucket,
          Key: r.key,
          UploadId: upload.uploadId,
          PartNumberMarker: marker,
          NextPartNumberMarker: page.at(-1)?.partNumber ?? marker,
          MaxParts: maxParts,
          IsTruncated: truncated,
          StorageClass: 'STANDARD',
          Part: page.map((p) => ({
            PartNumber: p.partNumber,
            LastModified: p.lastModified,
            ETag: p.etag,
            Size: p.size,
          })),
        }),
      );
    }
    case 'CompleteMultipartUpload': {
      const upload = await opts.store.getUpload(r.query.get('uploadId') ?? '', r.bucket, r.key);
      const xml = await readSmallBody(req);
      if (fault?.type === 'status') throw statusError(fault.status, fault.retryAfter);
      const info = await opts.store.completeMultipartUpload(upload, parseCompleteMultipartUpload(xml));
      if (fault?.type === 'statusAfterActing') throw statusError(fault.status);
      return sendXml(
        res,
        200,
        s3Xml('CompleteMultipartUploadResult', {
          Location: `http://${req.headers.host}/${r.bucket}/${encodeURI(r.key)}`,
          Bucket: r.bucket,
          Key: r.key,
          ETag: info.etag,
        }),
      );
    }
    case 'AbortMultipartUpload': {
      const upload = await opts.store.getUpload(r.query.get('uploadId') ?? '', r.bucket, r.key);
      await opts.store.abortMultipartUpload(upload);
      res.writeHead(204);
      res.end();
      return;
    }
    case 'ListObjects':
    case 'ListObjectsV2':
      if (fault?.type === 'status') throw statusError(fault.status, fault.retryAfter);
      return sendXml(res, 200, await listObjects(opts, r));
    case 'HeadBucket':
      res.writeHead(200, { 'content-length': 0 });
      res.end();
      return;
    case 'HeadObject':
    case 'GetObject':
      if (fault?.type === 'status') throw statusError(fault.status, fault.retryAfter);
      return getObject(opts, r, req, res);
    default:
      throw s3Errors.notImplemented(r.operation === 'Unknown' ? `${method} on this resource` : r.operation);
  }
}

/** The S3 error a `status` fault answers: SlowDown for 503, InternalError with the status otherwise; with the rule's Retry-After. */
function statusError(status: number, retryAfter?: string): S3Error {
  const base = s3Errors.internalError();
  const e = status === 503 ? s3Errors.slowDown() : status === 500 ? base : new S3Error(base.code, base.message, status);
  if (retryAfter !== undefined) e.retryAfter = retryAfter;
  return e;
}

/**
 * Once the whole body was read: true when a `resetAfterBody` fault drops it and the connection
 * (nothing stored, nothing answered), after which the request is done with.
 */
async function resetAfterBody(
  fault: FaultAction | undefined,
  req: IncomingMessage,
  body: ReceivedBody,
): Promise<boolean> {
  if (fault?.type !== 'resetAfterBody') return false;
  await rm(body.tmpFile, { force: true });
  req.socket.destroy();
  return true;
}

/** The error a fault answers with once the body was read (the body is dropped then), if any. */
async function faultAfterBody(fault: FaultAction | undefined, body: ReceivedBody): Promise<S3Error | undefined> {
  if (fault?.type !== 'status' && fault?.type !== 'requestTimeout') return undefined;
  await rm(body.tmpFile, { force: true });
  return fault.type === 'status' ? statusError(fault.status, fault.retryAfter) : s3Errors.requestTimeout();
}

async function uploadPart(
  opts: StorageOptions,
  r: S3Request,
  req: IncomingMessage,
  res: ServerResponse,
  verified: VerifiedRequest,
  fault: FaultAction | undefined,
  arrivedAt: number,
): Promise<void> {
  const pn = r.partNumber!;
  if (!Number.isInteger(pn) || pn < 1 || pn > MAX_PART_NUMBER) {
    throw s3Errors.invalidArgument('Part number must be an integer between 1 and 10000, inclusive');
  }
  const upload = await opts.store.getUpload(r.query.get('uploadId') ?? '', r.bucket, r.key);
  const body = await receiveBody(opts, req, verified, fault);
  if (!body) return;
  if (await resetAfterBody(fault, req, body)) {
    opts.store.stats.partBodiesReceived++; // it arrived whole; only the answer and the storing are lost
    return;
  }
  const failure = await faultAfterBody(fault, body);
  if (failure) throw failure;
  opts.store.stats.partBodiesReceived++;
  const bodyAt = performance.now();
  // The answer is lost, not the part: the client sees the connection drop while storage still stores it.
  if (fault?.type === 'dropWhileStoring') req.socket.destroy();
  const sse = opts.faults.settings.serverSideEncryption;
  let etag: string;
  opts.store.storesPending++;
  try {
    // A proxy that took the whole body passes it on at its uplink's pace, whether or not the client waits.
    await throughBufferingProxy(opts, body.size);
    // Real S3 answers only once the part is stored; it keeps a whole body even if the client went away meanwhile.
    if (opts.faults.settings.partStoreDelayMs) await sleep(opts.faults.settings.partStoreDelayMs);
    // A buffering proxy took the body at once and forwards it at its own pace.
    if (fault?.type === 'bufferedBody') await sleep((body.size / fault.bytesPerSecond) * 1000);
    etag = await opts.store.putPart(upload, pn, body, sse !== null, { arrivedAt, bodyAt });
  } finally {
    opts.store.storesPending--;
  }
  if (fault?.type === 'dropWhileStoring') return; // stored, and no one to answer
  if (fault?.type === 'dropResponse') {
    await sleep(fault.afterMs);
    req.socket.destroy();
    return;
  }
  if (fault?.type === 'statusAfterActing') throw statusError(fault.status);
  res.writeHead(200, { ...(fault?.type === 'noEtag' ? {} : { etag }), ...sseHeaders(sse), 'content-length': 0 });
  res.end();
}

/**
 * The wait of a part body of `size` bytes behind the buffering proxy (the `bufferingProxy`
 * setting): none for the first `afterParts` bodies since it was set, else its bytes through the
 * proxy's uplink in 64 KiB slices, so bodies passed on together share its rate.
 */
async function throughBufferingProxy(opts: StorageOptions, size: number): Promise<void> {
  const proxy = opts.faults.settings.bufferingProxy;
  if (!proxy || ++opts.faults.proxiedParts <= proxy.afterParts) return;
  const slice = 64 * 1024;
  for (let left = size; left > 0 && opts.faults.settings.bufferingProxy; left -= slice)
    await opts.faults.proxyUplink.consume(Math.min(slice, left));
}

/** The headers by which S3 tells how it encrypted what it stored (SSE-KMS, SSE-C); none for a plain part. */
function sseHeaders(sse: 'aws:kms' | 'sse-c' | null): Record<string, string> {
  if (sse === 'aws:kms') {
    return {
      'x-amz-server-side-encryption': 'aws:kms',
      'x-amz-server-side-encryption-aws-kms-key-id': 'arn:aws:kms:us-east-1:111122223333:key/0f3c6a8e-local-test-key',
    };
  }
  if (sse === 'sse-c')
    return {
      'x-amz-server-side-encryption-customer-algorithm': 'AES256',
      'x-amz-server-side-encryption-customer-key-md5': 'bG9jYWwtdGVzdC1rZXktbWQ1',
    };
  return {};
}

/**
 * What a corporate proxy, a CDN or a captive portal answers in storage's place: an HTML page with
 * this status, before the request reaches storage (nothing is stored), the connection closed as
 * the body is not read.
 */
function sendHtml(req: IncomingMessage, res: ServerResponse, status: number): void {
  const body = `<!DOCTYPE html>\n<html><head><title>${status} Access denied</title></head><body><h1>Access denied</h1><p>Your request was blocked by the network's security policy. Sign in to the network or contact your administrator.</p></body></html>\n`;
  res.writeHead(status, {
    'content-type': 'text/html; charset=utf-8',
    'content-length': Buffer.byteLength(body),
    ...(req.readableEnded ? {} : { connection: 'close' }),
  });
  res.end(req.method === 'HEAD' ? undefined : body);
}

function sendXml(res: ServerResponse, status: number, xml: string): void {
  res.writeHead(status, { 'content-type': 'application/xml', 'content-length': Buffer.byteLength(xml) });
  res.end(xml);
}
