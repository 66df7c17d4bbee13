import { select } from 'd3-selection';
import type { ZoomBehavior, ZoomTransform } from 'd3-zoom';
import { zoom, zoomIdentity, zoomTransform } from 'd3-zoom';
import { useEffect, useRef, useState } from 'react';
import type { Box } from './drawing-geometry.js';

/** How far one zoom step scales, and the zoom range (1 = the whole structure). */
const STEP = 1.5;
const SCALE_EXTENT: [number, number] = [1, 24];
/** One pan step, as a share of the drawing's width or height. */
const PAN = 0.1;

/** A pan or zoom step of the toolbar and its keys. */
export type ZoomAct = 'in' | 'out' | 'left' | 'right' | 'up' | 'down' | 'reset';

/**
 * Pan and zoom of the drawing's layer by d3-zoom (wheel, drag, pinch) within `box` (plan units):
 * the refs to put on the `<svg>`, its layer and the overlay's layer (./AssetOverlay.tsx, given the
 * same transform so the highlight stays on its shape), the scale (1 = the whole structure), `act` for the
 * toolbar's steps, and `reveal` to pan a point (plan units) into view when it is outside the
 * zoomed view. The transform is set on the layer directly: a pan redraws no React element.
 */
export function useDrawingZoom(box: Box) {
  const svgRef = useRef<SVGSVGElement>(null);
  const layerRef = useRef<SVGGElement>(null);
  const overlayRef = useRef<SVGGElement>(null);
  const behaviour = useRef<ZoomBehavior<SVGSVGElement, unknown> | null>(null);
  const [scale, setScale] = useState(1);

  useEffect(() => {
    const svg = svgRef.current;
    if (!svg) return;
    const z = zoom<SVGSVGElement, unknown>()
      .scaleExtent(SCALE_EXTENT)
      // Panning stops at the structure's edges, so the drawing cannot be lost off screen.
      .translateExtent([
        [box.x, box.y],
        [box.x + box.width, box.y + box.height],
      ])
      .on('zoom', (e: { transform: ZoomTransform }) => {
        const t = e.transform.toString();
        layerRef.current?.setAttribute('transform', t);
        overlayRef.current?.setAttribute('transform', t);
        setScale(e.transform.k);
      });
    behaviour.current = z;
    const selection = select(svg);
    selection.call(z).call(z.transform, zoomIdentity);
    return () => void selection.on('.zoom', null);
  }, [box]);

  const act = (how: ZoomAct) => {
    const z = behaviour.current;
    const svg = svgRef.current;
    if (!z || !svg) return;
    const s = select(svg);
    if (how === 'in') z.scaleBy(s, STEP);
    else if (how === 'out') z.scaleBy(s, 1 / STEP);
    else if (how === 'reset') z.transform(s, zoomIdentity);
    else {
      // translateBy moves in drawing units before scaling: divide by the scale to move one screen step.
      const dx = how === 'left' ? 1 : how === 'right' ? -1 : 0;
      const dy = how === 'up' ? 1 : how === 'down' ? -1 : 0;
      z.translateBy(s, (dx * PAN * box.width) / scale, (dy * PAN * box.height) / scale);
    }
  };
  const reveal = (c: { x: number; y: number }) => {
    const z = behaviour.current;
    const svg = svgRef.current;
    if (!z || !svg || scale <= 1) return;
    const [x, y] = zoomTransform(svg).apply([c.x, c.y]);
    const outside = x < box.x || x > box.x + box.width || y < box.y || y > box.y + box.height;
    if (outside) z.translateTo(select(svg), c.x, c.y);
  };
  return { svgRef, layerRef, overlayRef, scale, act, reveal };
}
