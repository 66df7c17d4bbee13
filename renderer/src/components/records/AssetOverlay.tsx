import type { RefObject } from 'react';
import { shapeKind } from '../../../../shared/asset-measure.js';
import type { AssetView } from '../../../../shared/ipc.js';
import type { AssetLook } from './asset-looks.js';
import { focusedWidth, shapeDrawing } from './AssetShape.js';

/**
 * The hovered or focused shape drawn again above the drawing, in an `<svg>` of its own laid
 * exactly over the shapes' (the same box and `viewBox`; its layer carries the same zoom transform,
 * ./use-drawing-zoom.ts): a hover or a focus move changes this small SVG and nothing in the
 * shapes' one, so the browser repaints two shapes' worth, not a floor's thousands
 * (docs/decisions/0025-assets-drawing-at-scale.md). Not in the accessibility tree (each shape's
 * own element keeps its name and its focus) and not hit by the pointer (styles.css
 * `.asset-overlay`), so hovers and hit-testing reach the shapes under it.
 *
 * `highlighted` is drawn thicker (./AssetShape.tsx shapeDrawing `'focused'`); `ringed`, the shape
 * with keyboard focus, is ringed (WCAG 2.4.7): its points again, 6 px wider than its focused
 * width, in the focus colour (styles.css `.focus-ring`, 3:1 or more against the drawing in both
 * themes, WCAG 1.4.11), under its thicker copy so 3 px show on each side. Chromium (156, as the
 * e2e tests run it) painted no CSS outline on these SVG shapes, hence an element of its own.
 */
export function AssetOverlay(props: {
  viewBox: string;
  layerRef: RefObject<SVGGElement | null>;
  look: ReadonlyMap<string, AssetLook>;
  highlighted: AssetView | null;
  ringed: AssetView | null;
}) {
  const { viewBox, layerRef, look, highlighted, ringed } = props;
  const lit = highlighted && look.get(highlighted._id);
  const ring = ringed && look.get(ringed._id);
  return (
    <svg className="asset-overlay" viewBox={viewBox} aria-hidden="true" data-testid="asset-overlay">
      <g ref={layerRef} data-testid="asset-overlay-zoom">
        {ringed && ring && <FocusRing asset={ringed} look={ring} />}
        {/* The ringed shape when the pointer is on another: its line again, over its ring. */}
        {ringed && ring && ringed._id !== highlighted?._id && <Copy asset={ringed} look={ring} as="over-ring" />}
        {highlighted && lit && <Copy asset={highlighted} look={lit} as="focused" />}
      </g>
    </svg>
  );
}

/** One shape drawn again in the overlay (./AssetShape.tsx shapeDrawing). */
function Copy({ asset, look, as }: { asset: AssetView; look: AssetLook; as: 'focused' | 'over-ring' }) {
  const { tag: Tag, attrs } = shapeDrawing(shapeKind(asset.shape), look, as);
  return (
    <Tag {...attrs} data-testid={as === 'focused' ? 'asset-highlight' : 'asset-over-ring'} data-highlight={asset._id} />
  );
}

/** The focus ring around the shape with keyboard focus (see AssetOverlay). */
function FocusRing({ asset, look }: { asset: AssetView; look: AssetLook }) {
  const kind = shapeKind(asset.shape);
  const common = {
    className: 'focus-ring',
    'data-testid': 'focus-ring',
    'data-asset': asset._id,
    points: look.points,
    // The focused shape's own width, plus 3 px each side.
    strokeWidth: focusedWidth(kind) + 6,
    strokeLinecap: 'round' as const,
    strokeLinejoin: 'round' as const,
    vectorEffect: 'non-scaling-stroke',
  };
  return kind === 'polygon' ? <polygon {...common} /> : <polyline {...common} />;
}
