import { z } from 'zod';
import { captureState, id, iso, ymd } from './common.js';

// The office workspace's schemas of the IPC contract (shared/ipc.ts re-exports them).

/** A progress entry (progress-records-interface.md §2). `date` YYYY-MM-DD. */
export const progressEntryView = z.object({ id: z.string(), date: ymd, status: z.string(), details: z.string() });
export type ProgressEntryView = z.infer<typeof progressEntryView>;

/**
 * An asset category with its stages (§2), as the Assets view needs it. A stage's `uom` and
 * `measurement` (its own unit and what it measures: "length", "area", "volume", "count") are null
 * when the service leaves them out; the view then says its percentages only.
 */
export const assetCategoryView = z.object({
  id: z.string(),
  name: z.string(),
  uom: z.string(),
  /** The category's height (§2, in its length unit), or null when not given: an area unit's quantity is length × height. */
  height: z.number().nullable(),
  stages: z.array(
    z.object({
      _id: z.string(),
      name: z.string(),
      sequence: z.number(),
      color: z.string(),
      uom: z.string().nullable(),
      measurement: z.string().nullable(),
    }),
  ),
});
export type AssetCategoryView = z.infer<typeof assetCategoryView>;

/**
 * An external asset (§2) as the Assets view draws it: its `shape` as the service names it
 * ("Polyline"; shared/asset-measure.ts reads the others), its points in plan coordinates and its
 * progress per stage (percentage 0–100, date ISO 8601). It does not cross the IPC in this form:
 * `packedAssets` carries a whole answer.
 */
export interface AssetView {
  _id: string;
  shape: string;
  points: { x: number; y: number }[];
  doNotTrack: boolean;
  snapshot: string | null;
  stages: { _id: string; percentage: number; date: string | null }[];
}

/**
 * A structure's assets in one category (§2) in columns: typed arrays, and tables of the strings
 * that repeat (shared/asset-pack.ts PackedAssets says what each holds), so that each process
 * boundary copies bytes rather than one object per asset, stage and point
 * (docs/decisions/0032-assets-answer-packed.md). The window unpacks it once (renderer/src/assets-slice.ts).
 */
export const packedAssets = z.object({
  ids: z.array(z.string()),
  shapes: z.array(z.string()),
  shape: z.instanceof(Uint16Array),
  doNotTrack: z.instanceof(Uint8Array),
  snapshots: z.array(z.string()),
  snapshot: z.instanceof(Int32Array),
  stageIds: z.array(z.string()),
  percentage: z.instanceof(Float64Array),
  dates: z.array(z.string()),
  date: z.instanceof(Int32Array),
  xy: z.instanceof(Float64Array),
  starts: z.instanceof(Uint32Array),
});

/**
 * An entry recorded while the progress service could not be reached, waiting to be sent.
 * `queuedAt` ISO 8601; `state` 'refused' with the service's `error` when it answered 400.
 */
export const outboxItemView = z.object({
  id,
  date: ymd,
  status: z.string(),
  details: z.string(),
  queuedAt: iso,
  state: z.enum(['waiting', 'refused']),
  error: z.string().nullable(),
  /** The entry field a refusal's message names (shown beside it in the form), or null. */
  field: z.enum(['date', 'status', 'details']).nullable(),
});
export type OutboxItemView = z.infer<typeof outboxItemView>;

/**
 * A capture of the local queue beside the office's day: `captureRow` its queue row;
 * `structureName` the friendly name from the settings (the id when none); `capturedAt` ISO 8601 as
 * registered; `files` not cancelled, `filesUploaded` of them; `uploadedAt` (ISO 8601) once all are.
 */
export const dayCaptureView = z.object({
  captureRow: id,
  label: z.string(),
  structure: z.string(),
  structureName: z.string(),
  state: captureState,
  capturedAt: z.string(),
  files: z.number(),
  filesUploaded: z.number(),
  uploadedAt: z.string().nullable(),
});
export type DayCaptureView = z.infer<typeof dayCaptureView>;
