import { select } from 'd3-selection';
import type { ZoomBehavior, ZoomTransform } from 'd3-zoom';
import { zoom, zoomIdentity } from 'd3-zoom';
import { useEffect, useMemo, useRef, useState } from 'react';
import { shapeKind } from '../../../../shared/asset-measure.js';
import type { AssetView } from '../../../../shared/ipc.js';

/** How far one zoom step scales, and the zoom range (1 = the whole structure). */
const STEP = 1.5;
const SCALE_EXTENT: [number, number] = [1, 24];
/** One pan step, as a share of the drawing's width or height. */
const PAN = 0.1;

interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
}

/**
 * A structure's assets in SVG by their §2 `shape` (polylines, filled polygons, points as dots,
 * others through their points; plan coordinates of progress-records-interface.md §2 `points`) with pan and zoom by d3-zoom: wheel, drag and pinch, and for the keyboard + and −,
 * the arrow keys, and buttons (Reset view returns to the whole structure). `colour` and
 * `describe` say how each line is drawn and read; hovering or focusing a line calls `onFocus`.
 */
export function AssetDrawing(props: {
  assets: AssetView[];
  colour: (a: AssetView) => string;
  describe: (a: AssetView) => string;
  label: string;
  focusedId: string | null;
  onFocus: (a: AssetView) => void;
}) {
  const { assets, colour, describe, label, focusedId, onFocus } = props;
  const svgRef = useRef<SVGSVGElement>(null);
  const layerRef = useRef<SVGGElement>(null);
  const behaviour = useRef<ZoomBehavior<SVGSVGElement, unknown> | null>(null);
  const [scale, setScale] = useState(1);
  const box = useMemo(() => bounds(assets), [assets]);

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
        layerRef.current?.setAttribute('transform', e.transform.toString());
        setScale(e.transform.k);
      });
    behaviour.current = z;
    const selection = select(svg);
    selection.call(z).call(z.transform, zoomIdentity);
    return () => void selection.on('.zoom', null);
  }, [box]);

  const act = (how: 'in' | 'out' | 'left' | 'right' | 'up' | 'down' | 'reset') => {
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
  const keys: Record<string, Parameters<typeof act>[0]> = {
    '+': 'in',
    '=': 'in',
    '-': 'out',
    ArrowLeft: 'left',
    ArrowRight: 'right',
    ArrowUp: 'up',
    ArrowDown: 'down',
    '0': 'reset',
  };

  return (
    <div
      className="asset-drawing-wrap"
      onKeyDown={(e) => {
        const how = keys[e.key];
        if (!how) return;
        e.preventDefault();
        act(how);
      }}
    >
      <div className="zoom-controls" role="toolbar" aria-label="Pan and zoom (also + − and the arrow keys)">
        <button aria-label="Zoom in" onClick={() => act('in')}>
          +
        </button>
        <button aria-label="Zoom out" onClick={() => act('out')}>
          −
        </button>
        <button aria-label="Pan left" onClick={() => act('left')}>
          ←
        </button>
        <button aria-label="Pan right" onClick={() => act('right')}>
          →
        </button>
        <button aria-label="Pan up" onClick={() => act('up')}>
          ↑
        </button>
        <button aria-label="Pan down" onClick={() => act('down')}>
          ↓
        </button>
        <button onClick={() => act('reset')}>Reset view</button>
        <span className="muted" data-testid="zoom-level">
          {Math.round(scale * 100)}%
        </span>
      </div>
      <svg ref={svgRef} className="asset-drawing" viewBox={`${box.x} ${box.y} ${box.width} ${box.height}`} role="group" aria-label={label}>
        <g ref={layerRef} data-testid="asset-layer">
          {assets.map((a) => {
            const kind = shapeKind(a.shape);
            const focused = focusedId === a._id;
            const common = {
              'data-testid': 'asset-line',
              'data-asset': a._id,
              'data-shape': kind,
              points: a.points.map((p) => `${p.x},${p.y}`).join(' '),
              stroke: colour(a),
              strokeLinecap: 'round' as const,
              strokeLinejoin: 'round' as const,
              vectorEffect: 'non-scaling-stroke',
              tabIndex: 0,
              role: 'img',
              'aria-label': describe(a),
              onMouseEnter: () => onFocus(a),
              onFocus: () => onFocus(a),
            };
            // A polygon is an outline filled with its colour; a point a dot that keeps its size on
            // screen (a zero-length line with round caps); a shape not known is drawn through its
            // points, dotted. Not-tracked assets are dashed whatever their shape.
            if (kind === 'polygon')
              return <polygon key={a._id} {...common} fill={colour(a)} fillOpacity={focused ? 0.7 : 0.35} strokeDasharray={a.doNotTrack ? '4 3' : undefined} strokeWidth={focused ? 5 : 2.5} />;
            if (kind === 'point') {
              const p = a.points[0] ?? { x: 0, y: 0 };
              return <polyline key={a._id} {...common} points={`${p.x},${p.y} ${p.x},${p.y}`} fill="none" strokeWidth={focused ? 16 : 11} />;
            }
            return (
              <polyline
                key={a._id}
                {...common}
                fill="none"
                strokeDasharray={a.doNotTrack ? '4 3' : kind === 'other' ? '1 5' : undefined}
                strokeWidth={focused ? 7 : 4}
              />
            );
          })}
        </g>
      </svg>
    </div>
  );
}

/** The box around every point with a margin of 5 % (at least one unit), in plan units. */
function bounds(assets: AssetView[]): Box {
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
