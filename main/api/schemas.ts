import { z } from 'zod';

// Response shapes of capture-upload-interface.md §2 and §4, checked on every answer so a
// malformed reply is a clear error and not a crash further on. Unknown extra fields are allowed
// (a newer service may add some); missing or mistyped required fields are not.

/** §4.1 sign-in response. */
export const signInResponse = z.object({ token: z.string().min(1) });

/** §4.2 export response. */
export const exportResponse = z.object({ success: z.boolean(), message: z.string() });

/** §4.3 response: `latestDefaultDesignUpdatedAt` is ISO 8601 UTC or null. */
export const designUpdateResponse = z.object({
  success: z.boolean(),
  data: z.object({ latestDefaultDesignUpdatedAt: z.string().nullable() }),
});

/** §2 Capture summary. */
export const captureSummary = z.object({
  captureId: z.string().min(1),
  project: z.string(),
  structure: z.string(),
  uploadStatus: z.string(),
  expectedFiles: z.number().int(),
  completedFiles: z.number().int(),
});

/** §2 Upload manifest entry; sizes in bytes. */
export const manifestEntry = z.object({
  frameIndex: z.number().int().positive(),
  uploadId: z.string().min(1),
  fileName: z.string(),
  size: z.number().int().nonnegative(),
  partSize: z.number().int().positive(),
  totalParts: z.number().int().positive(),
  status: z.string(),
});
export type ManifestEntry = z.infer<typeof manifestEntry>;

/** §4.4 add-capture response. */
export const addCaptureResponse = z.object({
  success: z.boolean(),
  result: z.array(z.object({ capture: captureSummary, uploadManifest: z.array(manifestEntry) })),
});
export type AddCaptureResult = z.infer<typeof addCaptureResponse>['result'][number];

/** §4.5 presign-missing response; `expiresIn` in seconds. */
export const presignResponse = z.object({
  ok: z.boolean(),
  uploadId: z.string(),
  partSize: z.number().int().positive(),
  totalParts: z.number().int().positive(),
  parts: z.array(z.object({ partNumber: z.number().int().positive(), url: z.string().url(), expiresIn: z.number().positive() })),
});
export type PresignResponse = z.infer<typeof presignResponse>;

/** §2 Upload record. */
export const uploadRecord = z.object({
  uploadId: z.string(),
  status: z.string(),
  fileName: z.string(),
  size: z.number().int(),
  totalParts: z.number().int(),
  uploadedPartsCount: z.number().int(),
  percentage: z.number(),
  missingParts: z.array(z.number().int()),
});
export type UploadRecord = z.infer<typeof uploadRecord>;

/** §4.7 complete-batch response, and this client's reading of the §4.9 status response. */
export const uploadRecordResponse = z.object({ ok: z.boolean(), upload: uploadRecord });

/** Error bodies: `{ message }` with or without `success`/`ok`/`status` (§7). */
export const errorBody = z.object({ message: z.string() });
