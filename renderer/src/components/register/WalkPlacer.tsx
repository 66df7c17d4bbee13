import type { KeyboardEvent } from 'react';
import { useEffect, useMemo, useState } from 'react';
import type { PlaceChoice } from '../../placement.js';
import { isReady, matchesQuery, nameOfPlacement, placeChoices } from '../../placement.js';
import { useApp } from '../../store.js';
import { focusNextUnplacedWalk, placerId, registerPlacer } from './walk-focus.js';
import './walk-place.css';

/** Choices a Page key moves in the open list. */
const PAGE = 5;

/**
 * A site walk's place in one action: a combobox in the walk's head whose list holds every place
 * with its type ("Tower A · Level 1 · interior"), the recent places first and, for each place, the
 * type last used there first; typing narrows it by the starts of words ("a1", "b2e"), Enter or a
 * click places every capture of the walk (`keys`) and the next walk's list opens. Up/Down move in
 * the open list and Escape closes it; closed, the table's keys work from it as from any of its
 * controls (it is column 1 of the walk's head row). `unplaced` when a capture of the walk has no
 * place yet: where focus goes next.
 */
export function WalkPlacer({
  walk,
  keys,
  tabIndex,
  unplaced,
}: {
  walk: number;
  keys: string[];
  tabIndex: number;
  unplaced: boolean;
}) {
  const structures = useApp((s) => s.settings?.structures);
  const recents = useApp((s) => s.recentPlaces);
  const lastTypeFor = useApp((s) => s.lastTypeFor);
  // One string, so the head re-renders only when the walk's place changes: its one place, "mixed" or none.
  const current = useApp((s) => {
    const mine = new Set(keys);
    const names = new Set(
      s.drafts
        .filter((d) => mine.has(d.proposal.key))
        .map((d) =>
          isReady(d, s.settings?.structures ?? [])
            ? `${nameOfPlacement(s.settings?.structures ?? [], d.form)} (${d.form.type})`
            : '',
        ),
    );
    return names.size === 1 ? [...names][0]! : names.has('') ? 'partly placed' : 'several places';
  });
  const [query, setQuery] = useState('');
  const [open, setOpen] = useState(false);
  const [active, setActive] = useState(0);
  const choices = useMemo(
    () => placeChoices(structures ?? [], recents, lastTypeFor),
    [structures, recents, lastTypeFor],
  );
  const shown = useMemo(() => choices.filter((c) => matchesQuery(c.label, query)), [choices, query]);
  useEffect(() => registerPlacer(walk, () => setOpen(true)), [walk]);
  const listId = `${placerId(walk)}-list`;
  const optionId = (i: number) => `${placerId(walk)}-option-${i}`;

  const choose = (c: PlaceChoice) => {
    useApp.getState().placeWalk(keys, c, walk);
    setQuery('');
    setOpen(false);
    setActive(0);
    focusNextUnplacedWalk(walk);
  };
  const onKeyDown = (e: KeyboardEvent<HTMLInputElement>) => {
    const consume = () => {
      e.preventDefault();
      e.stopPropagation();
    };
    if (e.ctrlKey || e.metaKey) return; // the panel's shortcuts (Ctrl+Enter, Ctrl+Shift+Enter, Ctrl+A)
    const last = shown.length - 1;
    if (open && (e.key === 'ArrowDown' || e.key === 'ArrowUp' || e.key === 'PageDown' || e.key === 'PageUp')) {
      consume();
      const step = { ArrowDown: 1, ArrowUp: -1, PageDown: PAGE, PageUp: -PAGE }[e.key];
      setActive((a) => Math.max(0, Math.min(last, a + step)));
    } else if (!open && e.altKey && e.key === 'ArrowDown') {
      consume();
      setOpen(true);
    } else if (e.key === 'Enter' && !e.altKey) {
      consume();
      if (open && shown[active]) choose(shown[active]);
      else setOpen(true);
    } else if (e.key === 'Escape' && (open || query)) {
      consume();
      setOpen(false);
      setQuery('');
    } else if (query && ['ArrowLeft', 'ArrowRight', 'Home', 'End'].includes(e.key)) {
      // Editing what was typed, not moving in the table.
      e.stopPropagation();
    }
  };
  return (
    <span className="walk-place-box">
      <input
        id={placerId(walk)}
        className="walk-place"
        data-col={1}
        data-walk={walk}
        data-unplaced={unplaced ? 'true' : 'false'}
        tabIndex={tabIndex}
        type="text"
        role="combobox"
        aria-label={`Place site walk ${walk}: structure · design and type`}
        aria-expanded={open}
        aria-controls={open ? listId : undefined}
        aria-autocomplete="list"
        aria-activedescendant={open && shown[active] ? optionId(active) : undefined}
        autoComplete="off"
        placeholder={unplaced ? 'Place the walk: type or choose…' : 'Another place: type or choose…'}
        value={query}
        onChange={(e) => {
          setQuery(e.target.value);
          setActive(0);
          setOpen(true);
        }}
        onMouseDown={() => setOpen(true)}
        onBlur={() => setOpen(false)}
        onKeyDown={onKeyDown}
      />
      {!unplaced && (
        <span className="walk-placed" data-testid="walk-placed">
          {current}
        </span>
      )}
      {open && (
        <div className="walk-place-list" role="listbox" id={listId} aria-label={`Places for site walk ${walk}`}>
          {shown.length === 0 && <div className="muted walk-place-none">No place matches “{query}”.</div>}
          {shown.map((c, i) => (
            <div
              key={c.value}
              id={optionId(i)}
              role="option"
              aria-selected={i === active}
              className={`walk-place-option${i === active ? ' active' : ''}${c.recent ? ' recent' : ''}`}
              // Keeps the focus in the field: a click chooses, it does not blur and close first.
              onMouseDown={(e) => e.preventDefault()}
              onClick={() => choose(c)}
            >
              {c.label}
              {c.recent && <span className="muted"> · recent</span>}
            </div>
          ))}
        </div>
      )}
    </span>
  );
}
