// The legend of a structure's external assets in one category (progress-records-interface.md §2):
// for each stage, in sequence order, how many assets reached it and the share of the category's
// polyline length. Pure, shared by the renderer and the CLI.

/** A stage as the legend needs it. */
export interface LegendStage {
  _id: string;
  name: string;
  sequence: number;
  color: string;
}

/** An asset as the legend needs it: its polyline and its progress per stage (percentage 0–100). */
export interface LegendAsset {
  points: { x: number; y: number }[];
  doNotTrack?: boolean;
  stages: { _id: string; percentage: number }[];
}

/** One legend line: `stage` null for assets that reached no stage yet. `length` in the category's unit; `share` 0–1. */
export interface StageTotal {
  stage: LegendStage | null;
  assets: number;
  length: number;
  share: number;
}

/**
 * How a category's unit of measure (`uom`, §2) relates to its drawn polylines. The interface does
 * not say what unit plan coordinates are in; this client takes them to be the category's length
 * unit (metres for `m` and `m2`, feet for `ft` and `ft2`), which the seeded plans bear out. A
 * length unit measures the polyline itself; an area unit with a height (a wall traced on plan)
 * measures length × height; anything else is not derived, and lengths are said in plan units.
 * `unit` is what the quantity is said in; `factor` multiplies a polyline's length into it.
 */
export interface CategoryMeasure {
  kind: 'length' | 'area' | 'plan';
  unit: string;
  factor: number;
}

const LENGTH_UNITS = new Set(['m', 'mm', 'cm', 'ft', 'lf', 'yd', 'in']);
const AREA_UNITS = new Set(['m2', 'm²', 'sqm', 'ft2', 'ft²', 'sqft', 'sf']);

/** The measure of a category from its `uom` and `height` (see CategoryMeasure). */
export function categoryMeasure(uom: string, height: number | null | undefined): CategoryMeasure {
  const u = uom.trim().toLowerCase();
  if (LENGTH_UNITS.has(u)) return { kind: 'length', unit: uom, factor: 1 };
  if (AREA_UNITS.has(u) && height && height > 0) return { kind: 'area', unit: uom, factor: height };
  return { kind: 'plan', unit: 'plan units', factor: 1 };
}

/** A polyline's length: the sum of its segments, in the units of its points. */
export function polylineLength(points: { x: number; y: number }[]): number {
  let n = 0;
  for (let i = 1; i < points.length; i++)
    n += Math.hypot(points[i]!.x - points[i - 1]!.x, points[i]!.y - points[i - 1]!.y);
  return n;
}

/**
 * The stage an asset has reached: the one latest in sequence with any progress (percentage > 0),
 * or null when none has started. (The interface gives percentages per stage, not which one
 * counts as reached; work on a later stage means the asset is at least there.)
 */
export function reachedStage<S extends LegendStage>(stages: readonly S[], asset: LegendAsset): S | null {
  const started = new Set(asset.stages.filter((s) => s.percentage > 0).map((s) => s._id));
  const ordered = [...stages].sort((a, b) => a.sequence - b.sequence);
  let reached: S | null = null;
  for (const s of ordered) if (started.has(s._id)) reached = s;
  return reached;
}

/**
 * The legend: one line per stage in sequence order, then one for assets not started, each with
 * how many tracked assets are there and their share of the tracked assets' total length.
 * Assets marked `doNotTrack` are left out of the figures (they are drawn muted). `size` measures
 * an asset (default: its polyline's length; the Assets view passes its quantity in the category's
 * unit by shape, shared/asset-measure.ts), and `length` and `share` are of that.
 */
export function stageTotals<A extends LegendAsset>(
  stages: readonly LegendStage[],
  assets: readonly A[],
  size: (a: A) => number = (a) => polylineLength(a.points),
): StageTotal[] {
  const tracked = assets.filter((a) => !a.doNotTrack);
  const total = tracked.reduce((n, a) => n + size(a), 0);
  const lines = new Map<string | null, StageTotal>();
  for (const s of [...stages].sort((a, b) => a.sequence - b.sequence))
    lines.set(s._id, { stage: s, assets: 0, length: 0, share: 0 });
  lines.set(null, { stage: null, assets: 0, length: 0, share: 0 });
  for (const a of tracked) {
    const line = lines.get(reachedStage(stages, a)?._id ?? null)!;
    line.assets++;
    line.length += size(a);
  }
  for (const l of lines.values()) l.share = total > 0 ? l.length / total : 0;
  return [...lines.values()];
}

/**
 * How far an asset got, 0–1: the mean over the category's stages of its percentage in each
 * (a stage it does not list counts 0). 0.05 for a line 5 % into one stage of one, 1 when every
 * stage is at 100 %. Percentages outside 0–100 are clamped.
 */
export function progressFraction(stages: readonly LegendStage[], asset: LegendAsset): number {
  if (stages.length === 0) return 0;
  const pct = new Map(asset.stages.map((s) => [s._id, Math.min(100, Math.max(0, s.percentage))]));
  return stages.reduce((n, s) => n + (pct.get(s._id) ?? 0), 0) / (stages.length * 100);
}
