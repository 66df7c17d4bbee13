import type { SyntheticEvent } from 'react';
import { useMemo, useRef, useState } from 'react';
import { flushSync } from 'react-dom';
import type { AssetView } from '../../../../shared/ipc.js';
import type { AssetLook } from './asset-looks.js';
import { AssetOverlay } from './AssetOverlay.js';
import { AssetShape } from './AssetShape.js';
import { bounds } from './drawing-geometry.js';
import type { ZoomAct } from './use-drawing-zoom.js';
import { useDrawingZoom } from './use-drawing-zoom.js';
import { useRovingShapes } from './use-roving-shapes.js';
import { ZoomToolbar } from './ZoomToolbar.js';

/** Where a pointer in the gap of a dashed line looks for it (CSS px): the four sides, then the diagonals, 3 px away. */
const NEAR: readonly (readonly [number, number])[] = [
  [3, 0],
  [-3, 0],
  [0, 3],
  [0, -3],
  [2, 2],
  [-2, 2],
  [2, -2],
  [-2, -2],
];

/** The wrapper's keys: zoom with + and −, pan with the arrow keys (on the toolbar), 0 to reset. */
const KEYS: Record<string, ZoomAct> = {
  '+': 'in',
  '=': 'in',
  '-': 'out',
  ArrowLeft: 'left',
  ArrowRight: 'right',
  ArrowUp: 'up',
  ArrowDown: 'down',
  '0': 'reset',
};

/**
 * A structure's assets in SVG by their §2 `shape` (polylines, filled polygons, points as dots,
 * others through their points; plan coordinates of progress-records-interface.md §2 `points`)
 * with pan and zoom by d3-zoom: wheel, drag and pinch, and for the keyboard + and −, the arrow
 * keys on the toolbar, and buttons (Reset view returns to the whole structure).
 *
 * The shapes are one tab stop (./use-roving-shapes.ts): the arrow keys, Home and End move between
 * them in the table's order, and "n" or the "Next not finished" button goes to the next one whose
 * stages are not all done. Each shape is a memoised element keyed by asset (./AssetShape.tsx);
 * the hovered or focused one is drawn again, thicker and ringed, in an overlay `<svg>` above the
 * shapes with the same zoom (./AssetOverlay.tsx): a hover or a focus move changes no shape's
 * drawing, only the tab stop's `tabindex` (docs/decisions/0025-assets-drawing-at-scale.md). `look` gives each asset's colour, name and points;
 * hovering or focusing a shape calls `onFocus`.
 */
export function AssetDrawing(props: {
  assets: AssetView[];
  look: ReadonlyMap<string, AssetLook>;
  label: string;
  focusedId: string | null;
  onFocus: (a: AssetView) => void;
}) {
  const { assets, look, label, focusedId, onFocus } = props;
  const box = useMemo(() => bounds(assets), [assets]);
  const indexOf = useMemo(() => new Map(assets.map((a, i) => [a._id, i])), [assets]);
  const { svgRef, layerRef, overlayRef, scale, act, reveal } = useDrawingZoom(box);
  const { keys, goUnfinished, notice } = useRovingShapes(assets, look, layerRef, reveal);
  // The shape with keyboard (DOM) focus, drawn with a ring; hover alone draws none.
  const [ringed, setRinged] = useState<AssetView | null>(null);
  // The roving tab stop: the asset last focused or hovered, else the first.
  const known = focusedId !== null && indexOf.has(focusedId);
  const current = known ? indexOf.get(focusedId)! : 0;
  const viewBox = `${box.x} ${box.y} ${box.width} ${box.height}`;
  // One listener each on the layer for all shapes: no closure per shape, so memoised shapes stay equal.
  const fromEvent = (e: SyntheticEvent): AssetView | undefined => assetAt(e.target as Element);
  const assetAt = (el: Element | null): AssetView | undefined => {
    const i = el?.getAttribute?.('data-index');
    return i === null || i === undefined ? undefined : assets[Number(i)];
  };
  // A line's dash pattern (its key step's second cue, ./palette.ts) leaves gaps the browser's
  // hit-testing does not count as the line: a pointer in one, within NEAR px of the line, hovers it.
  const pending = useRef<{ x: number; y: number } | null>(null);
  const nearPointer = (x: number, y: number) => {
    const first = !pending.current;
    pending.current = { x, y };
    if (!first) return;
    requestAnimationFrame(() => {
      const at = pending.current!;
      pending.current = null;
      for (const [dx, dy] of NEAR) {
        const a = assetAt(document.elementFromPoint(at.x + dx, at.y + dy));
        if (a) {
          if (a._id !== focusedRef.current) onFocus(a);
          return;
        }
      }
    });
  };
  const focusedRef = useRef(focusedId);
  focusedRef.current = focusedId;

  return (
    <div
      className="asset-drawing-wrap"
      onKeyDown={(e) => {
        const how = KEYS[e.key];
        if (!how) return;
        e.preventDefault();
        act(how);
      }}
    >
      <ZoomToolbar act={act} onNext={() => goUnfinished(known ? current : -1)} scale={scale} />
      <p className="muted drawing-help" id="drawing-help">
        In the drawing: arrow keys, Home and End go from asset to asset, n to the next one not finished.
      </p>
      <p className="muted" role="status" data-testid="drawing-notice">
        {notice}
      </p>
      {/* The shapes, and over them the overlay of the hovered or focused one, in one box. */}
      <div className="asset-drawing-stack">
        <svg
          ref={svgRef}
          className="asset-drawing"
          viewBox={viewBox}
          role="group"
          aria-label={label}
          aria-describedby="drawing-help"
          onMouseMove={(e) => {
            if (!assetAt(e.target as Element)) nearPointer(e.clientX, e.clientY);
          }}
        >
          <defs>
            {/* The ring on each vertex of a shape the app does not know (AssetShape.tsx). */}
            <marker
              id="asset-vertex"
              className="asset-vertex"
              viewBox="0 0 10 10"
              refX="5"
              refY="5"
              markerWidth="3"
              markerHeight="3"
            >
              <circle cx="5" cy="5" r="3.5" />
            </marker>
          </defs>
          {/* The zoom's transform is set here, and the same on the overlay's layer. */}
          <g ref={layerRef} data-testid="asset-zoom">
            <g
              data-testid="asset-layer"
              onKeyDown={keys}
              onMouseOver={(e) => {
                const a = fromEvent(e);
                // Rendered within the event: Chromium dispatches mouse moves just before a frame,
                // and an update left to React's scheduler would wait for the frame after it.
                if (a && a._id !== focusedId) flushSync(() => onFocus(a));
              }}
              onFocus={(e) => {
                const a = fromEvent(e);
                setRinged(a ?? null);
                if (a) onFocus(a);
              }}
              onBlur={() => setRinged(null)}
            >
              {assets.map((a, i) => (
                <AssetShape key={a._id} asset={a} index={i} look={look.get(a._id)!} tabbable={i === current} />
              ))}
            </g>
          </g>
        </svg>
        <AssetOverlay
          viewBox={viewBox}
          layerRef={overlayRef}
          look={look}
          highlighted={known ? assets[current]! : null}
          ringed={ringed}
        />
      </div>
    </div>
  );
}
