import type { RefObject } from 'react';
import { useState } from 'react';
import { placeKeyOf, placeOptions } from '../../placement.js';
import { useApp } from '../../store.js';
import { CarryOverButton } from './CarryOverButton.js';
import { focusNextUnplaced } from './focus-next-unplaced.js';
import type { ChosenType } from './PlaceFields.js';
import { PlaceFields } from './PlaceFields.js';
import { ShiftTimes } from './ShiftTimes.js';

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
  const [place, setPlace] = useState('');
  // No silent default: unset until chosen, or the last choice for this structure, said as such.
  const [type, setType] = useState<ChosenType>('');
  const [typeFromLast, setTypeFromLast] = useState(false);
  const [status, setStatus] = useState('');
  const lastTypeFor = useApp((s) => s.lastTypeFor);
  const options = placeOptions(structures);
  const chosen = options.find((o) => o.value === place);

  const choosePlace = (value: string) => {
    const before = chosen?.structure;
    setPlace(value);
    const structure = options.find((o) => o.value === value)?.structure;
    // Another design of the same structure: the type stays. A type the person chose before any
    // structure stays too. Otherwise no silent carry-over: the type last used with this structure
    // (said as such), or "Choose…" when it has none.
    if (structure === before) return;
    if (!before && type !== '' && !typeFromLast) return;
    // Remembered per structure and design, else for the structure.
    const option = options.find((o) => o.value === value);
    const remembered = option ? (lastTypeFor[placeKeyOf(option)] ?? lastTypeFor[option.structure]) : undefined;
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
  if (actions) actions.current = { apply };
  return (
    <div className="apply-bar" role="group" aria-label="Apply to selected captures">
      <PlaceFields
        structures={structures}
        options={options}
        place={place}
        choosePlace={choosePlace}
        type={type}
        typeFromLast={typeFromLast}
        chooseType={(t) => {
          setType(t);
          setTypeFromLast(false);
        }}
      />
      <button
        type="button"
        aria-keyshortcuts="Control+Enter"
        disabled={!chosen || !type || selected === 0}
        onClick={apply}
      >
        Apply to {selected} selected
      </button>
      <ShiftTimes selected={selected} setStatus={setStatus} />
      <CarryOverButton setStatus={setStatus} />
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
