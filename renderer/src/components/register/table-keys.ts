import type { KeyboardEvent } from 'react';
import { useApp } from '../../store.js';

// The registration table's keys, after WAI-ARIA's grid pattern: one tab stop in
// the table (a roving tabindex), arrows between rows and the two controls of a row, Shift to
// select a range as it moves. The controls say where they are: `data-nav` on each row that can
// be reached (the "select all" header, each walk's head, each capture) and `data-col` on its
// controls (0 the checkbox, 1 the capture time).

/** Rows moved by Page Up / Page Down. */
const PAGE_ROWS = 10;

/** Where the table's tab stop is: a row's `data-nav` key and the column of its control. */
export interface TableSpot {
  key: string;
  col: number;
}

/** The spot of a control inside the table, or null for anything else (the time editor's fields). */
export function spotOf(el: EventTarget | null): TableSpot | null {
  if (!(el instanceof HTMLElement) || el.dataset.col === undefined) return null;
  const row = el.closest<HTMLElement>('tr[data-nav]');
  return row ? { key: row.dataset.nav!, col: Number(el.dataset.col) } : null;
}

/** Focuses the control at `col` of `row`, else its checkbox. */
function focusIn(row: HTMLElement | undefined, col: number): void {
  if (!row) return;
  (row.querySelector<HTMLElement>(`[data-col="${col}"]`) ?? row.querySelector<HTMLElement>('[data-col="0"]'))?.focus();
}

/**
 * Handles a key pressed on one of the table's controls; the event is left alone (and does what
 * the control does: Space toggles a checkbox, Enter opens the time editor) when it is not one of
 * the table's keys. Up/Down move a row (the heads included); Page Up/Down ten captures; Home/End
 * the first or last capture; Left/Right between a row's checkbox and its time. With Shift, the
 * vertical keys select the range from the anchor to the capture reached. Ctrl+A selects every
 * capture; Escape clears the selection.
 */
export function onTableKey(e: KeyboardEvent<HTMLTableElement>): void {
  const here = spotOf(e.target);
  if (!here || e.altKey || e.metaKey) return;
  const rows = [...e.currentTarget.querySelectorAll<HTMLElement>('tr[data-nav]')];
  const captures = rows.filter((r) => r.dataset.testid === 'capture-row');
  const row = rows.findIndex((r) => r.dataset.nav === here.key);
  if (row < 0) return;
  const drafts = useApp.getState();
  if (e.ctrlKey) {
    if (e.key !== 'a' && e.key !== 'A') return;
    e.preventDefault();
    drafts.selectDrafts(
      captures.map((r) => r.dataset.nav!),
      true,
    );
    return;
  }
  if (e.key === 'Escape') {
    if (drafts.selected.size === 0) return;
    e.preventDefault();
    drafts.selectDrafts([...drafts.selected], false);
    return;
  }
  if (e.key === 'ArrowLeft' || e.key === 'ArrowRight') {
    if (e.shiftKey) return;
    e.preventDefault();
    focusIn(rows[row], Math.max(0, here.col + (e.key === 'ArrowRight' ? 1 : -1)));
    return;
  }
  // The capture a vertical key goes to: counted among captures for Page and Home/End, and for
  // any key with Shift (a range holds captures only); among all rows otherwise.
  const at = captures.indexOf(rows[row]!);
  // From a walk's head, "the capture here" is the one below it (Page Down) or above it (Page Up).
  const below = at >= 0 ? at : captures.findIndex((c) => rows.indexOf(c) > row);
  const above = at >= 0 ? at : captures.findLastIndex((c) => rows.indexOf(c) < row);
  const byCapture: Record<string, number> = {
    PageDown:
      below < 0 ? captures.length - 1 : Math.min(captures.length - 1, below + (at >= 0 ? PAGE_ROWS : PAGE_ROWS - 1)),
    PageUp: Math.max(0, above - (at >= 0 ? PAGE_ROWS : PAGE_ROWS - 1)),
    Home: 0,
    End: captures.length - 1,
    ...(e.shiftKey
      ? {
          ArrowDown: below < 0 ? -1 : Math.min(captures.length - 1, below + (at >= 0 ? 1 : 0)),
          ArrowUp: Math.max(0, above - (at >= 0 ? 1 : 0)),
        }
      : {}),
  };
  let target: HTMLElement | undefined;
  if (e.key in byCapture) target = captures[byCapture[e.key]!];
  else if (e.key === 'ArrowDown') target = rows[Math.min(rows.length - 1, row + 1)];
  else if (e.key === 'ArrowUp') target = rows[Math.max(0, row - 1)];
  else return;
  e.preventDefault();
  if (!target) return;
  if (e.shiftKey) {
    // A range starts from a capture: from a head, from the first capture it reaches.
    const from = at >= 0 ? captures[at]! : target;
    drafts.extendTo(
      from.dataset.nav!,
      target.dataset.nav!,
      captures.map((r) => r.dataset.nav!),
    );
    focusIn(target, 0);
    return;
  }
  focusIn(target, here.col);
}
