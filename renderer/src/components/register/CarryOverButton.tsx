import { isRegistrable, nameOfPlacement } from '../../placement.js';
import { useApp } from '../../store.js';

/**
 * The explicit carry-over of the previous card's place (captures.lastPlacement): sets it on the
 * selected captures, or on every capture still without a place, never on one already placed;
 * `setStatus` says what was done. Nothing shows when there is no previous place.
 */
export function CarryOverButton({ setStatus }: { setStatus(s: string): void }) {
  const structures = useApp((s) => s.settings?.structures ?? []);
  const last = useApp((s) => s.lastPlacement);
  const lastName = last ? nameOfPlacement(structures, last) : undefined;
  if (!last || !lastName) return null;
  const carryOver = () => {
    const s = useApp.getState();
    const keys = s.selected.size
      ? [...s.selected]
      : s.drafts.filter((d) => isRegistrable(d) && !d.form.structure).map((d) => d.proposal.key);
    s.applyTo(keys, { structure: last.structure, design: last.design, type: last.type });
    s.selectDrafts(keys, false);
    setStatus(`${lastName} (${last.type}) set on ${keys.length} capture${keys.length === 1 ? '' : 's'}, as last time.`);
  };
  return (
    <button type="button" className="secondary" onClick={carryOver}>
      Use {lastName} ({last.type}) as last time
    </button>
  );
}
