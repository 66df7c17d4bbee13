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

/** The most a Retry-After is stretched by spreadRetryAfter (ms). */
const MAX_RETRY_AFTER_SPREAD_MS = 5 * 60_000;

/**
 * The wait before coming back after an answer whose Retry-After asked for `askedMs` (ms; RFC 9110
 * §10.2.3, at most 10 min: retryAfterMs): never sooner than asked, and
 * later by a random share of up to half of it (at least 1 s, at most 5 min), so a fleet told
 * "60 s" together comes back over 60–90 s, not in the same second
 * (docs/decisions/0040-full-jitter.md). `random` gives [0, 1).
 */
export function spreadRetryAfter(askedMs: number, random = Math.random): number {
  const spread = Math.min(MAX_RETRY_AFTER_SPREAD_MS, Math.max(1000, askedMs / 2));
  return Math.round(askedMs + random() * spread);
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
