import type { SVGProps } from 'react';
import { memo } from 'react';
import type { ShapeKind } from '../../../../shared/asset-measure.js';
import { shapeKind } from '../../../../shared/asset-measure.js';
import type { AssetView } from '../../../../shared/ipc.js';
import type { AssetLook } from './asset-looks.js';

/** The stroke width (CSS px, not scaled by the zoom) of a hovered or focused shape, by its §2 shape kind. */
export const focusedWidth = (kind: ShapeKind) => (kind === 'polygon' ? 5 : kind === 'point' ? 16 : 7);

/** A polygon's fill opacity (0–1) as drawn in the shapes' layer, and hovered or focused. */
const FILL = 0.35;
const FOCUSED_FILL = 0.7;

/**
 * How a shape of `kind` is drawn with `look` (progress-records-interface.md §2 `shape`): the SVG
 * element (`polygon` or `polyline`) and its presentation attributes. A polygon is an outline filled
 * with its colour; a point a dot that keeps its size on screen (a zero-length line with round caps);
 * a shape not known is drawn through its points, each vertex ringed. Lines and outlines carry their
 * key step's dash pattern and width besides the colour (./palette.ts STEP_DASHES; not tracked: its
 * dash-dot, thinner).
 *
 * `as` says what is drawn: `'shape'` the shape in the shapes' layer; `'focused'` its hovered or
 * focused copy, drawn over it in the overlay (./AssetOverlay.tsx) at one width whatever its step,
 * its fill adding to the shape's own to make FOCUSED_FILL; `'over-ring'` its stroke again, over
 * the focus ring when the shape with keyboard focus is not the hovered one, with no fill (the
 * shape's own shows through the ring's hollow).
 */
export function shapeDrawing(
  kind: ShapeKind,
  look: AssetLook,
  as: 'shape' | 'focused' | 'over-ring',
): { tag: 'polygon' | 'polyline'; attrs: SVGProps<SVGPolylineElement> } {
  const focused = as === 'focused';
  const common = {
    points: look.points,
    stroke: look.colour,
    strokeLinecap: 'round' as const,
    strokeLinejoin: 'round' as const,
    vectorEffect: 'non-scaling-stroke',
  };
  if (kind === 'polygon') {
    // Over the shape's own fill: 1 − (1 − FILL)(1 − extra) = FOCUSED_FILL.
    const fillOpacity = as === 'shape' ? FILL : focused ? 1 - (1 - FOCUSED_FILL) / (1 - FILL) : 0;
    return {
      tag: 'polygon',
      attrs: {
        ...common,
        fill: look.colour,
        fillOpacity,
        strokeDasharray: look.dash,
        strokeWidth: focused ? focusedWidth(kind) : look.width * 0.625,
      },
    };
  }
  if (kind === 'point')
    return { tag: 'polyline', attrs: { ...common, fill: 'none', strokeWidth: focused ? focusedWidth(kind) : 11 } };
  return {
    tag: 'polyline',
    attrs: {
      ...common,
      fill: 'none',
      strokeDasharray: look.dash,
      strokeWidth: focused ? focusedWidth(kind) : look.width,
      ...(kind === 'other' && {
        markerStart: 'url(#asset-vertex)',
        markerMid: 'url(#asset-vertex)',
        markerEnd: 'url(#asset-vertex)',
      }),
    },
  };
}

/**
 * One asset drawn by its §2 `shape` (progress-records-interface.md §2, ./shapeDrawing). Memoised on
 * props that stay equal between renders (the look is made once per answer, its points string
 * included): it is redrawn only when its tab stop changes. Hover and focus draw nothing here: the
 * hovered or focused shape is drawn again, thicker, and ringed when it has keyboard focus, in the
 * overlay above the shapes (./AssetOverlay.tsx), so a hover repaints none of a floor's thousands
 * of shapes (docs/decisions/0025-assets-drawing-at-scale.md).
 */
export const AssetShape = memo(function AssetShape({
  asset: a,
  index,
  look,
  tabbable,
}: {
  asset: AssetView;
  index: number;
  look: AssetLook;
  tabbable: boolean;
}) {
  const kind = shapeKind(a.shape);
  const { tag: Tag, attrs } = shapeDrawing(kind, look, 'shape');
  return (
    <Tag
      {...attrs}
      data-testid="asset-line"
      data-asset={a._id}
      data-index={index}
      data-shape={kind}
      tabIndex={tabbable ? 0 : -1}
      role="img"
      aria-label={look.label}
    />
  );
});
