import { z } from 'zod';
import type { RouteContext, Router } from '../http-router.js';
import { HttpError, readJsonBody, sendJson } from '../http-router.js';
import type { GatewayDeps } from './gateway-deps.js';
import { guard, pct } from './gateway-deps.js';
import type { StoredPartInfo } from './object-storage.js';
import type { UploadState } from './state.js';

// The upload-service endpoints answer `{ ok, ... }` on success (§4.5, §4.7); their error bodies
// are "not shown", so this stand-in answers `{ ok: false, message }` in the same style.
const failOk = (message: string) => ({ ok: false, message });

const completeSchema = z.object({
  parts: z
    .array(
      z.object({ partNumber: z.number().int().positive(), etag: z.string().min(1), size: z.number().int().min(0) }),
    )
    .min(1),
});

/** Expected byte length of part `n` of an upload: partSize, or what is left for the last part. */
function expectedPartSize(u: Pick<UploadState, 'size' | 'partSize'>, n: number): number {
  return Math.max(0, Math.min(u.partSize, u.size - (n - 1) * u.partSize));
}

/** The §2 "Upload record" of an upload. */
function uploadRecord(u: UploadState) {
  const reported = Object.keys(u.parts).map(Number);
  const missingParts: number[] = [];
  if (u.status !== 'completed') for (let n = 1; n <= u.totalParts; n++) if (!u.parts[n]) missingParts.push(n);
  return {
    uploadId: u.uploadId,
    status: u.status,
    fileName: u.fileName,
    size: u.size,
    totalParts: u.totalParts,
    uploadedPartsCount: u.status === 'completed' ? u.totalParts : reported.length,
    percentage: u.status === 'completed' ? 100 : pct(reported.length, u.totalParts),
    missingParts,
  };
}

/** Registers §4.5 presign-missing, §4.7 complete-batch and the §4.9 status read on the gateway router. */
export function uploadRoutes(router: Router, deps: GatewayDeps): void {
  // One finalization at a time per upload: two concurrent reports of the last part must not complete it twice.
  const locks = new Map<string, Promise<unknown>>();
  const serialize = <T>(id: string, fn: () => Promise<T>): Promise<T> => {
    const run = (locks.get(id) ?? Promise.resolve()).then(fn, fn);
    const settled = run.catch(() => undefined);
    locks.set(id, settled);
    void settled.then(() => locks.get(id) === settled && locks.delete(id));
    return run;
  };

  async function findUpload(ctx: RouteContext, json: boolean): Promise<UploadState> {
    const { project } = await guard(deps, ctx, { json, errorBody: failOk });
    const u = deps.store.state.uploads[ctx.params.uploadId!];
    if (!u || deps.store.state.captures[u.captureId]?.project !== project.id)
      throw new HttpError(404, failOk('Upload not found'));
    return u;
  }

  /**
   * Parts in storage whose size is right for their number (a short part counts as missing), by
   * number; undefined when the storage cannot list parts, and the upload's own record is all there is.
   */
  async function storedParts(u: UploadState): Promise<Map<number, StoredPartInfo> | undefined> {
    const listed = await deps.storage.listParts(u.key, u.storageUploadId);
    if (!listed) return undefined;
    return new Map(listed.filter((p) => p.size === expectedPartSize(u, p.partNumber)).map((p) => [p.partNumber, p]));
  }

  function markStarted(u: UploadState): void {
    const capture = deps.store.state.captures[u.captureId]!;
    if (capture.uploadStatus === 'pending') capture.uploadStatus = 'uploading';
  }

  async function finalizeIfComplete(u: UploadState): Promise<void> {
    if (u.status === 'completed' || Object.keys(u.parts).length < u.totalParts) return;
    const parts = Object.entries(u.parts)
      .map(([n, p]) => ({ partNumber: Number(n), etag: p.etag }))
      .sort((a, b) => a.partNumber - b.partNumber);
    const objectEtag = await deps.storage.completeMultipartUpload(u.key, u.storageUploadId, parts);
    u.status = 'completed';
    u.completedAt = new Date().toISOString();
    u.objectEtag = objectEtag;
    const capture = deps.store.state.captures[u.captureId]!;
    capture.completedFiles = capture.uploadIds.filter(
      (id) => deps.store.state.uploads[id]!.status === 'completed',
    ).length;
    capture.uploadStatus = capture.completedFiles === capture.expectedFiles ? 'complete' : 'uploading';
  }

  router.add('POST', '/upload-service/uploads/:uploadId/parts/presign-missing', 'presign-missing', async (ctx) => {
    const u = await findUpload(ctx, false);
    const expiresIn = deps.faults.settings.presignExpiresIn;
    const parts: { partNumber: number; url: string; expiresIn: number }[] = [];
    if (u.status !== 'completed') {
      // A storage without ListParts: the parts reported so far are the ones not to send again.
      const stored = (await storedParts(u)) ?? new Map(Object.keys(u.parts).map((n) => [Number(n), undefined]));
      for (let n = 1; n <= u.totalParts; n++) {
        if (stored.has(n)) continue;
        parts.push({
          partNumber: n,
          url: await deps.storage.presignPart(
            u.key,
            u.storageUploadId,
            n,
            expiresIn,
            deps.faults.settings.presignQueryPadBytes,
          ),
          expiresIn,
        });
      }
      markStarted(u);
      deps.store.save({ captures: [u.captureId] });
    }
    const listed = ctx.fault?.type === 'badParts' ? await badPartList(parts, ctx.fault.mode, u, expiresIn) : parts;
    sendJson(ctx.res, 200, {
      ok: true,
      uploadId: u.uploadId,
      partSize: u.partSize,
      totalParts: u.totalParts,
      parts: listed,
    });
  });

  /** The `badParts` fault's part list (faults.ts): `parts` made not to fit the file, as `mode` says. */
  async function badPartList(
    parts: { partNumber: number; url: string; expiresIn: number }[],
    mode: 'beyond' | 'missing' | 'duplicate' | 'swap' | 'zero' | 'fileUrl',
    u: UploadState,
    expiresIn: number,
  ): Promise<{ partNumber: number; url: string; expiresIn: number }[]> {
    const [first, second, ...rest] = parts;
    if (!first) return parts;
    switch (mode) {
      case 'beyond': {
        const url = await deps.storage.presignPart(u.key, u.storageUploadId, 10_001, expiresIn, 0);
        return [...parts, { partNumber: 10_001, url, expiresIn }];
      }
      case 'missing':
        return parts.slice(1);
      case 'duplicate':
        return parts.flatMap((p) => [p, { ...p }]);
      case 'swap':
        return second ? [{ ...first, url: second.url }, { ...second, url: first.url }, ...rest] : parts;
      case 'zero':
        return [{ ...first, partNumber: 0 }, ...parts.slice(1)];
      case 'fileUrl':
        return [{ ...first, url: 'file:///etc/passwd' }, ...parts.slice(1)];
    }
  }

  router.add('POST', '/upload-service/uploads/:uploadId/parts/complete-batch', 'complete-batch', async (ctx) => {
    const u = await findUpload(ctx, true);
    const parsed = completeSchema.safeParse(await readJsonBody(ctx.req, failOk));
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      throw new HttpError(
        400,
        failOk(`parts${issue.path.length > 1 ? `[${issue.path.slice(1).join('].')}` : ''}: ${issue.message}`),
      );
    }
    const record = await serialize(u.uploadId, async () => {
      if (u.status === 'completed') return uploadRecord(u);
      const seen = new Set<number>();
      const stored = await storedParts(u);
      for (const p of parsed.data.parts) {
        if (p.partNumber > u.totalParts)
          throw new HttpError(400, failOk(`Part ${p.partNumber} is beyond totalParts ${u.totalParts}`));
        if (seen.has(p.partNumber)) throw new HttpError(400, failOk(`Part ${p.partNumber} is reported twice`));
        seen.add(p.partNumber);
        const want = expectedPartSize(u, p.partNumber);
        if (p.size !== want)
          throw new HttpError(400, failOk(`Part ${p.partNumber} must be ${want} bytes, not ${p.size}`));
        // Without ListParts nothing can be checked here; storage's CompleteMultipartUpload checks the ETags.
        if (!stored) continue;
        const s = stored.get(p.partNumber);
        if (!s)
          throw new HttpError(400, failOk(`Part ${p.partNumber} is not in storage; upload it before reporting it`));
        if (s.etag !== p.etag) {
          throw new HttpError(
            400,
            failOk(
              `Part ${p.partNumber} ETag does not match the stored part; send the ETag header exactly as storage returned it, quotes included`,
            ),
          );
        }
      }
      const before = u.parts;
      u.parts = { ...u.parts };
      if (deps.faults.settings.completeBatchAllParts) {
        const left: number[] = [];
        for (let n = 1; n <= u.totalParts; n++) if (!seen.has(n) && !u.parts[n]) left.push(n);
        if (left.length) {
          const listed = `${left.slice(0, 10).join(', ')}${left.length > 10 ? ', …' : ''}`;
          throw new HttpError(
            400,
            failOk(`All ${u.totalParts} parts of the file must be reported in one call; not reported: ${listed}`),
          );
        }
      }
      for (const p of parsed.data.parts) u.parts[p.partNumber] = { etag: p.etag, size: p.size };
      markStarted(u);
      if (u.status === 'initiated') u.status = 'uploading';
      try {
        await finalizeIfComplete(u);
      } catch (err) {
        // Where the record is the only truth (no ListParts), parts storage refused at completion
        // must not stay recorded as uploaded, or presign-missing would never hand them out again.
        if (!stored) {
          u.parts = before;
          const status = (err as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
          if (status === 400) {
            throw new HttpError(
              400,
              failOk(
                `Storage refused to assemble the object from the reported parts (${(err as Error).name}); report each part's ETag exactly as storage returned it`,
              ),
            );
          }
        }
        throw err;
      }
      deps.store.save({ uploads: [u.uploadId], captures: [u.captureId] });
      return uploadRecord(u);
    });
    sendJson(ctx.res, 200, { ok: true, upload: record });
  });

  // §4.9 names only the trailing segment `status` and the query; this stand-in puts it beside the
  // other upload-service calls: GET {base_url}/upload-service/uploads/{uploadId}/status[?syncFromS3=true].
  // With syncFromS3=true, parts found in storage count as uploaded (missingParts shrinks); the file
  // is still finalized only by complete-batch, so a client that never reports ETags never completes.
  router.add('GET', '/upload-service/uploads/:uploadId/status', 'status', async (ctx) => {
    const u = await findUpload(ctx, false);
    const record = await serialize(u.uploadId, async () => {
      // A storage without ListParts has nothing to sync from: the record stands as it is.
      const stored =
        u.status !== 'completed' && ctx.url.searchParams.get('syncFromS3') === 'true'
          ? await storedParts(u)
          : undefined;
      if (stored) {
        u.parts = {};
        for (const [n, p] of stored) u.parts[n] = { etag: p.etag, size: p.size };
        deps.store.save({ uploads: [u.uploadId] });
      }
      return uploadRecord(u);
    });
    sendJson(ctx.res, 200, { ok: true, upload: record });
  });
}
