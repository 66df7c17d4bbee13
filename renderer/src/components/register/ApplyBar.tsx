import { useState } from 'react';
import { useDrafts } from '../../drafts-store.js';
import { isRegistrable, nameOfPlacement, placeOptions } from '../../placement.js';
import { useApp } from '../../store.js';

/**
 * The controls above the registration table (issue #10 item 1): a structure · design and a type
 * applied to the selected rows at once, the explicit carry-over of the previous card's place, and
 * the count that opens the confirmation. Sticky, so it stays at hand over a long card.
 */
export function ApplyBar({ ready, waiting, onRegister }: { ready: number; waiting: number; onRegister(): void }) {
  const structures = useApp((s) => s.settings?.structures ?? []);
  const selected = useDrafts((s) => s.selected.size);
  const last = useDrafts((s) => s.lastPlacement);
  const [place, setPlace] = useState('');
  const [type, setType] = useState<'interior' | 'exterior'>('interior');
  const [status, setStatus] = useState('');
  const options = placeOptions(structures);
  const chosen = options.find((o) => o.value === place);
  const lastName = last ? nameOfPlacement(structures, last) : undefined;

  const apply = () => {
    if (!chosen) return;
    const n = useDrafts.getState().applyToSelected({ structure: chosen.structure, design: chosen.design, type });
    setStatus(`${chosen.label} (${type}) set on ${n} capture${n === 1 ? '' : 's'}.`);
  };
  const carryOver = () => {
    if (!last || !lastName) return;
    const s = useDrafts.getState();
    // The selected rows if any, else every row still without a place: never a row already placed.
    const keys = s.selected.size ? [...s.selected] : s.drafts.filter((d) => isRegistrable(d) && !d.form.structure).map((d) => d.proposal.key);
    s.applyTo(keys, { structure: last.structure, design: last.design, type: last.type });
    s.select(keys, false);
    setStatus(`${lastName} (${last.type}) set on ${keys.length} capture${keys.length === 1 ? '' : 's'}, as last time.`);
  };

  return (
    <div className="apply-bar" role="group" aria-label="Apply to selected captures">
      <label>
        Structure · design
        <select value={place} onChange={(e) => setPlace(e.target.value)}>
          <option value="">Choose…</option>
          {structures.map((s) => (
            <optgroup key={s.id} label={s.name}>
              {options
                .filter((o) => o.structure === s.id)
                .map((o) => (
                  <option key={o.value} value={o.value}>
                    {o.label}
                  </option>
                ))}
            </optgroup>
          ))}
        </select>
      </label>
      <label>
        Type
        <select value={type} onChange={(e) => setType(e.target.value as 'interior' | 'exterior')}>
          <option value="interior">Interior</option>
          <option value="exterior">Exterior</option>
        </select>
      </label>
      <button type="button" disabled={!chosen || selected === 0} onClick={apply}>
        Apply to {selected} selected
      </button>
      {lastName && last && (
        <button type="button" className="secondary" onClick={carryOver}>
          Use {lastName} ({last.type}) as last time
        </button>
      )}
      <button type="button" className="link" disabled={selected === 0} onClick={() => useDrafts.getState().discardSelected()}>
        Remove selected from list
      </button>
      <span className="apply-status" role="status">
        {status}
      </span>
      <div className="register-actions">
        {waiting > 0 && <span className="muted">{waiting} not placed yet</span>}
        <button type="button" className="primary" disabled={ready === 0} onClick={onRegister}>
          Register {ready} capture{ready === 1 ? '' : 's'}…
        </button>
      </div>
    </div>
  );
}
