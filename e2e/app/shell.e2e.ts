import { expect, test } from '@playwright/test';

// The built renderer loads in a real Chromium under its own Content-Security-Policy, with no
// console errors (a CSP violation or a failed module load would show up here).
test('the built renderer starts in Chromium under its CSP', async ({ page }, testInfo) => {
  const errors: string[] = [];
  page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto('/');
  await expect(page.getByRole('heading', { name: 'Capture Uploader' })).toBeVisible();
  await expect(page.getByText('Drop Insta360 recordings here')).toBeVisible();
  await page.screenshot({ path: testInfo.outputPath('shell.png') });
  expect(errors).toEqual([]);
});
