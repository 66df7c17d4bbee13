import type { CSSProperties } from 'react';
import { useShallow } from 'zustand/react/shallow';
import { formatBytes } from '../../display-format.js';
import { useApp } from '../../store.js';
import type { RowAria } from './list-rows.js';
import { usePlaceName } from './capture-row-state.js';

/**
 * Completed captures of one batch (one structure, one day: list-rows.ts batchKey) folded into one line
 * How many, where, which day and how much, and a disclosure that lists them.
 */
export function BatchRow({
  batch,
  ids,
  open,
  style,
  aria,
}: {
  batch: string;
  ids: number[];
  open: boolean;
  style: CSSProperties;
  aria: RowAria;
}) {
  const first = useApp((s) => s.captures[ids[0]!]);
  const toggle = useApp((s) => s.toggleBatch);
  const { files, bytes } = useApp(
    useShallow((s) => {
      let files = 0;
      let bytes = 0;
      for (const c of ids) {
        for (const f of s.filesOf[c] ?? []) {
          const file = s.files[f];
          if (!file || file.state === 'cancelled') continue;
          files++;
          bytes += file.size;
        }
      }
      return { files, bytes };
    }),
  );
  const place = usePlaceName(first?.structure ?? '', null);
  const day = first?.capturedAt.slice(0, 10) ?? '';
  const label = `${ids.length} captures completed · ${place} · recorded ${day} · ${files} files · ${formatBytes(bytes)}`;
  return (
    <div
      className="batch-row"
      style={style}
      {...aria}
      data-testid="queue-batch"
      data-batch={batch}
      data-captures={ids.length}
    >
      <button
        className="disclosure"
        aria-expanded={open}
        onClick={() => toggle(batch)}
        title={label}
        aria-label={`${open ? 'Fold' : 'Show'} the ${ids.length} completed captures of ${place} recorded ${day}`}
      >
        <span aria-hidden="true">{open ? '▾' : '▸'}</span>
      </button>
      <span className="state completed">✓ {ids.length} captures completed</span>
      <span className="batch-name" title={label}>
        {place} · recorded {day} · {files} files · {formatBytes(bytes)}
      </span>
    </div>
  );
}
