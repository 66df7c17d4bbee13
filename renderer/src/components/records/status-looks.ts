import { createContext, useContext } from 'react';

// How each progress status is told apart on the Progress workspace (progress-records-interface.md
// §2 Progress.status: "In Progress" and "Completed" are given, other values exist but are not
// shown). The two known ones keep their colours and marks; every other status the project's
// entries hold gets a look of its own, a colour and a mark shape, so a calendar day with entries
// "On Hold", "Not Started" and "Delayed" reads as three different things, in greyscale too
// (WCAG 1.4.1: not by colour alone). Every colour carries white text at 4.5:1 or more (WCAG 1.4.3;
// styles.css `--badge-status-1` … `-6`, checked by status-looks.test.ts).

/** A status's look: its CSS class (styles.css `.count.…`, `.status-badge.…`) and its mark (one character). */
export interface StatusLook {
  className: string;
  mark: string;
}

/** The marks of the statuses beyond the two known, in order (their colours: styles.css `.status-1` … `.status-6`). */
export const OTHER_MARKS = ['■', '▲', '◆', '✚', '★', '●'] as const;

/** The look of a status no slot is left for: the neutral colour, and the status's first letter as its mark. */
const overflow = (status: string): StatusLook => ({
  className: 'other-status',
  mark: (status.trim()[0] ?? '?').toUpperCase(),
});

/**
 * The looks of `statuses` (the known first, then the others in the order given, as
 * calendar.ts statusesOf lists them): Completed ✓, In Progress ◐, then each other status the next
 * of OTHER_MARKS with its colour; past six, the neutral colour with the status's first letter. A
 * status not in `statuses` gets that neutral look too. The same list gives the same looks, so the
 * key, the calendar and the badges agree.
 */
export function statusLooks(statuses: readonly string[]): (status: string) => StatusLook {
  const others = statuses.filter((s) => s !== 'Completed' && s !== 'In Progress');
  const slot = new Map(others.map((s, i) => [s, i]));
  return (status) => {
    if (status === 'Completed') return { className: 'completed', mark: '✓' };
    if (status === 'In Progress') return { className: 'in-progress', mark: '◐' };
    const i = slot.get(status);
    return i !== undefined && i < OTHER_MARKS.length
      ? { className: `status-${i + 1}`, mark: OTHER_MARKS[i]! }
      : overflow(status);
  };
}

/** The looks of the workspace's statuses (ProgressWorkspace provides them from every entry it read). */
export const StatusLooksContext = createContext<(status: string) => StatusLook>(statusLooks([]));

/** The look of each status in the Progress workspace. */
export const useStatusLook = () => useContext(StatusLooksContext);
