import { z } from 'zod';
import { iso } from './common.js';

// The Upload screen's schemas of the IPC contract (shared/ipc.ts re-exports them).

/** Metadata read from a recording; see main/media. Timestamps ISO 8601; seconds; pixels. */
const mediaView = z.object({
  createdAt: z.string().optional(),
  durationSeconds: z.number().optional(),
  frameRate: z.number().optional(),
  width: z.number().optional(),
  height: z.number().optional(),
  camera: z
    .object({ model: z.string().optional(), serialNumber: z.string().optional(), firmware: z.string().optional() })
    .optional(),
  error: z.string().optional(),
});

/** A proposed capture from dropped files, before registration. Sizes in bytes. */
const proposedCapture = z.object({
  key: z.string(),
  kind: z.enum(['dual-lens', 'single-lens', 'video']),
  label: z.string(),
  files: z.array(z.object({ path: z.string(), name: z.string(), size: z.number() })),
  /** The §7 message this capture would be refused with, if any. */
  violation: z.string().optional(),
  /** From the first video: what fills the form. */
  media: mediaView,
  /** Suggested capture time, ISO 8601 with zone. */
  capturedAt: z.string(),
  /** Files already in the queue (same path, size and time): registering again is refused. */
  alreadyQueued: z.boolean(),
  /**
   * The label of an earlier capture of the same drop holding the same recording (the same content
   * at another path, main/intake/intake.ts duplicatesWithin): this one is not registered, as the
   * queue would refuse it. Absent: none.
   */
  duplicateOf: z.string().optional(),
  /** What a person should know before registering it (shared/capture-warnings.ts): it is uploaded all the same. */
  warnings: z.array(z.string()).optional(),
});
export type ProposedCapture = z.infer<typeof proposedCapture>;

export const inspectResult = z.object({
  captures: z.array(proposedCapture),
  refused: z.array(z.object({ path: z.string(), reason: z.string() })),
});
export type InspectResult = z.infer<typeof inspectResult>;

/** One capture as the person filled its form. */
export const captureForm = z.object({
  paths: z.array(z.string().min(1)).min(1),
  structure: z.string().min(1),
  design: z.string().optional(),
  type: z.enum(['interior', 'exterior']),
  capturedAt: iso,
  /** The warnings the person saw for it in the registration table: kept with the capture to the finish. */
  warnings: z.array(z.string().max(500)).max(20).optional(),
});
export type CaptureForm = z.infer<typeof captureForm>;

/**
 * Where the previous card of this project was registered (the placement most of its captures
 * went to), offered to be carried over explicitly; ids as in §4.4.
 */
export const lastPlacement = z.object({
  structure: z.string().min(1),
  design: z.string().optional(),
  type: z.enum(['interior', 'exterior']),
});
export type LastPlacement = z.infer<typeof lastPlacement>;
