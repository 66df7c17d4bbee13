import { useApp } from '../../store.js';

/** The id the finish line's link points at. */
export const WARNINGS_ID = 'capture-warnings';

/**
 * The captures that carry warnings (a missing trailer, a lone or vanished lens, a
 * recording much shorter than its card's others), each with its words: folded into one line until
 * opened, and opened by the finish line's link ("2 captures with warnings").
 */
export function Warnings() {
  const captures = useApp((s) => s.captures);
  const warned = Object.values(captures).filter((c) => c.warnings?.length);
  if (warned.length === 0) return null;
  return (
    <details className="warnings-list" id={WARNINGS_ID} data-testid="capture-warnings">
      <summary>
        ⚠ {warned.length} capture{warned.length === 1 ? '' : 's'} with warnings: uploaded as they are, worth a look
      </summary>
      <ul>
        {warned.map((c) => (
          <li key={c.id}>
            <strong>{c.label}</strong>: {c.warnings!.join(' ')}
          </li>
        ))}
      </ul>
    </details>
  );
}

/** Opens the list of captures with warnings and moves focus to it (the finish line's link). */
export function showWarnings(): void {
  const el = document.getElementById(WARNINGS_ID) as HTMLDetailsElement | null;
  if (!el) return;
  el.open = true;
  el.querySelector('summary')?.focus();
  el.scrollIntoView({ block: 'nearest' });
}
