import type { FailedRequest } from '../../api/errors.js';
import { PresignAnswerError, credentialsRefusal } from '../../api/errors.js';
import type { CaptureGateway } from '../../api/gateway.js';
import type { PresignResponse } from '../../api/schemas.js';

/**
 * What the client knows of a file before it presigns (§2 "Upload manifest entry", as registered):
 * its name (for the refusal's sentence), its part count N and part size (bytes).
 */
export interface PresignedFile {
  fileName: string;
  totalParts: number;
  partSize: number;
}

/**
 * The lifetime assumed for a presigned URL whose answer gave no `expiresIn` (§2 "Presigned part")
 * and whose query has no `X-Amz-Expires` (seconds): S3's own default for presigned URLs. Shorter
 * than the interface's sample (3600) on purpose: a URL renewed early costs one presign call, one
 * used after it lapsed a refused part (docs/decisions/0003-tolerant-reader.md).
 */
const ASSUMED_URL_LIFETIME_S = 900;

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
 *
 * Every answer is held to the file before any URL of it is kept (presignAnswerProblem): one that
 * does not fit is a PresignAnswerError, asked again inside the call as the retry table says.
 */
export class PresignedUrls {
  /** Per part: the URL, when it expires (performance.now() ms) and its whole lifetime (ms). */
  private urls = new Map<number, { url: string; expiresAt: number; lifetimeMs: number }>();
  private pending?: Promise<PresignResponse>;

  /** `file`: what the answers are held to; its part count is also the most presign-missing may list (it sizes the call's deadline). */
  constructor(
    private readonly gateway: CaptureGateway,
    private readonly uploadId: string,
    private readonly signal: AbortSignal | undefined,
    private readonly file: PresignedFile,
  ) {}

  /**
   * Calls presign-missing now and replaces every kept URL with its answer. Throws what the gateway
   * throws, PresignAnswerError when its answers do not fit the file (after the call's retries), a
   * refusal of the credentials as CredentialsRefusedError.
   */
  refresh(): Promise<PresignResponse> {
    this.pending ??= (async () => {
      try {
        // Lifetimes count on the monotonic clock from when the request left: a wall-clock step must not keep an expired URL.
        const fetchedAt = performance.now();
        const gatewayProtocol = safeProtocol(this.gateway.addresses?.baseUrl);
        const check = (answer: PresignResponse, request: FailedRequest) => {
          const problem = presignAnswerProblem(answer, this.file, gatewayProtocol);
          if (problem) throw new PresignAnswerError(this.file.fileName, problem, request);
        };
        const res = await this.gateway.presignMissing(this.uploadId, this.signal, this.file.totalParts, check);
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
 * What a presign-missing answer (§4.5) holds that does not fit `file`, as a clause for
 * PresignAnswerError ("the capture service listed part 10001 for a 3-part file"), or null when it
 * fits: a layout (`partSize`, `totalParts`), when given, other than the registered one; a part
 * number outside 1…N; a part listed twice; a URL that cannot carry a part (partUrlProblem); a
 * URL whose `partNumber` query, where it carries one, names another part (S3's UploadPart takes
 * the part from the query, so part 1's bytes would be stored as part 2). Any subset of 1…N is
 * allowed: the answer lists the parts storage lacks. The first problem is named; no URL query.
 */
export function presignAnswerProblem(
  answer: PresignResponse,
  file: PresignedFile,
  gatewayProtocol: string | undefined,
): string | null {
  const n = file.totalParts;
  const registered = `${n} part${n === 1 ? '' : 's'} of ${file.partSize} bytes`;
  if (
    (answer.partSize !== undefined && answer.partSize !== file.partSize) ||
    (answer.totalParts !== undefined && answer.totalParts !== n)
  )
    return `the capture service now describes it as ${answer.totalParts ?? '?'} parts of ${answer.partSize ?? '?'} bytes, not the registered ${registered}`;
  const seen = new Set<number>();
  for (const p of answer.parts) {
    if (p.partNumber < 1 || p.partNumber > n)
      return `the capture service listed part ${p.partNumber} for a ${n}-part file`;
    if (seen.has(p.partNumber)) return `the capture service listed part ${p.partNumber} twice for a ${n}-part file`;
    seen.add(p.partNumber);
    const problem = partUrlProblem(p.url, gatewayProtocol);
    if (problem)
      return `the capture service gave part ${p.partNumber} an address that cannot carry it: ${problem.replace(/\.$/, '')}`;
    const named = new URL(p.url).searchParams.get('partNumber');
    if (named !== null && named !== String(p.partNumber)) {
      const number = /^[1-9][0-9]{0,4}$/.test(named);
      const other = number ? `the address of part ${named}` : 'an address for another part';
      const shown = number ? named : JSON.stringify(named.slice(0, 40));
      return `the capture service gave part ${p.partNumber} ${other} (its URL's partNumber is ${shown})`;
    }
  }
  return null;
}

/**
 * Why a presigned part URL (§4.5) must not be used, or null when it may: only `https:` carries a
 * part, or `http:` when the capture gateway itself is reached over http (a local or test service;
 * docs/decisions/0015-presigned-url-schemes.md). A `file:`, `ftp:` or other scheme would never answer as
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
