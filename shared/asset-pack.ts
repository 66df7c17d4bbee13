// A structure's assets in one category (progress-records-interface.md §2 ExternalAsset) as they
// travel from the upload service to the window: in columns of typed arrays and small tables of
// the strings that repeat, rather than one object per asset, stage and point, so that each
// process boundary copies bytes instead of cloning a floor's 200,000 point objects and 8,000
// stage objects (docs/decisions/0032-assets-answer-packed.md). Packed by the service
// (main/office/office-sync.ts), unpacked once in the window (renderer/src/assets-slice.ts). Imports
// neither Node nor the DOM.

/** A point in plan coordinates (§2 `points`). */
interface PlanPoint {
  x: number;
  y: number;
}

/** One asset as the Assets view reads it (shared/ipc/office.ts AssetView has the same fields). */
export interface UnpackedAsset {
  _id: string;
  shape: string;
  points: PlanPoint[];
  doNotTrack: boolean;
  /** ISO 8601, or null when the service gave none. */
  snapshot: string | null;
  /** Percentage 0–100 and date (ISO 8601 or null) per stage the asset lists. */
  stages: { _id: string; percentage: number; date: string | null }[];
}

/**
 * `n` assets in answer order, by columns. Asset `i`:
 * - `ids[i]` its §2 `_id`; `shapes[shape[i]]` its `shape`; `doNotTrack[i]` 1 when it is marked so;
 *   `snapshots[snapshot[i]]` its snapshot time, none when `snapshot[i]` is −1;
 * - for each stage `s` of `stageIds` (every stage id any asset of the answer lists, first seen
 *   first): `percentage[i × stageIds.length + s]`, NaN when the asset does not list it, and the
 *   date `dates[date[i × stageIds.length + s]]`, none when −1;
 * - its points `starts[i]` … `starts[i + 1] − 1`, point `k` at `xy[2k]`, `xy[2k + 1]` (plan units);
 *   `starts` has `n + 1` entries, its last the number of points.
 */
export interface PackedAssets {
  ids: string[];
  shapes: string[];
  shape: Uint16Array<ArrayBuffer>;
  doNotTrack: Uint8Array<ArrayBuffer>;
  snapshots: string[];
  snapshot: Int32Array<ArrayBuffer>;
  stageIds: string[];
  percentage: Float64Array<ArrayBuffer>;
  dates: string[];
  date: Int32Array<ArrayBuffer>;
  xy: Float64Array<ArrayBuffer>;
  starts: Uint32Array<ArrayBuffer>;
}

/** The index of `value` in `table`, added when new (`index` maps values to their places). */
function placeOf(value: string, table: string[], index: Map<string, number>): number {
  let i = index.get(value);
  if (i === undefined) {
    i = table.length;
    table.push(value);
    index.set(value, i);
  }
  return i;
}

/**
 * Packs `assets` (see PackedAssets). Their points and percentages must have been validated
 * where the service's answer entered the app (main/api/progress-records.ts: finite numbers). A
 * stage an asset lists twice keeps its first listing, as the view reads it; the order in which an
 * asset lists its stages is not kept (the view orders stages by the category's sequence). Never
 * throws (for fewer than 65,536 distinct shape names and 2³² points).
 */
export function packAssets(assets: readonly UnpackedAsset[]): PackedAssets {
  const n = assets.length;
  const shapes: string[] = [];
  const shapeAt = new Map<string, number>();
  const snapshots: string[] = [];
  const snapshotAt = new Map<string, number>();
  const stageIds: string[] = [];
  const stageAt = new Map<string, number>();
  for (const a of assets) for (const s of a.stages) placeOf(s._id, stageIds, stageAt);
  const width = stageIds.length;
  const dates: string[] = [];
  const dateAt = new Map<string, number>();
  const shape = new Uint16Array(n);
  const doNotTrack = new Uint8Array(n);
  const snapshot = new Int32Array(n);
  const percentage = new Float64Array(n * width).fill(NaN);
  const date = new Int32Array(n * width).fill(-1);
  let total = 0;
  for (const a of assets) total += a.points.length;
  const xy = new Float64Array(2 * total);
  const starts = new Uint32Array(n + 1);
  let k = 0;
  for (let i = 0; i < n; i++) {
    const a = assets[i]!;
    shape[i] = placeOf(a.shape, shapes, shapeAt);
    doNotTrack[i] = a.doNotTrack ? 1 : 0;
    snapshot[i] = a.snapshot === null ? -1 : placeOf(a.snapshot, snapshots, snapshotAt);
    for (const s of a.stages) {
      const at = i * width + stageAt.get(s._id)!;
      if (!Number.isNaN(percentage[at]!)) continue;
      percentage[at] = s.percentage;
      date[at] = s.date === null ? -1 : placeOf(s.date, dates, dateAt);
    }
    starts[i] = k / 2;
    for (const p of a.points) {
      xy[k++] = p.x;
      xy[k++] = p.y;
    }
  }
  starts[n] = total;
  return {
    ids: assets.map((a) => a._id),
    shapes,
    shape,
    doNotTrack,
    snapshots,
    snapshot,
    stageIds,
    percentage,
    dates,
    date,
    xy,
    starts,
  };
}

/**
 * The assets of `p`, in order, each as one object with its points and stages (see PackedAssets).
 * Checks that the columns fit together (sizes, and each index within its table: O(assets ×
 * stages)); the numbers themselves were validated where the service's answer entered the app.
 * Throws Error saying what does not fit.
 */
export function unpackAssets(p: PackedAssets): UnpackedAsset[] {
  const n = p.ids.length;
  const width = p.stageIds.length;
  const wrong = (what: string) => new Error(`The assets answer does not fit together: ${what}`);
  if (
    p.shape.length !== n ||
    p.doNotTrack.length !== n ||
    p.snapshot.length !== n ||
    p.percentage.length !== n * width ||
    p.date.length !== n * width
  )
    throw wrong(`its columns are not each ${n} assets long`);
  if (p.starts.length !== n + 1 || p.starts[0] !== 0 || p.starts[n]! * 2 !== p.xy.length)
    throw wrong(`${p.starts.length} point starts for ${n} assets and ${p.xy.length / 2} points`);
  const out = new Array<UnpackedAsset>(n);
  for (let i = 0; i < n; i++) {
    const from = p.starts[i]!;
    const to = p.starts[i + 1]!;
    const shape = p.shapes[p.shape[i]!];
    const snap = p.snapshot[i]!;
    if (to < from || shape === undefined || snap >= p.snapshots.length)
      throw wrong(`asset ${i + 1} points outside the answer's tables`);
    const points = new Array<PlanPoint>(to - from);
    for (let k = from; k < to; k++) points[k - from] = { x: p.xy[2 * k]!, y: p.xy[2 * k + 1]! };
    const stages: UnpackedAsset['stages'] = [];
    for (let s = 0; s < width; s++) {
      const percentage = p.percentage[i * width + s]!;
      if (Number.isNaN(percentage)) continue;
      const d = p.date[i * width + s]!;
      if (d >= p.dates.length) throw wrong(`a date of asset ${i + 1} outside the answer's dates`);
      stages.push({ _id: p.stageIds[s]!, percentage, date: d < 0 ? null : p.dates[d]! });
    }
    out[i] = {
      _id: p.ids[i]!,
      shape,
      points,
      doNotTrack: p.doNotTrack[i] === 1,
      snapshot: snap < 0 ? null : p.snapshots[snap]!,
      stages,
    };
  }
  return out;
}
