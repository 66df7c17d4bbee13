import { useState } from 'react';
import { parseShift, shiftTimes } from '../../../../shared/time-shift.js';
import { whenAt } from '../../../../shared/when.js';
import { useApp } from '../../store.js';
import { focusNextUnplaced } from './focus-next-unplaced.js';

/** A capture time (ISO 8601) as the table shows it: the one time format, to the second (shared/when.ts whenAt). */
function shownTime(iso: string): string {
  return whenAt(iso, { seconds: true });
}

/**
 * The apply bar's time shift: the shift as written ("+01:00", "−1 day", "first 09:12";
 * shared/time-shift.ts), a preview of the first selected capture's time before and after, and the
 * button that shifts the `selected` captures; `setStatus` says what was done.
 */
export function ShiftTimes({ selected, setStatus }: { selected: number; setStatus(s: string): void }) {
  const [shiftText, setShiftText] = useState('');
  const shift = parseShift(shiftText);
  const preview = useApp((s) => {
    if (!shift || s.selected.size === 0) return '';
    const rows = s.drafts.filter((d) => s.selected.has(d.proposal.key));
    const before = rows.map((d) => d.form.capturedAt);
    const after = shiftTimes(before, shift);
    const first = before.indexOf([...before].sort((a, b) => Date.parse(a) - Date.parse(b))[0]!);
    return `${shownTime(before[first]!)} → ${shownTime(after[first]!)}${rows.length > 1 ? ` (first of ${rows.length}; the gaps stay)` : ''}`;
  });
  const applyShift = () => {
    if (!shift) return;
    const n = useApp.getState().shiftSelected(shift);
    setStatus(`Times of ${n} capture${n === 1 ? '' : 's'} shifted (${shiftText.trim()}).`);
    setShiftText('');
    focusNextUnplaced();
  };
  return (
    <>
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
    </>
  );
}
