import { z } from 'zod';
import type { Router } from '../http-router.js';
import { HttpError, readJsonBody, sendJson } from '../http-router.js';
import type { GatewayDeps } from './gateway-deps.js';
import { fail, guard, pct } from './gateway-deps.js';
import type { CaptureState, Project, UploadState } from './state.js';
import { newId } from './state.js';

/** The exact 422 messages of capture-upload-interface.md §7 (add-capture). */
export const ADD_CAPTURE_MESSAGES = {
  tooManyFiles: 'No more than 3 files are allowed',
  fileName: 'Each file must include a fileName',
  fileType: 'Only INSV, MP4, and CSV files are allowed',
  noVideo: 'At least one INSV or MP4 file is required, CSV is optional',
} as const;

const iso = z
  .string()
  .refine(
    (s) =>
      /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})$/.test(s) && !Number.isNaN(Date.parse(s)),
    {
      message: 'must be an ISO 8601 timestamp with a time zone',
    },
  );
const vec3 = z.tuple([z.number(), z.number(), z.number()]);

/** The Capture of §2, beyond the file rules that §7 words itself. */
const captureSchema = z.object({
  project: z.string().min(1),
  structure: z.string().min(1),
  captureDateTime: iso,
  type: z.enum(['exterior', 'interior']),
  mode: z.string().min(1),
  sourceType: z.literal('bot'),
  deviceId: z.string().optional(),
  design: z.string().optional(),
  deviceInfo: z
    .array(
      z.object({
        type: z.enum(['primary', 'secondary']),
        deviceId: z.string(),
        deviceName: z.string(),
        deviceOSVersion: z.string(),
        deviceAPIVersion: z.string(),
      }),
    )
    .optional(),
  metaDetails: z
    .object({
      frameRate: z.number().positive().optional(),
      type: z.string().optional(),
      videoType: z.string().optional(),
      cameraName: z.string().optional(),
      deviceID: z.string().optional(),
      startPoint: vec3.optional(),
      direction: vec3.optional(),
      startTime: iso.optional(),
    })
    .optional(),
  files: z
    .array(
      z.object({
        frameIndex: z.number().int().positive(),
        fileName: z.string(),
        contentType: z.string().min(1),
        size: z.number().int().positive(),
        externalId: z.string().optional(),
      }),
    )
    .refine((files) => new Set(files.map((f) => f.frameIndex)).size === files.length, {
      message: 'frameIndex values must be unique',
    }),
});
type CaptureRequest = z.infer<typeof captureSchema>;

const ext = (name: string) => /\.([^./\\]+)$/.exec(name)?.[1]?.toLowerCase();

/** Applies the file rules of §7/§8 in the order the table lists them; returns the message of the first broken one. */
function fileRuleViolation(files: unknown): string | undefined {
  if (!Array.isArray(files) || files.length === 0) return ADD_CAPTURE_MESSAGES.noVideo;
  if (files.length > 3) return ADD_CAPTURE_MESSAGES.tooManyFiles;
  const names: string[] = [];
  for (const f of files) {
    const n = (f as { fileName?: unknown } | null)?.fileName;
    if (typeof n !== 'string' || n.trim() === '' || !ext(n)) return ADD_CAPTURE_MESSAGES.fileName;
    names.push(n);
  }
  if (names.some((n) => !['insv', 'mp4', 'csv'].includes(ext(n)!))) return ADD_CAPTURE_MESSAGES.fileType;
  if (!names.some((n) => ['insv', 'mp4'].includes(ext(n)!))) return ADD_CAPTURE_MESSAGES.noVideo;
  return undefined;
}

function validate(body: unknown, project: Project): CaptureRequest[] {
  const captures = (body as { captures?: unknown } | undefined)?.captures;
  if (!Array.isArray(captures) || captures.length === 0)
    throw new HttpError(422, fail('captures must be a non-empty array'));
  return captures.map((raw, i) => {
    const violation = fileRuleViolation((raw as { files?: unknown } | null)?.files);
    if (violation) throw new HttpError(422, fail(violation));
    const parsed = captureSchema.safeParse(raw);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      throw new HttpError(422, fail(`captures[${i}].${issue.path.join('.')}: ${issue.message}`));
    }
    const c = parsed.data;
    if (c.project !== project.id)
      throw new HttpError(422, fail(`captures[${i}].project must be the project of x-project-id`));
    const structure = project.structures.find((s) => s.id === c.structure);
    if (!structure)
      throw new HttpError(422, fail(`captures[${i}].structure ${c.structure} is not a structure of this project`));
    if (c.design !== undefined && !structure.designs.some((d) => d.id === c.design)) {
      throw new HttpError(422, fail(`captures[${i}].design ${c.design} is not a design of structure ${c.structure}`));
    }
    return c;
  });
}

/** A capture id of the `hostileIds` fault: terminal controls, CR LF, a C1 CSI and a bidi override around a fresh id. */
const hostileCaptureId = () => `cap-${newId()}\u001b[2J\u0007\r\n\u009b31m\u202e`;
/** An upload id of the `hostileIds` fault: a path climbing out, and a BEL and ESC, around a fresh id. */
const hostileUploadId = () => `../../${newId()}\u0007\u001b[0m`;
/** An id as it may stand in a storage key: anything but letters, digits, `.`, `_` and `-` replaced by `_`. */
const keySafe = (id: string) => id.replace(/[^A-Za-z0-9._-]/g, '_');

/** Registers §4.4 (add-capture) and §4.8 (capture upload-status) on the gateway router. */
export function captureRoutes(router: Router, deps: GatewayDeps): void {
  router.add('POST', '/captures/api/v1/external-captures/add-capture', 'add-capture', async (ctx) => {
    const { project } = await guard(deps, ctx, { json: true });
    const requests = validate(await readJsonBody(ctx.req, fail), project);
    const result = [];
    const hostile = ctx.fault?.type === 'hostileIds';
    for (const c of requests) {
      const captureId = hostile ? hostileCaptureId() : newId();
      // The files' multipart uploads are created at storage side by side (one round trip's wait,
      // not one per lens), as a gateway would; the answer lists them by frame index either way.
      const files = [...c.files].sort((a, b) => a.frameIndex - b.frameIndex);
      const keys = files.map((f) => `captures/${project.id}/${keySafe(captureId)}/${f.frameIndex}-${f.fileName}`);
      const storageIds = await Promise.all(
        files.map((f, i) => deps.storage.createMultipartUpload(keys[i]!, f.contentType)),
      );
      const uploads: UploadState[] = files.map((f, i) => {
        const key = keys[i]!;
        const storageUploadId = storageIds[i]!;
        return {
          uploadId: hostile ? hostileUploadId() : newId(),
          captureId,
          frameIndex: f.frameIndex,
          fileName: f.fileName,
          contentType: f.contentType,
          externalId: f.externalId,
          size: f.size,
          partSize: deps.partSize,
          totalParts: Math.max(1, Math.ceil(f.size / deps.partSize)),
          status: 'initiated',
          key,
          storageUploadId,
          parts: {},
        };
      });
      const capture: CaptureState = {
        captureId,
        project: project.id,
        structure: c.structure,
        uploadStatus: 'pending',
        expectedFiles: uploads.length,
        completedFiles: 0,
        createdAt: new Date().toISOString(),
        request: c as unknown as Record<string, unknown>,
        uploadIds: uploads.map((u) => u.uploadId),
      };
      deps.store.state.captures[captureId] = capture;
      for (const u of uploads) deps.store.state.uploads[u.uploadId] = u;
      deps.store.save({ captures: [captureId], uploads: uploads.map((u) => u.uploadId) });
      result.push({
        capture: {
          captureId,
          project: capture.project,
          structure: capture.structure,
          uploadStatus: capture.uploadStatus,
          expectedFiles: capture.expectedFiles,
          completedFiles: capture.completedFiles,
        },
        uploadManifest: uploads.map((u) => ({
          frameIndex: u.frameIndex,
          uploadId: u.uploadId,
          fileName: u.fileName,
          size: u.size,
          partSize: u.partSize,
          totalParts: u.totalParts,
          status: u.status,
        })),
      });
    }
    sendJson(ctx.res, 200, { success: true, result });
  });

  router.add('GET', '/captures/api/v1/external-captures/:captureId/upload-status', 'upload-status', async (ctx) => {
    const { project } = await guard(deps, ctx, { json: false });
    const capture = deps.store.state.captures[ctx.params.captureId!];
    if (!capture || capture.project !== project.id) throw new HttpError(404, fail('Capture not found'));
    const uploads = capture.uploadIds.map((id) => deps.store.state.uploads[id]!);
    const total = uploads.reduce((n, u) => n + u.size, 0);
    const done = uploads.reduce(
      (n, u) => n + (u.status === 'completed' ? u.size : Object.values(u.parts).reduce((m, p) => m + p.size, 0)),
      0,
    );
    sendJson(ctx.res, 200, {
      success: true,
      captureId: capture.captureId,
      uploadStatus: capture.uploadStatus,
      expectedFiles: capture.expectedFiles,
      completedFiles: capture.completedFiles,
      percentage: pct(done, total),
    });
  });
}
