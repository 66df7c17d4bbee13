import { shapeKind } from '../../../../shared/asset-measure.js';
import type { AssetView } from '../../../../shared/ipc.js';

/** A box in plan units (progress-records-interface.md §2 `points`). */
export interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** The middle of an asset's points' box, in plan units. */
export function centre(a: AssetView): { x: number; y: number } {
  const b = bounds([a]);
  return { x: b.x + b.width / 2, y: b.y + b.height / 2 };
}

/** The box around every point with a margin of 5 % (at least one unit), in plan units. */
export function bounds(assets: readonly AssetView[]): Box {
  // One pass, no spread: a floor's 200,000 points as arguments overflow the call stack.
  let [x0, x1, y0, y1] = [Infinity, -Infinity, Infinity, -Infinity];
  for (const a of assets) {
    for (const p of a.points) {
      if (p.x < x0) x0 = p.x;
      if (p.x > x1) x1 = p.x;
      if (p.y < y0) y0 = p.y;
      if (p.y > y1) y1 = p.y;
    }
  }
  if (x0 === Infinity) return { x: 0, y: 0, width: 1, height: 1 };
  const m = Math.max(1, 0.05 * Math.max(x1 - x0, y1 - y0));
  return { x: x0 - m, y: y0 - m, width: x1 - x0 + 2 * m, height: y1 - y0 + 2 * m };
}

/**
 * The SVG `points` attribute of an asset as drawn, made once per answer (never per hover): its
 * §2 points in order ("x,y x,y …"), or for a point shape its first point twice, a zero-length
 * line that round caps draw as a dot. One string built by appending, no spread of the points.
 */
export function pointsText(a: AssetView): string {
  if (shapeKind(a.shape) === 'point') {
    const p = a.points[0] ?? { x: 0, y: 0 };
    return `${p.x},${p.y} ${p.x},${p.y}`;
  }
  let s = '';
  for (const p of a.points) s += s ? ` ${p.x},${p.y}` : `${p.x},${p.y}`;
  return s;
}
