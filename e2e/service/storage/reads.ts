import { createReadStream } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { s3Errors } from './s3-error-response.js';
import type { S3Request, StorageOptions } from './request.js';
import { s3Xml } from './xml.js';

// The local storage's reads of what it holds (server.ts): object listings and GetObject/HeadObject.

const httpDate = (iso: string) => new Date(iso).toUTCString();

/**
 * ListObjects (v1: `marker`) and ListObjectsV2 (`list-type=2`: `continuation-token`,
 * `start-after`), with `prefix`, `delimiter` (keys rolled up into CommonPrefixes), `max-keys`
 * (at most 1000) and `encoding-type=url` (keys URL-encoded, as rclone asks for).
 */
export async function listObjects(opts: StorageOptions, r: S3Request): Promise<string> {
  const q = r.query;
  const v2 = r.operation === 'ListObjectsV2';
  const prefix = q.get('prefix') ?? '';
  const delimiter = q.get('delimiter') ?? '';
  const maxKeys = Math.max(0, Math.min(Number(q.get('max-keys') ?? 1000) || 1000, 1000));
  const token = q.get('continuation-token');
  const after = v2
    ? token
      ? Buffer.from(token, 'base64url').toString()
      : (q.get('start-after') ?? '')
    : (q.get('marker') ?? '');
  const url = q.get('encoding-type') === 'url';
  const enc = (key: string) => (url ? encodeURIComponent(key).replaceAll('%2F', '/') : key);

  const contents: { Key: string; LastModified: string; ETag: string; Size: number; StorageClass: string }[] = [];
  const prefixes: string[] = [];
  let last = '';
  let truncated = false;
  for (const o of await opts.store.listObjects(r.bucket)) {
    if (!o.key.startsWith(prefix) || o.key <= after) continue;
    const rest = o.key.slice(prefix.length);
    const cut = delimiter ? rest.indexOf(delimiter) : -1;
    const common = cut >= 0 ? prefix + rest.slice(0, cut + delimiter.length) : undefined;
    if (common !== undefined && common === prefixes.at(-1)) continue; // rolled up already
    if (contents.length + prefixes.length >= maxKeys) {
      truncated = true;
      break;
    }
    if (common !== undefined) {
      prefixes.push(common);
      last = common;
    } else {
      contents.push({
        Key: enc(o.key),
        LastModified: o.lastModified,
        ETag: o.etag,
        Size: o.size,
        StorageClass: 'STANDARD',
      });
      last = o.key;
    }
  }
  // A rolled-up prefix is resumed after everything under it.
  const resumeAfter = prefixes.at(-1) === last && last ? `${last}\u{10FFFF}` : last;
  return s3Xml('ListBucketResult', {
    Name: r.bucket,
    Prefix: enc(prefix),
    ...(delimiter ? { Delimiter: enc(delimiter) } : {}),
    MaxKeys: maxKeys,
    ...(url ? { EncodingType: 'url' } : {}),
    IsTruncated: truncated,
    ...(v2
      ? {
          KeyCount: contents.length + prefixes.length,
          ...(token ? { ContinuationToken: token } : {}),
          ...(truncated ? { NextContinuationToken: Buffer.from(resumeAfter).toString('base64url') } : {}),
          ...(q.has('start-after') ? { StartAfter: enc(q.get('start-after')!) } : {}),
        }
      : { Marker: enc(q.get('marker') ?? ''), ...(truncated && delimiter ? { NextMarker: enc(resumeAfter) } : {}) }),
    Contents: contents,
    CommonPrefixes: prefixes.map((p) => ({ Prefix: enc(p) })),
  });
}

/** GetObject / HeadObject, with a single `bytes=` Range as S3 serves it (206, Content-Range). */
export async function getObject(
  opts: StorageOptions,
  r: S3Request,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  const info = await opts.store.headObject(r.bucket, r.key);
  const headers: Record<string, string | number> = {
    etag: info.etag,
    'last-modified': httpDate(info.lastModified),
    'content-type': info.contentType,
    'accept-ranges': 'bytes',
  };
  let start = 0;
  let end = info.size - 1;
  let status = 200;
  const range = req.headers.range;
  if (range) {
    const m = /^bytes=(\d*)-(\d*)$/.exec(range.trim());
    if (!m || (m[1] === '' && m[2] === '')) throw s3Errors.invalidRange();
    if (m[1] === '') {
      start = Math.max(0, info.size - Number(m[2]));
    } else {
      start = Number(m[1]);
      if (m[2] !== '') end = Math.min(end, Number(m[2]));
    }
    if (start >= info.size || start > end) throw s3Errors.invalidRange();
    status = 206;
    headers['content-range'] = `bytes ${start}-${end}/${info.size}`;
  }
  headers['content-length'] = info.size === 0 ? 0 : end - start + 1;
  res.writeHead(status, headers);
  if (req.method === 'HEAD' || info.size === 0) {
    res.end();
    return;
  }
  const stream = createReadStream(opts.store.objectFile(r.bucket, r.key), { start, end });
  stream.on('error', () => res.destroy());
  stream.pipe(res);
}
