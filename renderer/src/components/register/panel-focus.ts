import type { KeyboardEvent } from 'react';
import type { ApplyActions } from './ApplyBar.js';
import { PLACE_ID } from './PlaceFields.js';
import { SHIFT_ID } from './ShiftTimes.js';

/** The first capture's checkbox, which a card just listed focuses. */
export const FIRST_CAPTURE = 'tr[data-testid="capture-row"] input[type="checkbox"]';

/**
 * After the dialog closed: focus the first element found of `selectors`, and keep focus there
 * over the next frames (about 150 ms) while the lists re-render from the answer and the queue's
 * events: an element replaced under the focus would drop it to the page.
 */
export function focusAfter(selectors: string[], frames = 10): void {
  requestAnimationFrame(() => {
    const active = document.activeElement;
    if (!active || active === document.body || !active.isConnected) {
      for (const sel of selectors) {
        const el = document.querySelector<HTMLElement>(sel);
        if (el) {
          el.focus();
          break;
        }
      }
    }
    if (frames > 1) focusAfter(selectors, frames - 1);
  });
}

/**
 * The panel's shortcuts, wherever the focus is in it (not in the confirmation):
 * Alt+S to "Structure · design", Alt+T to "Shift times", Ctrl+Enter applies to the selection,
 * Ctrl+Shift+Enter opens the confirmation. Keys are read by `code` for Alt+S and Alt+T, so a
 * layout or Option key that types a character instead still works.
 */
export function panelKey(e: KeyboardEvent<HTMLElement>, actions: ApplyActions | null, register: () => void): void {
  if (e.target instanceof Element && e.target.closest('dialog')) return;
  if (e.altKey && !e.ctrlKey && !e.metaKey && (e.code === 'KeyS' || e.code === 'KeyT')) {
    e.preventDefault();
    document.getElementById(e.code === 'KeyS' ? PLACE_ID : SHIFT_ID)?.focus();
  } else if (e.ctrlKey && !e.altKey && e.key === 'Enter') {
    e.preventDefault();
    if (e.shiftKey) register();
    else actions?.apply();
  }
}
