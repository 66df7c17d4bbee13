import type { Dimension } from '../../../../shared/asset-measure.js';
import {
  categorySizing,
  quantityIn,
  shapeKind,
  stageWork,
  unitOf,
  workPhrase,
} from '../../../../shared/asset-measure.js';
import type { StageTotal } from '../../../../shared/asset-stages.js';
import { progressFraction, reachedStage, stageTotals } from '../../../../shared/asset-stages.js';
import type { AssetCategoryView, AssetView } from '../../../../shared/ipc.js';
import { localDate } from '../../../../shared/when.js';

type Stage = AssetCategoryView['stages'][number];

const DIMENSION_NAME: Record<Dimension, string> = { length: 'Length', area: 'Area', volume: 'Volume', count: 'Count' };

/**
 * What the Assets view says about one category's assets, by their `shape` and in each stage's
 * unit (progress-records-interface.md §2; shared/asset-measure.ts does the measuring): the
 * category's quantity per asset (`size`, in `unit`), the legend's totals, each stage's work done
 * in its own unit, and the words for a stage of one asset.
 */
export interface AssetFigures {
  stages: Stage[];
  /** An asset's quantity in the category's unit (its drawn length in plan units when that unit cannot be derived). */
  size: (a: AssetView) => number;
  /** "Length", "Area", "Volume", "Count" or "Drawn length"; `unit` what it is said in. */
  sizeName: string;
  unit: string;
  /** The legend caption's note: "lengths in m", "area in m2: drawn length × height 3", … */
  note: string;
  totals: StageTotal[];
  untracked: AssetView[];
  /** Each stage's work as "120 of 300 m", or why it cannot be said. */
  stageWorkText: (s: Stage) => string;
  /** One stage of one asset: "40% · 12.6 of 31.5 m2 · 20 Nov", '—' when the asset does not list the stage. */
  stageCell: (a: AssetView, s: Stage) => string;
  /** How the asset is drawn, in words: "Polyline", "Polygon", "Point", or the service's name and "drawn through its points". */
  shapeText: (a: AssetView) => string;
  /** Fraction done over all stages, 0–1 (shared/asset-stages.ts progressFraction). */
  fraction: (a: AssetView) => number;
  reached: (a: AssetView) => Stage | null;
  /** An ISO 8601 time as the office's local day (shared/when.ts localDate), each distinct time formatted once. */
  day: (iso: string) => string;
}

/** A quantity said in its unit: whole for counts, one decimal otherwise (as the legend always has). */
export const quantityText = (n: number, unit: string) =>
  `${unitOf(unit)?.[0] === 'count' ? String(Math.round(n)) : n.toFixed(1)} ${unit}`;

/** The figures of `assets` in `category` (see AssetFigures). */
export function assetFigures(category: AssetCategoryView, assets: AssetView[]): AssetFigures {
  const stages = [...category.stages].sort((a, b) => a.sequence - b.sequence);
  const cat = { uom: category.uom, height: category.height };
  const sizing = categorySizing(cat, assets);
  const { size } = sizing;
  const works = new Map(stages.map((s) => [s._id, stageWork(s, assets, cat)]));
  // A floor's table has a date in every stage cell, mostly the same few days: formatting each
  // once keeps the table of 2,000 assets from costing seconds (docs/decisions/0025-assets-drawing-at-scale.md).
  const days = new Map<string, string>();
  const day = (iso: string) => {
    let d = days.get(iso);
    if (d === undefined) days.set(iso, (d = localDate(iso)));
    return d;
  };
  return {
    day,
    stages,
    size,
    sizeName: sizing.dimension ? DIMENSION_NAME[sizing.dimension] : 'Drawn length',
    unit: sizing.unit,
    note: sizing.note,
    totals: stageTotals(stages, assets, size),
    untracked: assets.filter((a) => a.doNotTrack),
    stageWorkText: (s) => {
      const w = works.get(s._id)!;
      if (!s.uom) return 'no unit given: percentages only';
      if (w.measured === 0) return `in ${s.uom}: not derived from the drawing`;
      return workPhrase(w, s.uom);
    },
    stageCell: (a, s) => {
      const st = a.stages.find((x) => x._id === s._id);
      if (!st) return '—';
      const q = s.uom ? quantityIn(a, s, cat) : undefined;
      return [
        `${st.percentage}%`,
        ...(q !== undefined
          ? [workPhrase({ done: (q * Math.min(100, Math.max(0, st.percentage))) / 100, total: q }, s.uom!)]
          : []),
        ...(st.date && st.percentage > 0 ? [day(st.date)] : []),
      ].join(' · ');
    },
    shapeText: (a) => {
      const kind = shapeKind(a.shape);
      return kind === 'other' ? `${a.shape}, drawn through its points` : kind[0]!.toUpperCase() + kind.slice(1);
    },
    fraction: (a) => progressFraction(stages, a),
    reached: (a) => reachedStage(stages, a),
  };
}
