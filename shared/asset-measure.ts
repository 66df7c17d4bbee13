import { polylineLength } from './asset-stages.js';

// What an external asset measures, by its `shape` and in each stage's unit
// (progress-records-interface.md §2: ExternalAsset.shape, ExternalAssetCategory.uom and height,
// Stage.uom and measurement). Pure, shared by the renderer and the tests.
//
// The interface gives "Polyline" and says other shapes exist without naming them; this client
// knows polylines, polygons and points, and draws any other shape through its points without
// measuring it. It does not say what unit plan coordinates are in either: they are taken to be the
// category's length unit (metres for `m`, `m2` and `m3`, feet for `ft` and `ft2`, …), as the seeded
// plans bear out, and the category's `height` is in that unit too.

/** The shapes this client draws: `other` is any shape the interface did not name (drawn through its points, not measured). */
export type ShapeKind = 'polyline' | 'polygon' | 'point' | 'other';

/** What a unit measures. */
export type Dimension = 'length' | 'area' | 'volume' | 'count';

/** The shape named by §2 `shape`, whatever its case ("Polyline", "polygon", "Point", "LineString"…). */
export function shapeKind(shape: string | null | undefined): ShapeKind {
  const s = (shape ?? 'Polyline').trim().toLowerCase();
  if (s === 'polyline' || s === 'line' || s === 'linestring') return 'polyline';
  if (s === 'polygon' || s === 'area') return 'polygon';
  if (s === 'point' || s === 'marker') return 'point';
  return 'other';
}

/** Units this client converts, as [dimension, size in metres (m², m³) or 1 for a count]. */
const UNITS: Record<string, [Dimension, number]> = {
  m: ['length', 1],
  mm: ['length', 0.001],
  cm: ['length', 0.01],
  km: ['length', 1000],
  ft: ['length', 0.3048],
  lf: ['length', 0.3048],
  in: ['length', 0.0254],
  yd: ['length', 0.9144],
  m2: ['area', 1],
  'm²': ['area', 1],
  sqm: ['area', 1],
  ft2: ['area', 0.09290304],
  'ft²': ['area', 0.09290304],
  sqft: ['area', 0.09290304],
  sf: ['area', 0.09290304],
  yd2: ['area', 0.83612736],
  m3: ['volume', 1],
  'm³': ['volume', 1],
  cum: ['volume', 1],
  ft3: ['volume', 0.028316846592],
  cf: ['volume', 0.028316846592],
  yd3: ['volume', 0.764554857984],
  cy: ['volume', 0.764554857984],
  ea: ['count', 1],
  each: ['count', 1],
  no: ['count', 1],
  nos: ['count', 1],
  nr: ['count', 1],
  pc: ['count', 1],
  pcs: ['count', 1],
  unit: ['count', 1],
  units: ['count', 1],
};

/** A unit's dimension and size (see UNITS), or undefined for a unit this client does not know (tonnes, hours…). */
export function unitOf(uom: string | null | undefined): [Dimension, number] | undefined {
  return UNITS[(uom ?? '').trim().toLowerCase()];
}

/** The length unit plan coordinates are in, in metres: the category unit's own (ft for ft2), or undefined when it has none (a count). */
export function planUnitMetres(categoryUom: string): number | undefined {
  const u = unitOf(categoryUom);
  if (!u || u[0] === 'count') return undefined;
  return u[0] === 'length' ? u[1] : u[0] === 'area' ? Math.sqrt(u[1]) : Math.cbrt(u[1]);
}

/** The geometry of one asset in plan units: points as §2 gives them. */
export interface Shaped {
  shape?: string | null;
  points: { x: number; y: number }[];
}

/** A polygon's area (shoelace), in square plan units; the ring is closed whether or not its last point repeats the first. */
export function polygonArea(points: { x: number; y: number }[]): number {
  let twice = 0;
  for (let i = 0; i < points.length; i++) {
    const a = points[i]!;
    const b = points[(i + 1) % points.length]!;
    twice += a.x * b.y - b.x * a.y;
  }
  return Math.abs(twice) / 2;
}

/** The length a shape has on plan (plan units): a polyline's run, a polygon's perimeter; undefined for points and unknown shapes. */
export function drawnLength(a: Shaped): number | undefined {
  const kind = shapeKind(a.shape);
  if (kind === 'polyline') return polylineLength(a.points);
  if (kind === 'polygon') return a.points.length < 2 ? 0 : polylineLength([...a.points, a.points[0]!]);
  return undefined;
}

/** Where a quantity's unit and meaning come from: a stage's `uom` and `measurement`, or the category's `uom`. */
export interface UnitSpec {
  uom?: string | null;
  /** §2 Stage.measurement: "length", "area", "volume" or "count" where given; the unit decides otherwise. */
  measurement?: string | null;
}

/**
 * How much of `unit` one asset holds: a count unit counts the asset (1, whatever its shape); a
 * length unit measures a polyline's run or a polygon's perimeter; an area unit a polygon's area,
 * or a polyline's run times the category's `height` (a wall traced on plan); a volume unit a
 * polygon's area times the height (a slab's thickness). Undefined when the shape cannot give it
 * (a point's length, an unknown shape's anything but its count) or the unit is not known, or its
 * `measurement` names another dimension than the unit's.
 */
export function quantityIn(
  a: Shaped,
  unit: UnitSpec,
  category: { uom: string; height: number | null },
): number | undefined {
  const u = unitOf(unit.uom);
  if (!u) return undefined;
  const [dim, size] = u;
  const said = (unit.measurement ?? '').trim().toLowerCase();
  if (said && said !== dim && !(said === 'quantity' && dim === 'count')) return undefined;
  if (dim === 'count') return 1;
  const plan = planUnitMetres(category.uom);
  if (plan === undefined) return undefined;
  const kind = shapeKind(a.shape);
  const height = category.height && category.height > 0 ? category.height : undefined;
  let metres: number | undefined;
  if (dim === 'length') {
    const l = drawnLength(a);
    metres = l === undefined ? undefined : l * plan;
  } else if (dim === 'area') {
    if (kind === 'polygon') metres = polygonArea(a.points) * plan * plan;
    else if (kind === 'polyline' && height) metres = polylineLength(a.points) * height * plan * plan;
  } else if (kind === 'polygon' && height) metres = polygonArea(a.points) * height * plan ** 3;
  return metres === undefined ? undefined : metres / size;
}

/** One stage's work in its own unit over the tracked assets that can be measured in it: `done` of `total`; `measured` how many assets counted. */
export interface StageWork {
  done: number;
  total: number;
  measured: number;
}

/**
 * A stage's work done, in the stage's unit (§2 Stage.uom): each tracked asset's quantity times its
 * percentage in that stage (0 when it lists none), summed; do-not-track assets are left out, as in
 * the legend. `measured` 0 means the unit cannot be derived from these shapes.
 */
export function stageWork(
  stage: { _id: string } & UnitSpec,
  assets: readonly (Shaped & { doNotTrack?: boolean; stages: { _id: string; percentage: number }[] })[],
  category: { uom: string; height: number | null },
): StageWork {
  const w: StageWork = { done: 0, total: 0, measured: 0 };
  for (const a of assets) {
    if (a.doNotTrack) continue;
    const q = quantityIn(a, stage, category);
    if (q === undefined) continue;
    const pct = Math.min(100, Math.max(0, a.stages.find((s) => s._id === stage._id)?.percentage ?? 0));
    w.done += (q * pct) / 100;
    w.total += q;
    w.measured++;
  }
  return w;
}

/**
 * A quantity for reading: whole numbers as they are, others to one decimal ("120", "31.5"), in the
 * locale's decimal sign; no thousands separator, since quantities stand in comma-separated lists.
 */
function formatQuantity(n: number, locale?: string): string {
  return n.toLocaleString(locale, { maximumFractionDigits: 1, useGrouping: false });
}

/** "120 of 300 m": work done of the whole, in the unit as the service spells it. */
export function workPhrase(w: { done: number; total: number }, uom: string, locale?: string): string {
  return `${formatQuantity(w.done, locale)} of ${formatQuantity(w.total, locale)} ${uom}`;
}

/**
 * How a category's assets are sized as a whole (the legend's quantity): `size` an asset's quantity
 * in the category's unit by its shape (quantityIn), or its drawn length in plan units when that
 * unit cannot be derived from these assets (`dimension` null, `unit` 'plan units'); `note` says
 * it in words: "lengths in m", "area in m2: drawn length × height 3", "area in m2: the drawn
 * outlines", "volume in m3: drawn area × height 0.25", "counted in ea".
 */
export interface CategorySizing {
  dimension: Dimension | null;
  unit: string;
  size: (a: Shaped) => number;
  note: string;
}

/** The sizing of `assets` in `category` (see CategorySizing). */
export function categorySizing(
  category: { uom: string; height: number | null },
  assets: readonly Shaped[],
): CategorySizing {
  const unit = unitOf(category.uom);
  const measurable = Boolean(unit) && assets.some((a) => quantityIn(a, { uom: category.uom }, category) !== undefined);
  if (!measurable)
    return {
      dimension: null,
      unit: 'plan units',
      size: (a) => drawnLength(a) ?? 0,
      note: 'drawn length in plan units; the category’s unit cannot be derived from it',
    };
  const dimension = unit![0];
  const lines = assets.some((a) => shapeKind(a.shape) === 'polyline');
  const note =
    dimension === 'length'
      ? `lengths in ${category.uom}`
      : dimension === 'area'
        ? lines
          ? `area in ${category.uom}: drawn length × height ${category.height}`
          : `area in ${category.uom}: the drawn outlines`
        : dimension === 'volume'
          ? `volume in ${category.uom}: drawn area × height ${category.height}`
          : `counted in ${category.uom}`;
  return { dimension, unit: category.uom, size: (a) => quantityIn(a, { uom: category.uom }, category) ?? 0, note };
}
