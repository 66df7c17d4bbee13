import { useCallback, useMemo } from 'react';
import type { AssetCategoryView, AssetView } from '../../../../shared/ipc.js';
import { localDate } from '../../../../shared/when.js';
import type { AssetFigures } from './asset-figures.js';
import { pointsText } from './drawing-geometry.js';
import {
  MUTED,
  STEP_DASHES,
  STEP_WIDTHS,
  UNTRACKED_DASH,
  UNTRACKED_WIDTH,
  fractionColour,
  keyStep,
} from './palette.js';

/** What the drawing needs of one asset, worked out once per answer (never per hover). */
export interface AssetLook {
  /** Its colour, `rgb(r, g, b)` or `#rrggbb`. */
  colour: string;
  /** Its short accessible name ("Curtain Wall 3. 40% of all stages, reached Framing"). */
  label: string;
  /** Tracked and not every stage at 100 %: where "Next not finished" stops. */
  unfinished: boolean;
  /** Its SVG `points` attribute, plan units (./drawing-geometry.ts pointsText). */
  points: string;
  /**
   * Its line's second cue besides the colour (./palette.ts): the dash pattern of its key step
   * (screen pixels, undefined for solid) and its stroke width; "not tracked" its own dash-dot and
   * a thinner line.
   */
  dash: string | undefined;
  width: number;
}

/**
 * The names, looks and long descriptions of one answer's assets (progress-records-interface.md
 * §2). §2 gives assets no name: each is called by its category's name and its place in the
 * answer ("Curtain Wall 3"); the id is shown only on hover (title), never as the name. Each look
 * (colour by how far the asset got on a sequential palette, do-not-track muted; short name;
 * points) is made once per answer, so a hover redraws only the shapes it touches
 * (docs/decisions/0025-assets-drawing-at-scale.md). `describe` is called for the one focused asset.
 */
export function useAssetLooks(
  assets: AssetView[] | null,
  category: AssetCategoryView | undefined,
  f: AssetFigures | null,
) {
  const names = useMemo(
    () => new Map((assets ?? []).map((a, i) => [a._id, `${category?.name ?? 'Asset'} ${i + 1}`])),
    [assets, category],
  );
  const nameOf = useCallback((a: AssetView) => names.get(a._id) ?? a._id, [names]);
  const look = useMemo(() => {
    const m = new Map<string, AssetLook>();
    for (const a of assets ?? []) {
      const fraction = f ? f.fraction(a) : 0;
      const reached = f?.reached(a)?.name ?? 'not started';
      const step = keyStep(fraction);
      m.set(a._id, {
        colour: a.doNotTrack ? MUTED : fractionColour(fraction),
        dash: a.doNotTrack ? UNTRACKED_DASH : STEP_DASHES[step],
        width: a.doNotTrack ? UNTRACKED_WIDTH : STEP_WIDTHS[step],
        label: a.doNotTrack
          ? `${nameOf(a)}. Not tracked`
          : `${nameOf(a)}. ${Math.round(fraction * 100)}% of all stages, reached ${reached}`,
        unfinished: !a.doNotTrack && fraction < 1,
        points: pointsText(a),
      });
    }
    return m;
  }, [assets, f, nameOf]);
  const describe = (a: AssetView) =>
    !f
      ? nameOf(a)
      : `${nameOf(a)}. ${f.shapeText(a)}. ${a.doNotTrack ? 'Not tracked. ' : ''}Reached: ${f.reached(a)?.name ?? 'not started'} (${Math.round(f.fraction(a) * 100)}% of all stages). ` +
        f.stages.map((s) => `${s.name} ${f.stageCell(a, s) === '—' ? '0%' : f.stageCell(a, s)}`).join(', ') +
        (a.snapshot ? `. Snapshot ${localDate(a.snapshot)}` : '');
  return { nameOf, look, describe };
}
