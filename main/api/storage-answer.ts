import type { IncomingHttpHeaders } from 'node:http';
import { parseS3Error, s3ErrorText } from './s3-error.js';

/**
 * Whether storage's ETag for a part it just stored is the MD5 of the part's bytes
 * (capture-upload-interface.md §4.6, §7: the ETag is what the client checks and reports).
 *
 * S3 documents that the ETag of an object or part encrypted with SSE-KMS (`x-amz-server-side-encryption:
 * aws:kms` or `aws:kms:dsse`) or with a customer key (SSE-C: `x-amz-server-side-encryption-customer-algorithm`)
 * is not the MD5 of its data, though it is still 32 hex digits. `AES256` alone (SSE-S3, S3's
 * default) and no header at all leave the ETag the MD5. So those two headers, and only they, decide.
 */
export function etagIsPartMd5(headers: IncomingHttpHeaders): boolean {
  const sse = String(headers['x-amz-server-side-encryption'] ?? '').toLowerCase();
  if (sse.startsWith('aws:kms')) return false;
  return !headers['x-amz-server-side-encryption-customer-algorithm'];
}

// A Retry-After beyond this is treated as this: a bogus date must not hold the queue for a day.
const MAX_RETRY_AFTER_MS = 10 * 60_000;

/**
 * The wait a `Retry-After` header asks for (RFC 9110 §10.2.3: delay-seconds or an HTTP-date), in
 * ms, at most 10 minutes; undefined when absent or unreadable. `now` is ms since epoch (only an
 * HTTP-date needs it).
 */
export function retryAfterMs(value: string | string[] | undefined, now = Date.now()): number | undefined {
  const v = (Array.isArray(value) ? value[0] : value)?.trim();
  if (!v) return undefined;
  if (/^\d+$/.test(v)) return Math.min(Number(v) * 1000, MAX_RETRY_AFTER_MS);
  const at = Date.parse(v);
  if (Number.isNaN(at)) return undefined;
  return Math.min(Math.max(0, at - now), MAX_RETRY_AFTER_MS);
}

/**
 * A readable message for storage's error answer to a part PUT: S3's `<Code>: <Message>` when the
 * body is S3's error XML; otherwise what was answered instead, because a page where S3's XML was
 * expected means something stands between this computer and storage (a corporate proxy, a CDN,
 * a captive portal), and a person should be told so. Never contains the URL or its signature.
 */
export function storageErrorMessage(status: number, text: string, headers: IncomingHttpHeaders): string {
  const s3 = parseS3Error(text);
  if (s3) return s3ErrorText(s3);
  const type = String(headers['content-type'] ?? '').toLowerCase();
  if (type.includes('html') || /^\s*<(!doctype html|html)/i.test(text)) {
    return `Storage answered ${status} with a web page instead of S3's XML: a proxy, firewall or network sign-in page may stand between this computer and storage`;
  }
  return `Storage answered ${status}${text.trim() ? " without S3's error XML" : ''}`;
}
