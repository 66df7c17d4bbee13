import { useState } from 'react';
import { parseShift, shiftTimes } from '../../../../shared/time-shift.js';
import { whenAt } from '../../../../shared/when.js';
import { useApp } from '../../store.js';
import { isRegistrable } from '../../placement.js';
import { focusNextUnplaced } from './focus-next-unplaced.js';
import { focusNextUnplacedWalk } from './walk-focus.js';

/** A capture time (ISO 8601) as the table shows it: the one time format, to the second (shared/when.ts whenAt). */
function shownTime(iso: string): string {
  return whenAt(iso, { seconds: true });
}

/** The id of the "Shift times" field, which Alt+T focuses. */
export const SHIFT_ID = 'shift-times';

/**
 * The apply bar's time shift: the shift as written ("+01:00", "−1 day", "first 09:12";
 * shared/time-shift.ts), a preview of the first capture's time before and after, and the button
 * (or Enter in the field) that shifts the `selected` captures, or every capture of the card when
 * none is selected (a camera an hour slow is slow for all of them); `setStatus` says what was done.
 * After shifting the whole card focus goes to the first walk still to place, its list open.
 */
export function ShiftTimes({ selected, setStatus }: { selected: number; setStatus(s: string): void }) {
  const [shiftText, setShiftText] = useState('');
  const shift = parseShift(shiftText);
  const all = useApp((s) => s.drafts.filter(isRegistrable).length);
  const preview = useApp((s) => {
    if (!shift) return '';
    const rows = s.drafts.filter((d) => (s.selected.size ? s.selected.has(d.proposal.key) : isRegistrable(d)));
    if (rows.length === 0) return '';
    const before = rows.map((d) => d.form.capturedAt);
    const after = shiftTimes(before, shift);
    const first = before.indexOf([...before].sort((a, b) => Date.parse(a) - Date.parse(b))[0]!);
    return `${shownTime(before[first]!)} → ${shownTime(after[first]!)}${rows.length > 1 ? ` (first of ${rows.length}; the gaps stay)` : ''}`;
  });
  const applyShift = () => {
    if (!shift) return;
    const whole = selected === 0;
    const n = useApp.getState().shiftSelected(shift);
    setStatus(`Times of ${n} capture${n === 1 ? '' : 's'} shifted (${shiftText.trim()}).`);
    setShiftText('');
    if (whole) focusNextUnplacedWalk();
    else focusNextUnplaced();
  };
  return (
    <>
      <label>
        Shift times
        <input
          id={SHIFT_ID}
          type="text"
          aria-keyshortcuts="Alt+T"
          value={shiftText}
          placeholder="+01:00, −1 day, first 09:12"
          aria-describedby="shift-preview"
          onChange={(e) => setShiftText(e.target.value)}
          onKeyDown={(e) => {
            // Enter shifts; Ctrl+Enter and Ctrl+Shift+Enter stay the panel's.
            if (e.key !== 'Enter' || e.ctrlKey || e.metaKey) return;
            e.preventDefault();
            applyShift();
          }}
          size={14}
        />
      </label>
      <span id="shift-preview" className="muted" data-testid="shift-preview">
        {shiftText.trim() === '' ? '' : shift ? preview : 'Write +01:00, −1 day or first 09:12'}
      </span>
      <button type="button" disabled={!shift || (selected === 0 && all === 0)} onClick={applyShift}>
        {selected ? `Shift ${selected} selected` : `Shift all ${all}`}
      </button>
    </>
  );
}
