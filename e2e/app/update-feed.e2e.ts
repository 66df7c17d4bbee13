import { randomBytes } from 'node:crypto';
import { AxeBuilder } from '@axe-core/playwright';
import { expect, test } from '@playwright/test';
import { publishUpdate } from '../service/testing.js';
import { useApp } from './harness.js';

// The update feed in the Settings screen (docs/decisions/0017-updates.md): empty is off; an address
// that is not https (or http to this computer) is refused with its fix and nothing changes; a
// good one is stored and followed at once, by the harness's Updates as the shell runs them
// (main/updates/: the local service's signed feed, electron-updater under Node), and the screen
// shows where that check ends without being reopened. The section sits in the screen's column.
const app = useApp('app-update-feed');

test('Settings sets the update feed address, refuses plain http to another computer, and shows each check’s result as it ends', async ({
  page,
}) => {
  await page.getByRole('tab', { name: 'Settings' }).click();

  const section = page.getByRole('region', { name: 'Updates' });
  const address = section.getByRole('textbox', { name: 'Update feed address' });
  const apply = section.getByRole('button', { name: 'Apply' });
  const state = section.getByTestId('update-feed-state');
  // In the column with the rest of Settings: the same left edge and width as the service form.
  const form = await page.locator('main.settings > form').first().boundingBox();
  const box = await section.boundingBox();
  expect(box && form && { x: Math.round(box.x), width: Math.round(box.width) }).toEqual({
    x: Math.round(form!.x),
    width: Math.round(form!.width),
  });
  // Nothing set: updates are off, and the screen says so.
  await expect(address).toHaveValue('');
  await expect(state).toHaveText(/^Updates are off/);

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
  expect(app.h.store.get('updates')).toEqual({ feedUrl: 'https://updates.example.com/capture-uploader' });
  expect(app.h.feedApplied).toEqual(['https://updates.example.com/capture-uploader']);

  // Emptied: updates off, at once.
  await address.fill('');
  await apply.click();
  await expect(state).toHaveText(/^Updates are off/);
  expect(app.h.store.get('updates')).toEqual({ feedUrl: '' });
  expect(app.h.feedApplied.at(-1)).toBe('');

  // Plain http to this computer is allowed (a feed served while testing). One that holds no
  // repository: the check's result replaces "Checking…" on screen by itself.
  const feed = app.h.svc.info.updatesUrl;
  await address.fill(feed.replace(/\/updates$/, '/nowhere'));
  await apply.click();
  await expect(state).toHaveText(
    /^Updates could not be checked: the feed answered 404 for metadata\/timestamp\.json \(.+\)\. The next check is within a day\.$/,
  );

  // The local service's signed feed with a newer version: checked, downloaded, verified, ready.
  await publishUpdate(app.h.svc, {
    version: '0.2.0',
    fileName: 'capture-uploader_0.2.0_amd64.deb',
    content: randomBytes(100_000),
  });
  await address.fill(feed);
  await apply.click();
  await expect(state).toHaveText(
    /^Update ready: 0\.2\.0, installs when you quit, once uploads in progress have stopped\. Last checked .+\.$/,
  );
  expect(app.h.updates.status).toMatchObject({ state: 'ready', next: '0.2.0' });

  // Reopened, the screen reads what is stored and where updates stand.
  await page.reload();
  await page.getByRole('tab', { name: 'Settings' }).click();
  const again = page.getByRole('region', { name: 'Updates' });
  await expect(again.getByRole('textbox', { name: 'Update feed address' })).toHaveValue(feed);
  await expect(again.getByTestId('update-feed-state')).toHaveText(/^Update ready: 0\.2\.0/);
});
