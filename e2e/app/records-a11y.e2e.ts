import type { Page, TestInfo } from '@playwright/test';
import { expect, test } from '@playwright/test';
import { violations } from './axe.js';
import { useApp } from './harness.js';
import {
  assetsDrawn,
  entryRefusedInOutbox,
  entryWaitingOffline,
  openEntryWithFormError,
  openProgressTab,
} from './records-steps.js';
import { shots } from './shots.js';

// axe-core on every screen of the office workspace (CONVENTIONS.md: "@axe-core/playwright checks
// every screen"), over the real app core and the local service's seeded records.

const app = useApp('app-records-a11y');

/**
 * axe finds nothing at the usual window size and at the smallest the shell allows, and the screen
 * is kept as `office-NAME-large.png` / `-small.png` in the test's artifacts (shots.ts).
 */
async function checked(page: Page, info: TestInfo, name: string): Promise<void> {
  await shots(page, info, `office-${name}`, async () => expect(await violations(page)).toEqual({}));
}

test('the Progress workspace: calendar, day view, an open entry, and the form with an error', async ({
  page,
}, info) => {
  await openEntryWithFormError(page, app.h);
  await checked(page, info, 'progress-entry-form');
  // The printable month (what "Print month" puts on paper) is a screen of its own.
  await page.emulateMedia({ media: 'print' });
  await expect(page.getByTestId('month-report')).toBeVisible();
  await checked(page, info, 'progress-month-print');
  await page.emulateMedia({ media: 'screen' });
});

test('the Progress calendar takes the keys of a date grid and is one tab stop', async ({ page }, info) => {
  await openProgressTab(page);
  const grid = page.getByRole('grid');
  const today = (await grid.locator('[aria-current="date"]').getAttribute('data-day'))!;
  const plus = (day: string, n: number) =>
    new Date(Date.parse(`${day}T00:00:00Z`) + n * 86_400_000).toISOString().slice(0, 10);
  const monday = plus(today, -((new Date(`${today}T00:00:00Z`).getUTCDay() + 6) % 7));
  // One tab stop: the chosen day.
  await expect(grid.locator('button[tabindex="0"]')).toHaveCount(1);
  await expect(grid.locator('button[tabindex="0"]')).toHaveAttribute('data-day', today);
  await grid.locator(`[data-day="${today}"]`).focus();
  const at = async (day: string) => {
    await expect(grid.locator(`[data-day="${day}"]`)).toBeFocused();
    await expect(page.getByRole('region', { name: `Entries on ${day}` })).toBeVisible();
  };
  await page.keyboard.press('ArrowRight');
  await at(plus(today, 1));
  await page.keyboard.press('ArrowDown');
  await at(plus(today, 8));
  await page.keyboard.press('ArrowLeft');
  await page.keyboard.press('ArrowUp');
  await at(today);
  await page.keyboard.press('Home');
  await at(monday);
  await page.keyboard.press('End');
  await at(plus(monday, 6));
  // Six weeks on is always another month: the calendar turns with the focus.
  for (let i = 0; i < 6; i++) await page.keyboard.press('ArrowDown');
  const later = plus(monday, 48);
  await at(later);
  await expect(page.locator('.month-nav h3')).toHaveText(
    new Date(`${later}T12:00:00`).toLocaleDateString(undefined, { month: 'long', year: 'numeric' }),
  );
  await page.keyboard.press('PageUp');
  const back = (await page.evaluate(() => (document.activeElement as HTMLElement).dataset.day))!;
  expect(back.slice(0, 7)).not.toBe(later.slice(0, 7));
  await at(back);
  await page.keyboard.press('PageDown');
  await at(later);
  expect(await violations(page)).toEqual({});
  await shots(page, info, '31-calendar-keyboard-focus', () => grid.locator(`[data-day="${later}"]`).focus());
  // Tab leaves the grid in one press.
  await grid.locator(`[data-day="${later}"]`).focus();
  await page.keyboard.press('Tab');
  await expect(grid.locator(':focus')).toHaveCount(0);
});

test('the Progress workspace offline, with an entry waiting in the outbox', async ({ page }, info) => {
  await entryWaitingOffline(page, app.h, 'Parking Garage P1 fire stopping inspected.');
  await checked(page, info, 'progress-offline-outbox');
});

test('the Assets view: drawing, legend, focused line and table', async ({ page }, info) => {
  await assetsDrawn(page, app.h);
  await checked(page, info, 'assets-drawing');
});

test('the Assets view offline says so before anything is drawn, and lists the categories kept', async ({
  page,
}, info) => {
  await page.getByRole('tab', { name: 'Assets' }).click();
  await expect(page.getByLabel('Category').locator('option')).toContainText(['Ductwork']);
  await expect(page.getByTestId('assets-as-of')).toHaveCount(0);
  await page.getByRole('tab', { name: 'Upload' }).click();
  await app.h.svc.admin('POST', '/faults', { target: 'progress', action: { type: 'status', status: 503 }, times: 0 });
  await page.getByRole('tab', { name: 'Assets' }).click();
  await expect(page.getByTestId('assets-as-of')).toHaveText(
    /^No connection to the progress service: showing the copy from \d{1,2}:\d\d( [AP]M)?$/,
  );
  await expect(page.getByLabel('Category').locator('option')).toContainText(['Ductwork']);
  await checked(page, info, 'assets-offline');
});

test('a refused entry open in the form, the outbox, and the Settings check of the progress sign-in', async ({
  page,
}, info) => {
  await entryRefusedInOutbox(page, app.h, 'level 3 done');
  await page.getByRole('button', { name: 'Correct and send again' }).click();
  await expect(page.getByTestId('details-refusal')).toBeVisible();
  await expect(page.getByTestId('day-captures')).toBeVisible();
  await checked(page, info, 'progress-refused-edit');
  app.h.svc.store.state.accounts[0]!.password = 'changed';
  await page.getByRole('tab', { name: 'Settings' }).click();
  await page.getByRole('button', { name: 'Check progress sign-in' }).click();
  await expect(page.getByTestId('progress-signin')).toContainText('Invalid credentials');
  await checked(page, info, 'settings-progress-signin');
});

test('the Assets view of each shape: slabs as polygons, dampers as points, with their units', async ({
  page,
}, info) => {
  await page.getByRole('tab', { name: 'Assets' }).click();
  await page.getByLabel('Structure').selectOption({ label: app.h.settings.view().structures[0]!.name });
  for (const [category, shape] of [
    ['Floor Slabs', 'polygon'],
    ['Fire Dampers', 'point'],
  ] as const) {
    await page.getByLabel('Category').selectOption({ label: category });
    await expect(page.getByTestId('asset-line').first()).toHaveAttribute('data-shape', shape);
    await page.getByTestId('asset-line').first().focus();
    await expect(page.getByTestId('asset-focus')).toContainText(`${category} 1.`);
    await checked(page, info, `assets-${shape}s`);
  }
});
