import { Sha256 } from '@aws-crypto/sha256-js';
import { HttpRequest } from '@smithy/protocol-http';
import { SignatureV4 } from '@smithy/signature-v4';
import { timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { S3Error, s3Errors } from './s3-error-response.js';

/** The one key pair the local storage knows. */
export interface StorageCredentials {
  accessKeyId: string;
  secretAccessKey: string;
  region: string;
}

/** How a request was authenticated, and what the body's SHA-256 must be (hex), if it was signed. */
export interface VerifiedRequest {
  kind: 'presigned' | 'header';
  /** Hex SHA-256 the body must have, or undefined for `UNSIGNED-PAYLOAD`. */
  payloadSha256?: string;
}

const MAX_SKEW_MS = 15 * 60 * 1000;

function parseAmzDate(s: string | undefined): Date | undefined {
  const m = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(s ?? '');
  if (!m) return undefined;
  return new Date(Date.UTC(+m[1]!, +m[2]! - 1, +m[3]!, +m[4]!, +m[5]!, +m[6]!));
}

function sameSignature(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/**
 * Splits a raw request target into its path (still URI-encoded, as signed) and its query pairs,
 * percent-decoded as SigV4 defines them (a `+` stays a `+`, unlike form decoding).
 */
function splitTarget(rawUrl: string): { path: string; query: Record<string, string | string[]> } {
  const q = rawUrl.indexOf('?');
  const path = q < 0 ? rawUrl : rawUrl.slice(0, q);
  const query: Record<string, string | string[]> = {};
  const decode = (s: string) => {
    try {
      return decodeURIComponent(s);
    } catch {
      throw s3Errors.signatureMismatch();
    }
  };
  for (const pair of q < 0 ? [] : rawUrl.slice(q + 1).split('&')) {
    if (!pair) continue;
    const eq = pair.indexOf('=');
    const k = decode(eq < 0 ? pair : pair.slice(0, eq));
    const v = eq < 0 ? '' : decode(pair.slice(eq + 1));
    const prev = query[k];
    query[k] = prev === undefined ? v : Array.isArray(prev) ? [...prev, v] : [prev, v];
  }
  return { path, query };
}

/**
 * Verifies AWS Signature Version 4 on an S3 request, in either form S3 accepts:
 * a presigned URL (`X-Amz-Signature` in the query) or an `Authorization` header.
 *
 * The expected signature is computed by the AWS SDK's own signer (`@smithy/signature-v4`) over
 * the request exactly as received, so anything a real S3 client signs is checked the way S3 does.
 *
 * Throws S3Error: AccessDenied `Request has expired` for an expired presigned URL,
 * SignatureDoesNotMatch for a tampered URL or header, InvalidAccessKeyId for an unknown key,
 * AccessDenied for a request with no authentication, RequestTimeTooSkewed for a stale header date,
 * InvalidArgument (400) for a presigned URL sent with an Authorization header too.
 */
export async function verifySigV4(
  req: IncomingMessage,
  creds: StorageCredentials,
  now = new Date(),
): Promise<VerifiedRequest> {
  const { path, query } = splitTarget(req.url ?? '/');
  const host = req.headers.host ?? '';
  const signer = (service: string, region: string) =>
    new SignatureV4({
      credentials: { accessKeyId: creds.accessKeyId, secretAccessKey: creds.secretAccessKey },
      region,
      service,
      sha256: Sha256,
      uriEscapePath: false,
      applyChecksum: false,
    });

  if (typeof query['X-Amz-Signature'] === 'string') {
    // S3 takes one signature per request: a presigned URL sent with an Authorization header as
    // well (a client adding its own auth to every request) is refused before either is checked.
    if (req.headers.authorization !== undefined) {
      throw new S3Error(
        'InvalidArgument',
        'Only one auth mechanism allowed; only the X-Amz-Algorithm query parameter, Signature query string parameter or the Authorization header should be specified',
        400,
      );
    }
    const credential = String(query['X-Amz-Credential'] ?? '');
    const [accessKeyId, , region, service] = credential.split('/');
    if (accessKeyId !== creds.accessKeyId) throw s3Errors.invalidAccessKeyId();
    const signedAt = parseAmzDate(String(query['X-Amz-Date'] ?? ''));
    const expires = Number(query['X-Amz-Expires']);
    if (!signedAt || !Number.isInteger(expires) || expires < 1 || expires > 604_800) throw s3Errors.signatureMismatch();
    if (now.getTime() > signedAt.getTime() + expires * 1000) throw s3Errors.accessDeniedExpired();
    const signedHeaders = String(query['X-Amz-SignedHeaders'] ?? '')
      .split(';')
      .filter(Boolean);
    const headers: Record<string, string> = {};
    for (const h of signedHeaders) headers[h] = h === 'host' ? host : String(req.headers[h] ?? '');
    const rest = { ...query };
    for (const k of [
      'X-Amz-Signature',
      'X-Amz-Algorithm',
      'X-Amz-Credential',
      'X-Amz-Date',
      'X-Amz-Expires',
      'X-Amz-SignedHeaders',
    ])
      delete rest[k];
    // Presigned S3 URLs sign the payload as the literal UNSIGNED-PAYLOAD. The signer takes the
    // payload hash from this header, which must stay a header (unhoistable) and out of the signed set.
    const request = new HttpRequest({
      method: req.method,
      hostname: host,
      path,
      query: rest,
      headers: { ...headers, 'x-amz-content-sha256': 'UNSIGNED-PAYLOAD' },
    });
    const signed = await signer(service ?? 's3', region ?? creds.region).presign(request, {
      signingDate: signedAt,
      expiresIn: expires,
      unhoistableHeaders: new Set([...signedHeaders, 'x-amz-content-sha256']),
      unsignableHeaders: new Set(['x-amz-content-sha256']),
      signableHeaders: new Set(signedHeaders),
    });
    if (!sameSignature(String(signed.query?.['X-Amz-Signature']), String(query['X-Amz-Signature'])))
      throw s3Errors.signatureMismatch();
    return { kind: 'presigned' };
  }

  const auth = req.headers.authorization;
  if (!auth) throw s3Errors.accessDenied('Access Denied');
  const m = /^AWS4-HMAC-SHA256 Credential=([^,]+),\s*SignedHeaders=([^,]+),\s*Signature=([0-9a-f]{64})$/.exec(
    auth.trim(),
  );
  if (!m) throw s3Errors.signatureMismatch();
  const [accessKeyId, , region, service] = m[1]!.split('/');
  if (accessKeyId !== creds.accessKeyId) throw s3Errors.invalidAccessKeyId();
  const signedHeaders = m[2]!.split(';');
  const amzDate = String(req.headers['x-amz-date'] ?? '');
  const signedAt = parseAmzDate(amzDate);
  if (!signedAt) throw s3Errors.signatureMismatch();
  if (Math.abs(now.getTime() - signedAt.getTime()) > MAX_SKEW_MS) throw s3Errors.skewed();
  const payload = String(req.headers['x-amz-content-sha256'] ?? '');
  if (!payload) throw s3Errors.invalidArgument('Missing required header for this request: x-amz-content-sha256');
  if (payload.startsWith('STREAMING-')) throw s3Errors.notImplemented(`x-amz-content-sha256 ${payload}`);
  const headers: Record<string, string> = {};
  for (const h of signedHeaders) {
    const v = req.headers[h];
    headers[h] = h === 'host' ? host : Array.isArray(v) ? v.join(',') : String(v ?? '');
  }
  const request = new HttpRequest({ method: req.method, hostname: host, path, query, headers });
  const signed = await signer(service ?? 's3', region ?? creds.region).sign(request, {
    signingDate: signedAt,
    signableHeaders: new Set(signedHeaders),
  });
  const got =
    /Signature=([0-9a-f]{64})/.exec(String(signed.headers.authorization ?? signed.headers.Authorization))?.[1] ?? '';
  if (!sameSignature(got, m[3]!)) throw s3Errors.signatureMismatch();
  return { kind: 'header', payloadSha256: payload === 'UNSIGNED-PAYLOAD' ? undefined : payload };
}
