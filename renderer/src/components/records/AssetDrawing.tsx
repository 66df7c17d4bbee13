import type { SyntheticEvent } from 'react';
import { useMemo, useState } from 'react';
import type { AssetView } from '../../../../shared/ipc.js';
import type { AssetLook } from './asset-looks.js';
import { AssetShape } from './AssetShape.js';
import { bounds } from './drawing-geometry.js';
import { FocusRing } from './FocusRing.js';
import type { ZoomAct } from './use-drawing-zoom.js';
import { useDrawingZoom } from './use-drawing-zoom.js';
import { useRovingShapes } from './use-roving-shapes.js';
import { ZoomToolbar } from './ZoomToolbar.js';

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
 * stages are not all done. Each shape is a memoised element keyed by asset (./AssetShape.tsx):
 * hovering or focusing one redraws that shape and the one it leaves, nothing else
 * (docs/decisions/assets-drawing-at-scale.md). `look` gives each asset's colour, name and points;
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
  const { svgRef, layerRef, scale, act, reveal } = useDrawingZoom(box);
  const { keys, goUnfinished, notice } = useRovingShapes(assets, look, layerRef, reveal);
  // The shape with keyboard (DOM) focus, drawn with a ring; hover alone draws none.
  const [ringed, setRinged] = useState<AssetView | null>(null);
  // The roving tab stop: the asset last focused or hovered, else the first.
  const known = focusedId !== null && indexOf.has(focusedId);
  const current = known ? indexOf.get(focusedId)! : 0;
  // One listener each on the layer for all shapes: no closure per shape, so memoised shapes stay equal.
  const fromEvent = (e: SyntheticEvent): AssetView | undefined => {
    const i = (e.target as Element).getAttribute?.('data-index');
    return i === null || i === undefined ? undefined : assets[Number(i)];
  };

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
      <svg
        ref={svgRef}
        className="asset-drawing"
        viewBox={`${box.x} ${box.y} ${box.width} ${box.height}`}
        role="group"
        aria-label={label}
        aria-describedby="drawing-help"
      >
        {/* The zoom's transform is set here, on the shapes and the focus ring together. */}
        <g ref={layerRef} data-testid="asset-zoom">
          {ringed && look.has(ringed._id) && <FocusRing asset={ringed} look={look.get(ringed._id)!} />}
          <g
            data-testid="asset-layer"
            onKeyDown={keys}
            onMouseOver={(e) => {
              const a = fromEvent(e);
              if (a && a._id !== focusedId) onFocus(a);
            }}
            onFocus={(e) => {
              const a = fromEvent(e);
              setRinged(a ?? null);
              if (a) onFocus(a);
            }}
            onBlur={() => setRinged(null)}
          >
            {assets.map((a, i) => (
              <AssetShape
                key={a._id}
                asset={a}
                index={i}
                look={look.get(a._id)!}
                focused={focusedId === a._id}
                tabbable={i === current}
              />
            ))}
          </g>
        </g>
      </svg>
    </div>
  );
}
