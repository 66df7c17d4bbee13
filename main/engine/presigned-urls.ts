import { credentialsRefusal } from '../api/errors.js';
import type { CaptureGateway } from '../api/gateway.js';
import type { PresignResponse } from '../api/schemas.js';

/**
 * The lifetime assumed for a presigned URL whose answer gave no `expiresIn` (§2 "Presigned part")
 * and whose query has no `X-Amz-Expires` (seconds): S3's own default for presigned URLs. Shorter
 * than the interface's sample (3600) on purpose: a URL renewed early costs one presign call, one
 * used after it lapsed a refused part (docs/decisions/tolerant-reader.md).
 */
export const ASSUMED_URL_LIFETIME_S = 900;

/**
 * A presigned URL's lifetime in seconds, when the answer did not say it: the SigV4 query's
 * `X-Amz-Expires`, else ASSUMED_URL_LIFETIME_S.
 */
export function urlLifetimeSeconds(url: string): number {
  try {
    const expires = Number(new URL(url).searchParams.get('X-Amz-Expires') ?? NaN);
    if (Number.isFinite(expires) && expires > 0) return expires;
  } catch {
    // not a URL the query can be read from: the default below
  }
  return ASSUMED_URL_LIFETIME_S;
}

/**
 * The presigned part URLs of one file upload (§4.5), kept per part and fetched again only when
 * needed: when storage refused one (403/AccessDenied: `invalidate`), or one is close to expiring.
 * A network error does not discard them: the same URL is used for the retry, so one hiccup on a
 * 10,000-part file does not re-sign every missing part. Concurrent requests for URLs share one
 * presign-missing call.
 *
 * A part that presign-missing no longer lists is already in storage: `get` answers undefined and
 * the part is not sent again.
 */
export class PresignedUrls {
  /** Per part: the URL, when it expires (performance.now() ms) and its whole lifetime (ms). */
  private urls = new Map<number, { url: string; expiresAt: number; lifetimeMs: number }>();
  private pending?: Promise<PresignResponse>;

  constructor(
    private readonly gateway: CaptureGateway,
    private readonly uploadId: string,
    private readonly signal?: AbortSignal,
  ) {}

  /** Calls presign-missing now and replaces every kept URL with its answer. Throws what the gateway throws, a refusal of the credentials as CredentialsRefusedError. */
  refresh(): Promise<PresignResponse> {
    this.pending ??= (async () => {
      try {
        // Lifetimes count on the monotonic clock from when the request left: a wall-clock step must not keep an expired URL.
        const fetchedAt = performance.now();
        const res = await this.gateway.presignMissing(this.uploadId, this.signal);
        const gatewayProtocol = safeProtocol(this.gateway.addresses?.baseUrl);
        for (const p of res.parts) {
          const problem = partUrlProblem(p.url, gatewayProtocol);
          if (problem)
            throw new Error(
              `The capture service gave an address for part ${p.partNumber} that cannot carry it: ${problem} Nothing was sent. Tell the platform's support; retry the file once they have fixed it.`,
            );
        }
        this.urls = new Map(
          res.parts.map((p) => {
            const lifetimeMs = (p.expiresIn ?? urlLifetimeSeconds(p.url)) * 1000;
            return [p.partNumber, { url: p.url, expiresAt: fetchedAt + lifetimeMs, lifetimeMs }];
          }),
        );
        return res;
      } catch (err) {
        // A refusal of the credentials is the queue's, not this part's: it must not read as a storage 403.
        throw credentialsRefusal(err) ?? err;
      } finally {
        this.pending = undefined;
      }
    })();
    return this.pending;
  }

  /**
   * A URL for the part that will still be valid when the request reaches storage, or undefined
   * when storage already has the part. Refreshes when the kept one has less than a fifth of its
   * lifetime (at most a minute) left, or none is kept.
   */
  async get(partNumber: number): Promise<string | undefined> {
    const kept = this.urls.get(partNumber);
    if (kept && kept.expiresAt - performance.now() > Math.min(60_000, kept.lifetimeMs / 5)) return kept.url;
    await this.refresh();
    return this.urls.get(partNumber)?.url;
  }

  /** Drops a URL storage refused, so the next `get` presigns again. */
  invalidate(partNumber: number): void {
    this.urls.delete(partNumber);
  }
}

/** The protocol of `url` ("https:"), or undefined when it is absent or not a URL. */
function safeProtocol(url: string | undefined): string | undefined {
  try {
    return url === undefined ? undefined : new URL(url).protocol;
  } catch {
    return undefined;
  }
}

/**
 * Why a presigned part URL (§4.5) must not be used, or null when it may: only `https:` carries a
 * part, or `http:` when the capture gateway itself is reached over http (a local or test service;
 * docs/decisions/presigned-url-schemes.md). A `file:`, `ftp:` or other scheme would never answer as
 * storage does, and was retried forever as "No answer from storage". The sentence names the
 * scheme and the host only: the URL's query is a secret.
 */
export function partUrlProblem(url: string, gatewayProtocol: string | undefined): string | null {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return 'it is not a URL.';
  }
  if (u.protocol === 'https:') return null;
  if (u.protocol === 'http:' && gatewayProtocol === 'http:') return null;
  if (u.protocol === 'http:')
    return `it is plain http (host ${u.host}) while the capture service is reached over https; only https may carry a part.`;
  return `its scheme is "${u.protocol}" (host ${u.host || 'none'}); only https may carry a part.`;
}
