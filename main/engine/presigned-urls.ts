import type { CaptureGateway } from '../api/gateway.js';
import type { PresignResponse } from '../api/schemas.js';

/**
 * The presigned part URLs of one file upload (§4.5), fetched just before use and fetched again
 * when one is close to expiring or storage refused it (403/AccessDenied). Concurrent requests for
 * URLs share one presign-missing call.
 *
 * A part that presign-missing no longer lists is already in storage: `get` answers undefined and
 * the part is not sent again.
 */
export class PresignedUrls {
  private urls = new Map<number, { url: string; expiresAt: number; lifetimeMs: number }>();
  private pending?: Promise<PresignResponse>;

  constructor(
    private readonly gateway: CaptureGateway,
    private readonly uploadId: string,
  ) {}

  /** Calls presign-missing now and replaces every cached URL with its answer. Throws what the gateway throws. */
  refresh(): Promise<PresignResponse> {
    this.pending ??= (async () => {
      try {
        const fetchedAt = Date.now();
        const res = await this.gateway.presignMissing(this.uploadId);
        this.urls = new Map(
          res.parts.map((p) => [p.partNumber, { url: p.url, expiresAt: fetchedAt + p.expiresIn * 1000, lifetimeMs: p.expiresIn * 1000 }]),
        );
        return res;
      } finally {
        this.pending = undefined;
      }
    })();
    return this.pending;
  }

  /**
   * A URL for the part that will still be valid when the request reaches storage, or undefined
   * when storage already has the part. Refreshes when the cached one has less than a fifth of its
   * lifetime (at most a minute) left.
   */
  async get(partNumber: number): Promise<string | undefined> {
    const cached = this.urls.get(partNumber);
    if (cached && cached.expiresAt - Date.now() > Math.min(60_000, cached.lifetimeMs / 5)) return cached.url;
    await this.refresh();
    return this.urls.get(partNumber)?.url;
  }

  /** Drops a URL storage refused, so the next `get` presigns again. */
  invalidate(partNumber: number): void {
    this.urls.delete(partNumber);
  }
}
