import { useEffect, useRef } from 'react';
import { useApp } from '../../store.js';

/** A checkbox that selects a set of rows: checked when all are, mixed when some are. */
export function SelectMany({ keys, label, tabIndex }: { keys: string[]; label: string; tabIndex: number }) {
  const count = useApp((s) => keys.filter((k) => s.selected.has(k)).length);
  const ref = useRef<HTMLInputElement>(null);
  const all = keys.length > 0 && count === keys.length;
  useEffect(() => {
    if (ref.current) ref.current.indeterminate = count > 0 && !all;
  }, [count, all]);
  return (
    <input
      ref={ref}
      type="checkbox"
      aria-label={label}
      checked={all}
      disabled={keys.length === 0}
      data-col={0}
      tabIndex={tabIndex}
      onChange={() => useApp.getState().selectDrafts(keys, !all)}
    />
  );
}
