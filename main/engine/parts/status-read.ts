import { HttpStatusError } from '../../api/errors.js';
import type { CaptureGateway } from '../../api/gateway.js';
import type { PresignedUrls } from './presigned-urls.js';

// Gateways found to have no §4.9 status read at the guessed path: not asked again while they live.
const withoutStatusRead = new WeakSet<CaptureGateway>();

/**
 * Whether `err` says the gateway has no §4.9 status read at this client's path: 404 or 405 with
 * no S3 code. capture-upload-interface.md §4.9 names only the trailing segment `status` and the
 * query, so the path is a guess; a real gateway may route it elsewhere.
 */
export function isStatusReadMissing(err: unknown): boolean {
  return err instanceof HttpStatusError && !err.s3Code && (err.status === 404 || err.status === 405);
}

/**
 * The part numbers storage does not hold for an upload, now: from the §4.9 status read with
 * `syncFromS3=true`, or, where the gateway answers that path 404/405, from presign-missing
 * (§4.5), which lists only the parts not in storage (and so also refreshes `urls`).
 * `onFallback` is told once per gateway that the status read is missing.
 * Throws what the gateway throws (HttpStatusError, NetworkError, CancelledError ...).
 */
export async function partsMissingNow(
  gateway: CaptureGateway,
  urls: PresignedUrls,
  uploadId: string,
  signal: AbortSignal,
  onFallback: (err: HttpStatusError) => void,
): Promise<Set<number>> {
  if (!withoutStatusRead.has(gateway)) {
    try {
      const record = await gateway.uploadStatus(uploadId, true, signal);
      // An answer without the list says nothing about the parts: presign-missing below does.
      if (record.missingParts) return new Set(record.missingParts);
    } catch (err) {
      if (!isStatusReadMissing(err)) throw err;
      withoutStatusRead.add(gateway);
      onFallback(err as HttpStatusError);
    }
  }
  return new Set((await urls.refresh()).parts.map((p) => p.partNumber));
}
