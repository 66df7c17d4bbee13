import type { Page } from '@playwright/test';
import { expect, test } from '@playwright/test';
import { AppHarness } from './harness.js';

// The office workspace in Debian's Chromium over the real app core and the local service's
// progress interface.
const ORIGIN = `http://127.0.0.1:${process.env.E2E_PORT ?? 4173}`;

let h: AppHarness;
test.beforeEach(async ({ page }) => {
  h = await AppHarness.start(page, ORIGIN);
});
test.afterEach(async () => {
  await h.stop();
});

async function setUpLocal(page: Page) {
  await page.goto('/');
  await page.getByRole('button', { name: 'Use the local test service' }).click();
  await expect(page.getByText('Drop Insta360 recordings here')).toBeVisible();
}

const localDay = (d = new Date()) => `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;

test('records a progress entry, sees it on the calendar and opens it by id', async ({ page }, info) => {
  await setUpLocal(page);
  await page.getByRole('tab', { name: 'Upload' }).focus();
  await page.keyboard.press('ArrowRight'); // tabs move with the arrow keys
  await expect(page.getByRole('tab', { name: 'Progress' })).toHaveAttribute('aria-selected', 'true');
  await expect(page.getByTestId('progress-as-of')).toContainText('as of');

  const today = localDay();
  const todayCell = page.locator(`[data-day="${today}"]`);
  await expect(todayCell).toHaveAttribute('aria-current', 'date');
  // The form starts on today, refuses empty details, and sends once.
  const form = page.getByRole('region', { name: 'Record progress' });
  await expect(form.getByLabel('Date')).toHaveValue(today);
  await expect(form.getByRole('button', { name: 'Record entry' })).toBeDisabled();
  await expect(form).toContainText('Say what was done.');
  await form.getByLabel('Status').selectOption('Completed');
  await form.getByLabel('Details').fill('Tower A level 4 curtain wall anchors complete.\nNorth face checked.');
  await form.getByRole('button', { name: 'Record entry' }).click();
  await expect(form).toContainText(/Recorded [0-9a-f]{24} for /);

  const recorded = h.svc.store.state.progress.filter((p) => p.details.startsWith('Tower A level 4'));
  expect(recorded).toEqual([{ id: expect.any(String), projectId: h.svc.info.projectId, date: today, status: 'Completed', details: 'Tower A level 4 curtain wall anchors complete.\nNorth face checked.' }]);
  await expect(todayCell).toHaveAttribute('aria-label', `${today}: 1 Completed`);
  const day = page.getByTestId('day-view');
  await expect(day.getByTestId('entry')).toHaveCount(1);
  await day.getByRole('button', { name: recorded[0]!.id }).click();
  await expect(page.getByTestId('entry-detail')).toContainText('North face checked.');
  await page.screenshot({ path: info.outputPath('20-progress-recorded.png'), fullPage: true });

  // The seeded entries of November 2026: two on the 9th, both In Progress; the search narrows them.
  if (today.slice(0, 7) !== '2026-11') return;
  await page.locator('[data-day="2026-11-09"]').click();
  await expect(day.getByTestId('entry')).toHaveCount(2);
  await page.getByLabel('Search details').fill('glazing');
  await expect(day.getByTestId('entry')).toHaveCount(1);
  await expect(page.locator('[data-day="2026-11-09"]')).toHaveAttribute('aria-label', '2026-11-09: 1 In Progress');
});

test("draws a structure's assets coloured by stage, with the legend's figures and a table", async ({ page }, info) => {
  await setUpLocal(page);
  await page.getByRole('tab', { name: 'Assets' }).click();
  const structureName = h.core.settings.view().structures[0]!.name;
  await page.getByLabel('Structure').selectOption({ label: structureName });
  await page.getByLabel('Category').selectOption({ label: 'Curtain Wall' });
  const lines = page.getByTestId('asset-line');
  await expect(lines).toHaveCount(2);
  // One line reached Sealant (#f39c12), the other Framing (#2980b9).
  expect((await lines.evaluateAll((ls) => ls.map((l) => l.getAttribute('stroke')))).sort()).toEqual(['#2980b9', '#f39c12']);
  const legend = page.getByTestId('asset-legend');
  await expect(legend.locator('tbody tr')).toHaveText([/Anchors\s*0\s*0\.0 m\s*0\.0%/, /Framing\s*1\s*60\.8 m\s*50\.0%/, /Glazing\s*0/, /Sealant\s*1\s*60\.8 m\s*50\.0%/, /Not started\s*0/]);
  await lines.first().focus();
  await expect(page.getByTestId('asset-focus')).toContainText(/Reached: (Sealant|Framing)\. Anchors 100%/);
  await expect(page.getByTestId('asset-table').locator('tbody tr')).toHaveCount(2);
  const download = page.waitForEvent('download');
  await page.getByRole('button', { name: 'Export CSV' }).click();
  const file = await download;
  expect(file.suggestedFilename()).toBe('Curtain-Wall-assets.csv');
  await page.screenshot({ path: info.outputPath('21-assets.png'), fullPage: true });
});
