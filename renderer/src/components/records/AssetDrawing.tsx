import { select } from 'd3-selection';
import type { ZoomBehavior, ZoomTransform } from 'd3-zoom';
import { zoom, zoomIdentity, zoomTransform } from 'd3-zoom';
import type { KeyboardEvent, SyntheticEvent } from 'react';
import { memo, useEffect, useMemo, useRef, useState } from 'react';
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

/** What the drawing needs of one asset, worked out once per answer (never per hover). */
export interface AssetLook {
  /** Its colour, `rgb(r, g, b)` or `#rrggbb`. */
  colour: string;
  /** Its short accessible name ("Curtain Wall 3. 40% of all stages, reached Framing"). */
  label: string;
  /** Tracked and not every stage at 100 %: where "Next not finished" stops. */
  unfinished: boolean;
}

/**
 * A structure's assets in SVG by their §2 `shape` (polylines, filled polygons, points as dots,
 * others through their points; plan coordinates of progress-records-interface.md §2 `points`)
 * with pan and zoom by d3-zoom: wheel, drag and pinch, and for the keyboard + and −, the arrow
 * keys on the toolbar, and buttons (Reset view returns to the whole structure).
 *
 * The shapes are one tab stop (a roving tabindex, WAI-ARIA Authoring Practices "Managing focus
 * within components"): the arrow keys, Home and End move between them in the table's order, and
 * "n" or the "Next not finished" button goes to the next one whose stages are not all done. Each
 * shape is a memoised element keyed by asset: hovering or focusing one redraws that shape and the
 * one it leaves, nothing else (docs/decisions/assets-drawing-at-scale.md). `look` gives each
 * asset's colour and name; hovering or focusing a shape calls `onFocus`.
 */
export function AssetDrawing(props: {
  assets: AssetView[];
  look: ReadonlyMap<string, AssetLook>;
  label: string;
  focusedId: string | null;
  onFocus: (a: AssetView) => void;
}) {
  const { assets, look, label, focusedId, onFocus } = props;
  const svgRef = useRef<SVGSVGElement>(null);
  const layerRef = useRef<SVGGElement>(null);
  const behaviour = useRef<ZoomBehavior<SVGSVGElement, unknown> | null>(null);
  const [scale, setScale] = useState(1);
  const box = useMemo(() => bounds(assets), [assets]);
  const indexOf = useMemo(() => new Map(assets.map((a, i) => [a._id, i])), [assets]);
  // The roving tab stop: the asset last focused or hovered, else the first.
  const current = focusedId !== null && indexOf.has(focusedId) ? indexOf.get(focusedId)! : 0;
  const [notice, setNotice] = useState('');

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

  /** Moves keyboard focus to the shape at `i`, panning the zoomed view to it when it is out of sight. */
  const focusShape = (i: number) => {
    const el = layerRef.current?.querySelector<SVGElement>(`[data-index="${i}"]`);
    if (!el) return;
    el.focus();
    const z = behaviour.current;
    const svg = svgRef.current;
    if (z && svg && scale > 1) {
      const t = zoomTransform(svg);
      const c = centre(assets[i]!);
      const [x, y] = t.apply([c.x, c.y]);
      const outside = x < box.x || x > box.x + box.width || y < box.y || y > box.y + box.height;
      if (outside) z.translateTo(select(svg), c.x, c.y);
    }
  };
  /** The next unfinished asset after `from`, going round; null when every tracked asset is done. */
  const nextUnfinished = (from: number): number | null => {
    for (let step = 1; step <= assets.length; step++) {
      const i = (from + step) % assets.length;
      if (look.get(assets[i]!._id)?.unfinished) return i;
    }
    return null;
  };
  const goUnfinished = (from: number) => {
    const i = nextUnfinished(from);
    if (i === null) setNotice('Every tracked asset is finished.');
    else {
      setNotice('');
      focusShape(i);
    }
  };
  const shapeKeys = (e: KeyboardEvent<SVGGElement>) => {
    const i = Number((e.target as Element).getAttribute('data-index'));
    if (!Number.isInteger(i)) return;
    const last = assets.length - 1;
    const to: Record<string, () => number | null> = {
      ArrowRight: () => Math.min(last, i + 1),
      ArrowDown: () => Math.min(last, i + 1),
      ArrowLeft: () => Math.max(0, i - 1),
      ArrowUp: () => Math.max(0, i - 1),
      Home: () => 0,
      End: () => last,
    };
    if (e.key === 'n' || e.key === 'N') {
      e.preventDefault();
      e.stopPropagation();
      goUnfinished(i);
      return;
    }
    const move = to[e.key];
    if (!move) return;
    // On a shape the arrows move between shapes; on the toolbar they pan (the wrapper's keys).
    e.preventDefault();
    e.stopPropagation();
    const j = move();
    if (j !== null) focusShape(j);
  };
  // One listener each on the layer for all shapes: no closure per shape, so memoised shapes stay equal.
  const fromEvent = (e: SyntheticEvent): AssetView | undefined => {
    const i = (e.target as Element).getAttribute?.('data-index');
    return i === null || i === undefined ? undefined : assets[Number(i)];
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
        <button
          aria-keyshortcuts="n"
          onClick={() => goUnfinished(focusedId !== null && indexOf.has(focusedId) ? current : -1)}
        >
          Next not finished
        </button>
        <span className="muted" data-testid="zoom-level">
          {Math.round(scale * 100)}%
        </span>
      </div>
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
        <g
          ref={layerRef}
          data-testid="asset-layer"
          onKeyDown={shapeKeys}
          onMouseOver={(e) => {
            const a = fromEvent(e);
            if (a && a._id !== focusedId) onFocus(a);
          }}
          onFocus={(e) => {
            const a = fromEvent(e);
            if (a) onFocus(a);
          }}
        >
          {assets.map((a, i) => (
            <Shape
              key={a._id}
              asset={a}
              index={i}
              look={look.get(a._id)!}
              focused={focusedId === a._id}
              tabbable={i === current}
            />
          ))}
        </g>
      </svg>
    </div>
  );
}

/**
 * One asset drawn by its shape. Memoised: it is redrawn only when its own colour, name, focus or
 * tab stop changes, which keeps a hover at two shapes' work on a floor of thousands.
 */
const Shape = memo(function Shape({
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
    points: a.points.map((p) => `${p.x},${p.y}`).join(' '),
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
  if (kind === 'point') {
    const p = a.points[0] ?? { x: 0, y: 0 };
    return <polyline {...common} points={`${p.x},${p.y} ${p.x},${p.y}`} fill="none" strokeWidth={focused ? 16 : 11} />;
  }
  return (
    <polyline
      {...common}
      fill="none"
      strokeDasharray={a.doNotTrack ? '4 3' : kind === 'other' ? '1 5' : undefined}
      strokeWidth={focused ? 7 : 4}
    />
  );
});

/** The middle of an asset's points' box, in plan units. */
function centre(a: AssetView): { x: number; y: number } {
  const b = bounds([a]);
  return { x: b.x + b.width / 2, y: b.y + b.height / 2 };
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
