import type { Locator, Page } from '@playwright/test';
import { expect, test } from '@playwright/test';
import { join } from 'node:path';
import { writeCard } from './card-files.js';
import { mountCard } from './card-steps.js';
import { useApp } from './harness.js';
import { applyToSelected, registerAll } from './register-steps.js';
import { SIZES } from './shots.js';

// What a person reads at the two window sizes under test (e2e/app/shots.ts SIZES): at 1280×800
// the registration table shows the recorded times, the places and types just chosen, and its
// headings whole, in a 24-hour and a 12-hour locale; at 820×560 the queue's first row is in view
// once an imported card is registered.

const app = useApp('app-layout', { mounts: true, viewport: SIZES.large });

/** The cells among `cells` whose text is cut (drawn wider than the cell shows), by their text. */
const cut = (cells: Locator) =>
  cells.evaluateAll((els) => els.filter((e) => e.scrollWidth > e.clientWidth).map((e) => e.textContent ?? ''));

for (const locale of ['en-GB', 'en-US'])
  test.describe(`under ${locale}`, () => {
    test.use({ locale });
    test('at 1280×800 the registration table shows the recorded times, the places and types chosen, and every heading, whole', async ({
      page,
    }) => {
      await placedCard(page);
    });
  });

/**
 * Places a 100-recording card of two walks on two structures with different types, and checks
 * at 1280×800 that no heading, recorded time, place, type or recording's segment and state is cut.
 */
async function placedCard(page: Page) {
  test.setTimeout(120_000);
  // A realistic card: 100 recordings in two walks, placed on two structures with different types.
  const card = join(app.work, 'Camera01');
  writeCard(card, [
    { start: new Date(2026, 10, 22, 8, 0, 0), count: 60, stepS: 60 },
    { start: new Date(2026, 10, 22, 13, 0, 0), count: 40, stepS: 90 },
  ]);
  await app.h.drop([card]);
  await expect(page.getByTestId('capture-row')).toHaveCount(100, { timeout: 30_000 });
  await page.getByLabel('Select site walk 1').check();
  await applyToSelected(page, 'Tower A · Level 2', 'Interior');
  await page.getByLabel('Select site walk 2').check();
  await applyToSelected(page, 'Parking Garage · P1', 'Exterior');
  const table = page.getByRole('table', { name: 'Captures to register' });
  await expect(table.getByText('Not chosen')).toHaveCount(0);

  const rows = table.getByTestId('capture-row');
  expect(await cut(table.locator('thead th'))).toEqual([]);
  expect(await cut(rows.locator('td.place'))).toEqual([]);
  expect(await cut(rows.locator('td:nth-child(9)'))).toEqual([]);
  expect(await cut(rows.locator('td:nth-child(2)'))).toEqual([]);
  await expect(rows.first().locator('td.place')).toHaveText('Tower A · Level 2');
  await expect(rows.last().locator('td.place')).toHaveText('Parking Garage · P1');
  await expect(rows.last().locator('td:nth-child(9)')).toHaveText('Exterior');
  // The recording's column keeps its segment and its state whole beside them.
  expect(await cut(rows.locator('.recording-line > .copy-state, .recording-line > .capture-warning'))).toEqual([]);
  expect(await cut(rows.locator('.recording-name'))).toEqual([]);
}

test('at 820×560 the queue’s first row is in view once an imported card is registered', async ({ page }) => {
  await page.setViewportSize(SIZES.small);
  mountCard(app, 'X4_CARD', 5, 64 * 1024);
  await page.getByTestId('card-offer').getByRole('button', { name: 'Import X4_CARD' }).click({ timeout: 15_000 });
  await expect(page.getByTestId('card-safe')).toBeVisible({ timeout: 30_000 });
  await expect(page.getByTestId('capture-row')).toHaveCount(5);
  await registerAll(page, 'Tower A · Level 1', 5);
  const first = page.locator('.queue-list [role="row"], .queue-list [data-testid="queue-capture"]').first();
  await expect(first).toBeVisible({ timeout: 15_000 });
  // Within the window's scrolled screen, below the top bar, not under it or past its bottom.
  await expect
    .poll(async () => {
      const [row, screen] = await Promise.all([first.boundingBox(), page.locator('.screen').boundingBox()]);
      return row!.y >= screen!.y && row!.y + row!.height <= screen!.y + screen!.height;
    })
    .toBe(true);
});
