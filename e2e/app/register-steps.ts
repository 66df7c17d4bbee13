import type { Page } from '@playwright/test';
import { expect } from '@playwright/test';

/**
 * The registration table's steps as a person takes them, for the browser
 * tests: choose rows, a structure · design and a type, apply, then register and confirm.
 */

/** The "Apply to selected" controls above the table. */
export const applyBar = (page: Page) => page.getByRole('group', { name: 'Apply to selected captures' });

/** Sets `place` ("Tower A · Level 1") and `type` on the rows already selected, with the Apply button (the bar keeps its last type, so it is always chosen). */
export async function applyToSelected(
  page: Page,
  place: string,
  type: 'Interior' | 'Exterior' = 'Interior',
): Promise<void> {
  const bar = applyBar(page);
  await bar.getByLabel('Structure · design').selectOption({ label: place });
  await bar.getByLabel('Type').selectOption({ label: type });
  await bar.getByRole('button', { name: /^Apply to \d+ selected$/ }).click();
}

/** Opens the confirmation for the ready captures and answers it; resolves with the sentence it showed. */
export async function registerAndConfirm(page: Page, count: number): Promise<string> {
  await page.getByRole('button', { name: `Register ${count} capture${count === 1 ? '' : 's'}…` }).click();
  const dialog = page.getByRole('dialog');
  await expect(dialog).toBeVisible();
  const sentence = (await dialog.getByTestId('confirm-sentence').textContent()) ?? '';
  await dialog.getByRole('button', { name: 'Register and upload' }).click();
  await expect(dialog).toBeHidden();
  return sentence;
}

/** Registers every capture listed in one place: select all, apply, register, confirm. */
export async function registerAll(
  page: Page,
  place: string,
  count: number,
  type: 'Interior' | 'Exterior' = 'Interior',
): Promise<string> {
  await page.getByLabel('Select all captures').check();
  await applyToSelected(page, place, type);
  return registerAndConfirm(page, count);
}

/**
 * The controls (buttons, fields, tabs, disclosures) that the messages bar lies over, by name:
 * for each control shown in the window, the element at its centre is asked for. A control
 * scrolled out of its screen is not shown, so it is left out. Empty when the bar covers nothing.
 */
export function controlsCoveredByNotices(page: Page): Promise<string[]> {
  return page.evaluate(`(() => {
    const bar = '[data-testid="notices"]';
    const screen = document.querySelector('.screen')?.getBoundingClientRect();
    const covered = [];
    for (const el of document.querySelectorAll('button, input, select, textarea, summary, a[href], [role="tab"], [tabindex="0"]')) {
      if (el.closest(bar)) continue;
      const r = el.getBoundingClientRect();
      if (!r.width || !r.height) continue;
      const x = r.x + r.width / 2, y = r.y + r.height / 2;
      if (x < 0 || y < 0 || x > innerWidth || y > innerHeight) continue;
      if (screen && el.closest('.screen') && (y < screen.top || y > screen.bottom)) continue;
      const top = document.elementFromPoint(x, y);
      if (top && top.closest(bar)) covered.push(el.getAttribute('aria-label') || el.textContent.trim() || el.tagName);
    }
    return covered;
  })()`);
}
