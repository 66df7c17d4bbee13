// Where focus goes in the one-step placement: each walk's list (WalkPlacer) registers how
// to open it, so that after a walk is placed the next walk's list is focused and open: the next
// choice is one click or a few letters and Enter away, never a hunt for the control.

/** The open functions of the walks' lists shown now, by walk number. */
const openers = new Map<number, () => void>();

/** Registers walk `n`'s list (WalkPlacer); answers the function that takes it off. */
export function registerPlacer(n: number, open: () => void): () => void {
  openers.set(n, open);
  return () => {
    if (openers.get(n) === open) openers.delete(n);
  };
}

/** The id of walk `n`'s list field. */
export const placerId = (n: number) => `walk-place-${n}`;

/**
 * After the next frame (the table re-rendered from the change): focuses the list of the first walk
 * after `after` with a capture still without a place (else the first such walk), and opens it; with
 * none left, the Register button. Never leaves focus on the page.
 */
export function focusNextUnplacedWalk(after = 0): void {
  requestAnimationFrame(() => {
    const fields = [...document.querySelectorAll<HTMLInputElement>('input.walk-place[data-unplaced="true"]')];
    const numbered = fields.map((f) => ({ f, n: Number(f.dataset.walk) }));
    const next = numbered.find((x) => x.n > after) ?? numbered[0];
    if (next) {
      next.f.focus();
      openers.get(next.n)?.();
      return;
    }
    document.querySelector<HTMLButtonElement>('.register-actions button.primary')?.focus();
  });
}
