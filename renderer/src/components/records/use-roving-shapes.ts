import type { KeyboardEvent, RefObject } from 'react';
import { useState } from 'react';
import type { AssetView } from '../../../../shared/ipc.js';
import type { AssetLook } from './asset-looks.js';
import { centre } from './drawing-geometry.js';

/**
 * The drawing's shapes as one tab stop (a roving tabindex, WAI-ARIA Authoring Practices
 * "Managing focus within components"): `keys` on the layer moves focus with the arrow keys,
 * Home and End in the table's order, and "n" to the next shape not finished; `goUnfinished(from)`
 * does the same for the "Next not finished" button (from -1: the first). `notice` says when every
 * tracked asset is finished. `reveal` pans a shape reached outside the zoomed view into it.
 */
export function useRovingShapes(
  assets: AssetView[],
  look: ReadonlyMap<string, AssetLook>,
  layerRef: RefObject<SVGGElement | null>,
  reveal: (c: { x: number; y: number }) => void,
) {
  const [notice, setNotice] = useState('');
  const focusShape = (i: number) => {
    const el = layerRef.current?.querySelector<SVGElement>(`[data-index="${i}"]`);
    if (!el) return;
    el.focus();
    reveal(centre(assets[i]!));
  };
  const goUnfinished = (from: number) => {
    for (let step = 1; step <= assets.length; step++) {
      const i = (from + step) % assets.length;
      if (look.get(assets[i]!._id)?.unfinished) {
        setNotice('');
        focusShape(i);
        return;
      }
    }
    setNotice('Every tracked asset is finished.');
  };
  const keys = (e: KeyboardEvent<SVGGElement>) => {
    const i = Number((e.target as Element).getAttribute('data-index'));
    if (!Number.isInteger(i)) return;
    const last = assets.length - 1;
    const to: Record<string, number> = {
      ArrowRight: Math.min(last, i + 1),
      ArrowDown: Math.min(last, i + 1),
      ArrowLeft: Math.max(0, i - 1),
      ArrowUp: Math.max(0, i - 1),
      Home: 0,
      End: last,
    };
    const isNext = e.key === 'n' || e.key === 'N';
    if (!isNext && to[e.key] === undefined) return;
    // On a shape the arrows move between shapes; on the toolbar they pan (the wrapper's keys).
    e.preventDefault();
    e.stopPropagation();
    if (isNext) goUnfinished(i);
    else focusShape(to[e.key]!);
  };
  return { keys, goUnfinished, notice };
}
