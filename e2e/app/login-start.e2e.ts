import { AxeBuilder } from '@axe-core/playwright';
import { expect, test } from '@playwright/test';
import { useApp } from './harness.js';

// Start at login in the Settings screen (docs/decisions/0018-login-start.md): what it says now, a
// person's choice carried out at once by the main process (here the harness's stand-in for the
// login item), and "Back to the default".
const app = useApp('app-login-start');

test('Settings shows start at login and a person turns it on, then back to the default', async ({ page }) => {
  await page.getByRole('tab', { name: 'Settings' }).click();

  const section = page.getByRole('region', { name: 'Start at login' });
  const box = section.getByRole('checkbox', { name: 'Start Capture Uploader at login, minimized to the tray' });
  // An empty queue: the default is off, and the screen says when it turns on.
  await expect(box).not.toBeChecked();
  await expect(section.getByTestId('login-start-state')).toHaveText(
    'Off while the queue has nothing to finish; it turns on by itself once the queue holds work (the default).',
  );
  await expect(section.getByRole('button', { name: 'Back to the default' })).toHaveCount(0);

  // A click, not check(): the box is checked once the main process answers (it applies the
  // choice first), which check() does not wait for.
  await box.click();
  await expect(box).toBeChecked();
  await expect(section.getByTestId('login-start-state')).toHaveText(/^On, as you chose/);
  expect(app.h.loginApplied.at(-1)).toBe(true);
  expect(app.h.store.get('startAtLogin')).toBe(true);

  // The section passes the accessibility rules as the rest of Settings does.
  const { violations } = await new AxeBuilder({ page }).include('section.login-start').analyze();
  expect(violations.map((v) => `${v.id}: ${v.help}`)).toEqual([]);

  await section.getByRole('button', { name: 'Back to the default' }).click();
  await expect(box).not.toBeChecked();
  await expect(section.getByTestId('login-start-state')).toHaveText(/\(the default\)\.$/);
  expect(app.h.loginApplied.at(-1)).toBe(false);
  expect(app.h.store.get('startAtLogin')).toBeNull();
});
