import type { ZoomAct } from './use-drawing-zoom.js';

/** The drawing's toolbar: zoom and pan steps (`act`), "Next not finished" (`onNext`), and the zoom level (`scale`, 1 = 100 %). */
export function ZoomToolbar({
  act,
  onNext,
  scale,
}: {
  act: (how: ZoomAct) => void;
  onNext: () => void;
  scale: number;
}) {
  return (
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
      <button aria-keyshortcuts="n" onClick={onNext}>
        Next not finished
      </button>
      <span className="muted" data-testid="zoom-level">
        {Math.round(scale * 100)}%
      </span>
    </div>
  );
}
