import { expect, test } from '@playwright/test';
import { AppHarness } from './harness.js';

// The packaged app does not contain the local test service (electron-builder.yml leaves it out;
// e2e/packaging.test.ts checks the asar), so its first-run screen must not offer it.
const ORIGIN = `http://127.0.0.1:${process.env.E2E_PORT ?? 4173}`;

let h: AppHarness;
test.afterEach(async () => {
  await h.stop();
});

test('where the local test service cannot be loaded, first run offers only the service details', async ({
  page,
}, info) => {
  h = await AppHarness.start(page, ORIGIN, { localService: false });
  await page.goto('/');
  await expect(page.getByRole('heading', { name: 'Welcome' })).toBeVisible();
  await expect(page.getByText('Enter the capture service details your administrator gave you.')).toBeVisible();
  await expect(page.getByRole('button', { name: 'Use the local test service' })).toHaveCount(0);
  await page.screenshot({ path: info.outputPath('first-run-packaged.png'), fullPage: true });
});

test('a checkout offers the local test service on first run', async ({ page }) => {
  h = await AppHarness.start(page, ORIGIN);
  await page.goto('/');
  await expect(page.getByRole('button', { name: 'Use the local test service' })).toBeVisible();
  await expect(
    page.getByText('To try the app first without an account, use the local test service below the form.'),
  ).toBeVisible();
});
