import type { RefObject } from 'react';
import { useState } from 'react';
import { parseShift, shiftTimes } from '../../../../shared/time-shift.js';
import { whenAt } from '../../../../shared/when.js';
import { isRegistrable, nameOfPlacement, placeOptions } from '../../placement.js';
import { useApp } from '../../store.js';

/** A capture time (ISO 8601) as the table shows it: the one time format, to the second (shared/when.ts whenAt). */
function shownTime(iso: string): string {
  return whenAt(iso, { seconds: true });
}

/**
 * After Apply, Shift or Remove, focus goes to the first capture without a place (its checkbox),
 * else to Register: never lost on a button that is now disabled.
 */
function focusNextUnplaced(): void {
  requestAnimationFrame(() => {
    // In the table's order (rows follow their times, so a shifted row may have moved).
    const box = document.querySelector<HTMLInputElement>(
      'tr[data-testid="capture-row"]:has(.place.unset) input[type="checkbox"]',
    );
    (box ?? document.querySelector<HTMLButtonElement>('.register-actions button.primary'))?.focus();
  });
}

/** The id of the "Structure · design" list, which Alt+S focuses. */
export const PLACE_ID = 'apply-place';

/** What the registration panel's shortcuts call in the bar. */
export interface ApplyActions {
  /** Applies the chosen structure · design and type to the selection, or says in the bar's status what is missing. */
  apply(): void;
}

/**
 * The controls above the registration table: a structure · design and a type
 * applied to the selected rows at once, the explicit carry-over of the previous card's place, and
 * the count that opens the confirmation. Sticky, so it stays at hand over a long card.
 * `actions` receives what the panel's shortcuts call: Ctrl+Enter applies.
 */
export function ApplyBar({
  ready,
  waiting,
  onRegister,
  actions,
}: {
  ready: number;
  waiting: number;
  onRegister(): void;
  actions?: RefObject<ApplyActions | null>;
}) {
  const structures = useApp((s) => s.settings?.structures ?? []);
  const selected = useApp((s) => s.selected.size);
  const last = useApp((s) => s.lastPlacement);
  const [place, setPlace] = useState('');
  // No silent default: unset until chosen, or the last choice for this structure, said as such.
  const [type, setType] = useState<'' | 'interior' | 'exterior'>('');
  const [typeFromLast, setTypeFromLast] = useState(false);
  const [shiftText, setShiftText] = useState('');
  const [status, setStatus] = useState('');
  const lastTypeFor = useApp((s) => s.lastTypeFor);
  const options = placeOptions(structures);
  const chosen = options.find((o) => o.value === place);
  const lastName = last ? nameOfPlacement(structures, last) : undefined;
  const shift = parseShift(shiftText);
  const preview = useApp((s) => {
    if (!shift || s.selected.size === 0) return '';
    const rows = s.drafts.filter((d) => s.selected.has(d.proposal.key));
    const before = rows.map((d) => d.form.capturedAt);
    const after = shiftTimes(before, shift);
    const first = before.indexOf([...before].sort((a, b) => Date.parse(a) - Date.parse(b))[0]!);
    return `${shownTime(before[first]!)} → ${shownTime(after[first]!)}${rows.length > 1 ? ` (first of ${rows.length}; the gaps stay)` : ''}`;
  });

  const choosePlace = (value: string) => {
    const before = chosen?.structure;
    setPlace(value);
    const structure = options.find((o) => o.value === value)?.structure;
    // Another design of the same structure: the type stays. A type the person chose before any
    // structure stays too. Otherwise no silent carry-over: the type last used with this structure
    // (said as such), or "Choose…" when it has none.
    if (structure === before) return;
    if (!before && type !== '' && !typeFromLast) return;
    const remembered = structure ? lastTypeFor[structure] : undefined;
    setType(remembered ?? '');
    setTypeFromLast(Boolean(remembered));
  };
  const apply = () => {
    // From a shortcut the button's disabled state is not seen: say what is missing.
    if (!chosen || !type || selected === 0) {
      setStatus(
        selected === 0
          ? 'Select the captures first.'
          : !chosen
            ? 'Choose a structure · design first.'
            : 'Choose the type first.',
      );
      return;
    }
    const n = useApp.getState().applyToSelected({ structure: chosen.structure, design: chosen.design, type });
    setStatus(`${chosen.label} (${type}) set on ${n} capture${n === 1 ? '' : 's'}.`);
    focusNextUnplaced();
  };
  const applyShift = () => {
    if (!shift) return;
    const n = useApp.getState().shiftSelected(shift);
    setStatus(`Times of ${n} capture${n === 1 ? '' : 's'} shifted (${shiftText.trim()}).`);
    setShiftText('');
    focusNextUnplaced();
  };
  if (actions) actions.current = { apply };
  const carryOver = () => {
    if (!last || !lastName) return;
    const s = useApp.getState();
    // The selected rows if any, else every row still without a place: never a row already placed.
    const keys = s.selected.size
      ? [...s.selected]
      : s.drafts.filter((d) => isRegistrable(d) && !d.form.structure).map((d) => d.proposal.key);
    s.applyTo(keys, { structure: last.structure, design: last.design, type: last.type });
    s.selectDrafts(keys, false);
    setStatus(`${lastName} (${last.type}) set on ${keys.length} capture${keys.length === 1 ? '' : 's'}, as last time.`);
  };

  return (
    <div className="apply-bar" role="group" aria-label="Apply to selected captures">
      <label>
        Structure · design
        <select id={PLACE_ID} aria-keyshortcuts="Alt+S" value={place} onChange={(e) => choosePlace(e.target.value)}>
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
        <select
          value={type}
          onChange={(e) => {
            setType(e.target.value as '' | 'interior' | 'exterior');
            setTypeFromLast(false);
          }}
        >
          <option value="">Choose…</option>
          <option value="interior">Interior{typeFromLast && type === 'interior' ? ' (last used here)' : ''}</option>
          <option value="exterior">Exterior{typeFromLast && type === 'exterior' ? ' (last used here)' : ''}</option>
        </select>
      </label>
      <button
        type="button"
        aria-keyshortcuts="Control+Enter"
        disabled={!chosen || !type || selected === 0}
        onClick={apply}
      >
        Apply to {selected} selected
      </button>
      <label>
        Shift times
        <input
          type="text"
          value={shiftText}
          placeholder="+01:00, −1 day, first 09:12"
          aria-describedby="shift-preview"
          onChange={(e) => setShiftText(e.target.value)}
          onKeyDown={(e) => e.key === 'Enter' && applyShift()}
          size={14}
        />
      </label>
      <span id="shift-preview" className="muted" data-testid="shift-preview">
        {shiftText.trim() === ''
          ? ''
          : shift
            ? selected
              ? preview
              : 'Select the captures to shift'
            : 'Write +01:00, −1 day or first 09:12'}
      </span>
      <button type="button" disabled={!shift || selected === 0} onClick={applyShift}>
        Shift {selected} selected
      </button>
      {lastName && last && (
        <button type="button" className="secondary" onClick={carryOver}>
          Use {lastName} ({last.type}) as last time
        </button>
      )}
      <button
        type="button"
        className="link"
        disabled={selected === 0}
        onClick={() => {
          useApp.getState().discardSelected();
          // The button is disabled now: focus goes on to a capture still to place.
          focusNextUnplaced();
        }}
      >
        Remove selected from list
      </button>
      <span className="apply-status" role="status">
        {status}
      </span>
      <div className="register-actions">
        {waiting > 0 && <span className="muted">{waiting} not placed yet</span>}
        <button
          type="button"
          className="primary"
          aria-keyshortcuts="Control+Shift+Enter"
          disabled={ready === 0}
          onClick={onRegister}
        >
          Register {ready} capture{ready === 1 ? '' : 's'}…
        </button>
      </div>
    </div>
  );
}
