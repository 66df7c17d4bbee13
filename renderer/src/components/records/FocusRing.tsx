import { shapeKind } from '../../../../shared/asset-measure.js';
import type { AssetView } from '../../../../shared/ipc.js';
import type { AssetLook } from './asset-looks.js';

/**
 * The keyboard focus drawn around the shape that has it (WCAG 2.4.7): the same points stroked
 * 6 px wider than the focused shape in the focus colour (styles.css `.focus-ring`, 3:1 or more
 * against the drawing in both themes, WCAG 1.4.11), under the shape, so 3 px show on each side.
 * Chromium (156, as the e2e tests run it) painted no CSS outline on these SVG shapes, hence an
 * element of its own. Not in the accessibility tree and not hit by the pointer.
 */
export function FocusRing({ asset, look }: { asset: AssetView; look: AssetLook }) {
  const kind = shapeKind(asset.shape);
  // The focused shape's own widths (AssetShape.tsx), plus 3 px each side.
  const width = (kind === 'polygon' ? 5 : kind === 'point' ? 16 : 7) + 6;
  const common = {
    className: 'focus-ring',
    'data-testid': 'focus-ring',
    'data-asset': asset._id,
    points: look.points,
    strokeWidth: width,
    strokeLinecap: 'round' as const,
    strokeLinejoin: 'round' as const,
    vectorEffect: 'non-scaling-stroke',
    'aria-hidden': true,
  };
  return kind === 'polygon' ? <polygon {...common} /> : <polyline {...common} />;
}
