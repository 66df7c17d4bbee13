import { AxeBuilder } from '@axe-core/playwright';
import { expect, test } from '@playwright/test';
import { useApp } from './harness.js';

// The update feed in the Settings screen (docs/decisions/updates.md): empty is off; an address
// that is not https (or http to this computer) is refused with its fix and nothing changes; a
// good one is stored and handed to the updater at once (here the harness's stand-in).
const app = useApp('app-update-feed');

test('Settings sets the update feed address, refuses plain http to another computer, and turns updates off', async ({
  page,
}) => {
  await page.getByRole('tab', { name: 'Settings' }).click();

  const section = page.getByRole('region', { name: 'Updates' });
  const address = section.getByRole('textbox', { name: 'Update feed address' });
  const apply = section.getByRole('button', { name: 'Apply' });
  // Nothing set: updates are off, and the screen says so.
  await expect(address).toHaveValue('');
  await expect(section.getByTestId('update-feed-state')).toHaveText(/^Updates are off/);

  // Plain http to another computer: refused with the fix, nothing stored or applied.
  await address.fill('http://updates.example.com/capture-uploader');
  await apply.click();
  await expect(section.getByRole('alert')).toHaveText(
    /^The update feed address cannot be used: it must start with https:\/\/ \(plain http:\/\/ only to this computer/,
  );
  await expect(address).toHaveAttribute('aria-invalid', 'true');
  expect(app.h.store.get('updates')).toBeUndefined();
  expect(app.h.feedApplied).toEqual([]);

  // No scheme at all: refused too.
  await address.fill('updates.example.com/capture-uploader');
  await apply.click();
  await expect(section.getByRole('alert')).toHaveText(/it must start with https:\/\//);
  expect(app.h.feedApplied).toEqual([]);

  // The section passes the accessibility rules as the rest of Settings does, error shown.
  const { violations } = await new AxeBuilder({ page }).include('section.update-feed').analyze();
  expect(violations.map((v) => `${v.id}: ${v.help}`)).toEqual([]);

  // https: stored without its trailing slash and followed at once.
  await address.fill('https://updates.example.com/capture-uploader/');
  await apply.click();
  await expect(section.getByRole('alert')).toHaveCount(0);
  await expect(address).toHaveValue('https://updates.example.com/capture-uploader');
  await expect(section.getByTestId('update-feed-state')).toHaveText(
    'Updates are checked at start and once a day from this address.',
  );
  expect(app.h.store.get('updates')).toEqual({ feedUrl: 'https://updates.example.com/capture-uploader' });
  expect(app.h.feedApplied).toEqual(['https://updates.example.com/capture-uploader']);

  // Plain http to this computer is allowed (a feed served while testing).
  await address.fill('http://127.0.0.1:8080/feed');
  await apply.click();
  await expect(address).toHaveValue('http://127.0.0.1:8080/feed');
  expect(app.h.feedApplied.at(-1)).toBe('http://127.0.0.1:8080/feed');

  // Emptied: updates off, at once.
  await address.fill('');
  await apply.click();
  await expect(section.getByTestId('update-feed-state')).toHaveText(/^Updates are off/);
  expect(app.h.store.get('updates')).toEqual({ feedUrl: '' });
  expect(app.h.feedApplied.at(-1)).toBe('');

  // Reopened, the screen reads what is stored.
  await page.reload();
  await page.getByRole('tab', { name: 'Settings' }).click();
  await expect(
    page.getByRole('region', { name: 'Updates' }).getByRole('textbox', { name: 'Update feed address' }),
  ).toHaveValue('');
});
