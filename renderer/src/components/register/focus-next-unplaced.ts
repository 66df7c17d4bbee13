/**
 * After Apply, Shift or Remove, focus goes to the first capture without a place (its checkbox),
 * else to Register: never lost on a button that is now disabled.
 */
export function focusNextUnplaced(): void {
  requestAnimationFrame(() => {
    // In the table's order (rows follow their times, so a shifted row may have moved).
    const box = document.querySelector<HTMLInputElement>(
      'tr[data-testid="capture-row"]:has(.place.unset) input[type="checkbox"]',
    );
    (box ?? document.querySelector<HTMLButtonElement>('.register-actions button.primary'))?.focus();
  });
}
