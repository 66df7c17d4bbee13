import type { Page } from '@playwright/test';
import { expect, test } from '@playwright/test';
import { localDate, whenAt } from '../../shared/when.js';
import { useApp } from './harness.js';
import { localDay, zoneOffset } from './local-time.js';
import { seedCapture } from './records-steps.js';

// One time and date format across the office screens, the operator's own: the
// morning summary's localTime (system locale, 24-hour where the locale says so, the date when not
// today) and dates in that same form. The page runs under a 24-hour locale, en-GB; what it shows
// is compared with shared/when.ts given that locale.
const LOCALE = 'en-GB';
test.use({ locale: LOCALE });

const app = useApp('app-records-formats');

async function openProgress(page: Page) {
  await page.getByRole('tab', { name: 'Progress' }).click();
  await expect(page.getByTestId('progress-as-of')).toHaveText(/^Up to date as of \d\d:\d\d$/);
}

test("the Progress screen shows every time and date in the summary's one form: today's times alone, other days' with their date", async ({
  page,
}) => {
  const today = localDay();
  // A capture of two files in the local queue, recorded today at 07:45 here, its files uploaded.
  seedCapture(app.h, 'Morning walk', `${today}T07:45:00${zoneOffset()}`);
  await page.reload();
  await openProgress(page);
  const day = page.getByTestId('day-view');
  // The day's heading: the date as the summary writes it, with its weekday.
  await expect(day.locator('h3')).toHaveText(localDate(today, { locale: LOCALE, weekday: true }));
  const capture = day.getByTestId('day-capture');
  // Recorded today at 07:45: the time alone, on the 24-hour clock the locale uses (not "25 Nov 2026, 07:45").
  await expect(capture).toContainText(
    `recorded ${whenAt(`${today}T07:45:00${zoneOffset()}`, { locale: LOCALE })}2 of 2 files`,
  );
  await expect(capture).toContainText('recorded 07:452 of 2 files');
  await expect(capture).toHaveText(/· uploaded \d\d:\d\dShow Morning walk/);
  // An entry kept on this computer: its date in the same form, and when it was kept.
  await app.h.svc.admin('POST', '/faults', { target: 'progress', action: { type: 'status', status: 503 }, times: 0 });
  const form = page.getByRole('region', { name: 'Record progress' });
  await form.getByLabel('Details').fill('Tower A level 2 fire stopping inspected.');
  await form.getByRole('button', { name: 'Record entry' }).click();
  await expect(form).toContainText(`the entry for ${localDate(today, { locale: LOCALE })} is kept on this computer`);
  await expect(page.getByTestId('outbox-item')).toContainText(localDate(today, { locale: LOCALE }));
  await expect(page.getByTestId('outbox-item')).toContainText(/kept at \d\d:\d\d;/);
});

test('a copy kept yesterday is said with its date when the service cannot be reached today', async ({ page }) => {
  await openProgress(page);
  const read = (await page.getByTestId('progress-as-of').textContent())!.replace('Up to date as of ', '');
  // The page's clock moves to tomorrow morning, and the service goes away: the copy is yesterday's.
  const now = new Date();
  const tomorrow = new Date(now.getFullYear(), now.getMonth(), now.getDate() + 1, 9, 0);
  await page.clock.setFixedTime(tomorrow);
  await app.h.svc.admin('POST', '/faults', { target: 'progress', action: { type: 'status', status: 503 }, times: 0 });
  await page.getByRole('button', { name: 'Refresh' }).click();
  await expect(page.getByTestId('progress-as-of')).toHaveText(
    `No connection to the progress service: showing the copy from ${localDate(localDay(now), { locale: LOCALE, now: tomorrow.getTime() })} ${read}`,
  );
});
