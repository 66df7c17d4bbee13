import { z } from 'zod';

// Response shapes of capture-upload-interface.md §2 and §4, checked on every answer so a
// malformed reply is a clear error and not a crash further on. The response tables have no
// "required" column, so only what this client uses is checked (docs/decisions/0003-tolerant-reader.md):
// unknown extra fields are allowed (a newer service may add some), and so are absent ones the
// client does not read.

/** §4.1 sign-in response. */
export const signInResponse = z.object({ token: z.string().min(1) });

/** §4.2 export response. */
export const exportResponse = z.object({ success: z.boolean(), message: z.string() });

/** §4.3 response: `latestDefaultDesignUpdatedAt` is ISO 8601 UTC or null. */
export const designUpdateResponse = z.object({
  success: z.boolean(),
  data: z.object({ latestDefaultDesignUpdatedAt: z.string().nullable() }),
});

/**
 * §2 Capture summary, as far as this client uses it: `captureId`. The table has no "required"
 * column, so project, structure, uploadStatus, expectedFiles and completedFiles may be absent or
 * of another type without harm (docs/decisions/0003-tolerant-reader.md).
 */
const captureSummary = z.object({ captureId: z.string().min(1) });

/**
 * §2 Upload manifest entry, as far as this client uses it; sizes in bytes. `uploadId` and
 * `partSize` are needed; `frameIndex` matches the entry to its file (else `fileName`, else the
 * only file); `size`, when given, must equal the file's; `totalParts`, when absent, is
 * ⌈size ÷ partSize⌉ of the queued file. `fileName` and `status` are not needed.
 */
const manifestEntry = z.object({
  frameIndex: z.number().int().positive().optional(),
  uploadId: z.string().min(1),
  fileName: z.string().optional().catch(undefined),
  size: z.number().int().nonnegative().optional(),
  partSize: z.number().int().positive(),
  totalParts: z.number().int().positive().optional(),
  /** Not read (`initiated` at registration); kept for whoever reads the type, and never a failure. */
  status: z.string().optional().catch(undefined),
});
export type ManifestEntry = z.infer<typeof manifestEntry>;

/** §4.4 add-capture response: `success` is not needed (a 200 with a captureId and manifest is a registration). */
export const addCaptureResponse = z.object({
  result: z.array(z.object({ capture: captureSummary, uploadManifest: z.array(manifestEntry) })),
});
export type AddCaptureResult = z.infer<typeof addCaptureResponse>['result'][number];

/**
 * §4.5 presign-missing response. `expiresIn` (seconds) may be absent: the URL's own
 * `X-Amz-Expires` then says it, else a conservative default (presigned-urls.ts). `partSize` and
 * `totalParts`, when given, are checked against the registered layout. `ok` and `uploadId` are not read.
 */
export const presignResponse = z.object({
  /** Not read; never a failure. */
  ok: z.boolean().optional().catch(undefined),
  uploadId: z.string().optional().catch(undefined),
  partSize: z.number().int().positive().optional(),
  totalParts: z.number().int().positive().optional(),
  parts: z.array(
    z.object({
      // Any whole number: whether it is one of the file's parts is judged against the file
      // (engine/parts/presigned-urls.ts), which can name the file and the part in its refusal.
      partNumber: z.number().int(),
      url: z.string().url(),
      expiresIn: z.number().positive().optional(),
    }),
  ),
});
export type PresignResponse = z.infer<typeof presignResponse>;

/**
 * §2 Upload record, as far as this client uses it: `status` (`completed` or `uploading`) and
 * `missingParts`. uploadId, fileName, size, totalParts, uploadedPartsCount and percentage are
 * figures for people; their absence is no failure.
 */
const uploadRecord = z.object({
  status: z.string().optional(),
  missingParts: z.array(z.number().int()).optional(),
});

/** §4.7 complete-batch response, and this client's reading of the §4.9 status response. */
export const uploadRecordResponse = z.object({ ok: z.boolean().optional(), upload: uploadRecord.optional() });

/**
 * §4.8 capture upload status, as far as this client uses it: `uploadStatus` (`pending`,
 * `uploading` or `complete`) and the file counts. Each may be absent or of another type without
 * harm (docs/decisions/0003-tolerant-reader.md): an absent figure proves nothing.
 */
export const captureUploadStatusResponse = z.object({
  uploadStatus: z.string().optional().catch(undefined),
  expectedFiles: z.number().int().nonnegative().optional().catch(undefined),
  completedFiles: z.number().int().nonnegative().optional().catch(undefined),
});
export type CaptureUploadStatus = z.infer<typeof captureUploadStatusResponse>;

/**
 * What the client reads from a §4.7 or §4.9 answer: the service's `ok`, the record's `status`
 * and `missingParts` (part numbers), each undefined when the answer did not give it.
 */
export interface UploadRecord {
  ok?: boolean;
  status?: string;
  missingParts?: number[];
}

/**
 * Whether an upload record says the file is finalized (§3 "File upload"): its `status` is
 * `completed`; or, with no status, `ok` is true and no part is listed missing. A missing figure
 * is never a failure.
 */
export function isFinalized(r: UploadRecord): boolean {
  if (r.status !== undefined) return r.status === 'completed';
  return r.ok === true && (r.missingParts?.length ?? 0) === 0;
}

/**
 * The fields of each answer that the interface's tables (§2, §4.4, §4.5, §4.7) list, as paths
 * (`*` for every element of an array), for telling what an answer left out. Only for a log line:
 * nothing depends on them.
 */
export const interfaceFields = {
  'add-capture': [
    'success',
    'result.*.capture.captureId',
    'result.*.capture.project',
    'result.*.capture.structure',
    'result.*.capture.uploadStatus',
    'result.*.capture.expectedFiles',
    'result.*.capture.completedFiles',
    ...['frameIndex', 'uploadId', 'fileName', 'size', 'partSize', 'totalParts', 'status'].map(
      (f) => `result.*.uploadManifest.*.${f}`,
    ),
  ],
  'presign-missing': [
    'ok',
    'uploadId',
    'partSize',
    'totalParts',
    'parts.*.partNumber',
    'parts.*.url',
    'parts.*.expiresIn',
  ],
  'complete-batch': [
    'ok',
    ...['uploadId', 'status', 'fileName', 'size', 'totalParts', 'uploadedPartsCount', 'percentage', 'missingParts'].map(
      (f) => `upload.${f}`,
    ),
  ],
} as const;

/**
 * The paths of `fields` that `value` lacks (a path counts as absent when any element of a `*`
 * array lacks it). An absent or non-object parent makes its children absent too.
 */
export function absentFields(value: unknown, fields: readonly string[]): string[] {
  const has = (v: unknown, path: string[]): boolean => {
    if (path.length === 0) return v !== undefined && v !== null;
    const [head, ...rest] = path;
    if (head === '*') return Array.isArray(v) && v.every((e) => has(e, rest));
    if (typeof v !== 'object' || v === null || Array.isArray(v)) return false;
    return has((v as Record<string, unknown>)[head!], rest);
  };
  return fields.filter((f) => !has(value, f.split('.')));
}

/** Error bodies: `{ message }` with or without `success`/`ok`/`status` (§7). */
export const errorBody = z.object({ message: z.string() });
