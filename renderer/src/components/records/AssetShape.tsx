import { memo } from 'react';
import { shapeKind } from '../../../../shared/asset-measure.js';
import type { AssetView } from '../../../../shared/ipc.js';
import type { AssetLook } from './asset-looks.js';

/**
 * One asset drawn by its §2 `shape` (progress-records-interface.md §2). Memoised on props that
 * stay equal between renders (the look is made once per answer, its points string included): it
 * is redrawn only when its own focus or tab stop changes, which keeps a hover at two shapes' work
 * on a floor of thousands (docs/decisions/assets-drawing-at-scale.md). The focused one is drawn
 * thicker and, when it has keyboard focus, with an outline (styles.css, WCAG 2.4.7 and 1.4.11).
 */
export const AssetShape = memo(function AssetShape({
  asset: a,
  index,
  look,
  focused,
  tabbable,
}: {
  asset: AssetView;
  index: number;
  look: AssetLook;
  focused: boolean;
  tabbable: boolean;
}) {
  const kind = shapeKind(a.shape);
  const common = {
    'data-testid': 'asset-line',
    'data-asset': a._id,
    'data-index': index,
    'data-shape': kind,
    points: look.points,
    stroke: look.colour,
    strokeLinecap: 'round' as const,
    strokeLinejoin: 'round' as const,
    vectorEffect: 'non-scaling-stroke',
    tabIndex: tabbable ? 0 : -1,
    role: 'img',
    'aria-label': look.label,
  };
  // A polygon is an outline filled with its colour; a point a dot that keeps its size on
  // screen (a zero-length line with round caps); a shape not known is drawn through its
  // points, dotted. Not-tracked assets are dashed whatever their shape.
  if (kind === 'polygon')
    return (
      <polygon
        {...common}
        fill={look.colour}
        fillOpacity={focused ? 0.7 : 0.35}
        strokeDasharray={a.doNotTrack ? '4 3' : undefined}
        strokeWidth={focused ? 5 : 2.5}
      />
    );
  if (kind === 'point') return <polyline {...common} fill="none" strokeWidth={focused ? 16 : 11} />;
  return (
    <polyline
      {...common}
      fill="none"
      strokeDasharray={a.doNotTrack ? '4 3' : kind === 'other' ? '1 5' : undefined}
      strokeWidth={focused ? 7 : 4}
    />
  );
});
