import { expect, test } from '@playwright/test';
import { join } from 'node:path';
import { expectAccessible } from './axe.js';
import { writeCard } from './card-files.js';
import { choiceOf, mountRoutineCard, ROUTINE_WALKS } from './realistic-card.js';
import { useApp } from './harness.js';
import { SIZES, shots } from './shots.js';

// A keyboard path through a whole card. The built renderer in Chromium over the real
// app core, queue and local service; once the card is inserted, only page.keyboard is used.

const app = useApp('app-keys', { setUp: 'none', mounts: true });

test('the routine card (100 recordings, 4 walks on two structures, types differing, a 1 h shift) is imported, placed and registered by keyboard alone in at most 25 key presses', async ({
  page,
}, info) => {
  // Under load (a shared 2-core machine) importing and listing 100 recordings takes minutes.
  test.setTimeout(420_000);
  await page.setViewportSize(SIZES.large);
  await page.goto('/');
  await app.h.invoke('capture:settings.useLocalService');
  await page.reload();
  await expect(page.getByText('Drop Insta360 recordings here')).toBeVisible();
  mountRoutineCard(app);
  // The card offered takes the focus: Import is the first stop.
  const importButton = page.getByRole('button', { name: 'Import X4_SITE' });
  await expect(importButton).toBeFocused({ timeout: 15_000 });

  // From here on, every key is counted and nothing else touches the page.
  let presses = 0;
  const press = async (key: string, times = 1) => {
    for (let i = 0; i < times; i++, presses++) await page.keyboard.press(key);
  };
  const typeKeys = async (text: string) => {
    for (const ch of text) await press(ch);
  };
  await press('Enter');
  const rows = page.getByTestId('capture-row');
  await expect(rows).toHaveCount(100, { timeout: 60_000 });
  // The second copy of the .mp4 is said before the confirmation, with its reason.
  await expect(page.getByTestId('blocked-row')).toContainText(['The same recording as']);
  await expect(rows.first().getByRole('checkbox')).toBeFocused();

  // The camera was an hour slow: the whole card is shifted, nothing selected.
  await press('Alt+T');
  await expect(page.getByLabel('Shift times')).toBeFocused();
  await typeKeys('+1h');
  await expect(page.getByTestId('shift-preview')).toContainText('(first of 100; the gaps stay)');
  await press('Enter');
  await expect(page.getByTestId('walk-status')).toHaveText('');

  // Each walk in one step: its list is focused and open, a few letters pick the place and type.
  for (const [i, w] of ROUTINE_WALKS.entries()) {
    const field = page.getByRole('combobox', { name: `Place site walk ${i + 1}: structure · design and type` });
    await expect(field).toBeFocused();
    await expect(page.getByRole('listbox', { name: `Places for site walk ${i + 1}` })).toBeVisible();
    await typeKeys(w.typed);
    await expect(page.locator(`#walk-place-${i + 1}-option-0`)).toHaveText(new RegExp(`^${choiceOf(w)}`));
    if (i === 0) {
      await expectAccessible(page, '.drafts');
      await shots(page, info, '30-keyboard-walk-place', () =>
        page.locator('tbody[aria-label="Site walk 1"]').evaluate((el) => el.scrollIntoView({ block: 'start' })),
      );
    }
    await press('Enter');
    await expect(page.getByTestId('walk-status')).toHaveText(
      `${w.place} (${w.type}) set on ${w.count + (i === 3 ? 1 : 0)} captures of site walk ${i + 1}.`,
    );
  }
  await expect(page.getByText('Not chosen')).toHaveCount(0);

  // Every walk placed: focus is on Register, which opens the confirmation.
  const register = page.getByRole('button', { name: 'Register 100 captures…' });
  await expect(register).toBeFocused();
  await press('Enter');
  const dialog = page.getByRole('dialog', { name: 'Register 100 captures?' });
  await expect(dialog.getByTestId('confirm-sentence')).toHaveText(
    '30 captures in Tower A · Level 1 (interior), 25 in Tower B · Level 1 (interior), 25 in Tower B · Level 2 (interior), 20 in Tower A · Roof (exterior).',
  );
  await press('Enter');
  await expect(rows).toHaveCount(0, { timeout: 30_000 });
  info.annotations.push({ type: 'key presses', description: String(presses) });
  console.log(`keyboard only, the routine card: ${presses} key presses (goal at most 25)`);
  expect(presses).toBeLessThanOrEqual(25);

  // What was queued: 100 captures, each walk in its place and type, every time an hour later than
  // the camera's clock; nothing refused after the confirmation.
  const queue = app.h.queue();
  const captures = queue
    .captures()
    .sort((a, b) => Date.parse(a.request.captureDateTime) - Date.parse(b.request.captureDateTime));
  expect(captures).toHaveLength(100);
  const named = (c: (typeof captures)[number]) => {
    const s = app.h.svc.info.namedStructures.find((x) => x.id === c.structure)!;
    return `${s.name} · ${s.designs.find((d) => d.id === c.design)!.name}`;
  };
  const want = ROUTINE_WALKS.flatMap((w, i) => Array(w.count + (i === 3 ? 1 : 0)).fill([w.place, w.type]));
  expect(captures.map((c) => [named(c), c.request.type])).toEqual(want);
  expect(Date.parse(captures[0]!.request.captureDateTime)).toBe(new Date(2026, 10, 23, 9, 0, 0).getTime());
  // Nothing was refused after the confirmation: the one row that cannot be registered is the copy said before.
  await expect(page.getByTestId('blocked-row')).toHaveCount(1);
});

test("the capture table is one tab stop; arrows move between rows and a row's controls, Space and Shift select, Escape clears", async ({
  page,
}) => {
  await page.setViewportSize(SIZES.large);
  await page.goto('/');
  await app.h.invoke('capture:settings.useLocalService');
  await page.reload();
  await expect(page.getByText('Drop Insta360 recordings here')).toBeVisible();
  // Two site walks of three: the rows are [all] [walk 1] c1 c2 c3 [walk 2] c4 c5 c6.
  writeCard(join(app.work, 'Camera02'), [
    { start: new Date(2026, 10, 23, 8, 0, 0), count: 3, stepS: 60 },
    { start: new Date(2026, 10, 23, 13, 0, 0), count: 3, stepS: 60 },
  ]);
  await app.h.drop([join(app.work, 'Camera02')]);
  const rows = page.getByTestId('capture-row');
  await expect(rows).toHaveCount(6);
  const box = (i: number) => rows.nth(i).getByRole('checkbox');
  const inTable = page.locator('.capture-table :focus');
  const selected = page.locator('tr[data-testid="capture-row"].selected');
  await expect(box(0)).toBeFocused();
  // Tab leaves the table in one press, and Shift+Tab comes back to where it was.
  await page.keyboard.press('Tab');
  await expect(inTable).toHaveCount(0);
  await page.keyboard.press('Shift+Tab');
  await expect(box(0)).toBeFocused();

  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('Space');
  await expect(box(1)).toBeChecked();
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('ArrowDown');
  await expect(page.getByRole('checkbox', { name: 'Select site walk 2' })).toBeFocused();
  await page.keyboard.press('ArrowUp');
  await page.keyboard.press('ArrowUp');
  await expect(box(1)).toBeFocused();
  // A range from the capture chosen with Space, over the walk's head; Shift+Up shrinks it.
  await page.keyboard.press('Shift+ArrowDown');
  await page.keyboard.press('Shift+ArrowDown');
  await page.keyboard.press('Shift+ArrowDown');
  await expect(box(4)).toBeFocused();
  await expect(selected).toHaveCount(4);
  await page.keyboard.press('Shift+ArrowUp');
  await expect(box(3)).toBeFocused();
  await expect(selected).toHaveCount(3);
  await expect(box(4)).not.toBeChecked();
  await page.keyboard.press('Escape');
  await expect(selected).toHaveCount(0);

  // Right goes to the capture's time, and Up/Down keep to that column.
  await page.keyboard.press('ArrowRight');
  await expect(rows.nth(3).getByRole('button', { name: /^Capture time/ })).toBeFocused();
  await page.keyboard.press('ArrowDown');
  await expect(rows.nth(4).getByRole('button', { name: /^Capture time/ })).toBeFocused();
  await page.keyboard.press('ArrowLeft');
  await expect(box(4)).toBeFocused();
  await page.keyboard.press('Home');
  await expect(box(0)).toBeFocused();
  await page.keyboard.press('End');
  await expect(box(5)).toBeFocused();

  // Ctrl+A selects every capture; Ctrl+Enter without a place says what is missing.
  await page.keyboard.press('Control+a');
  await expect(selected).toHaveCount(6);
  await page.keyboard.press('Control+Enter');
  await expect(page.getByRole('status').filter({ hasText: 'Choose a structure · design first.' })).toBeVisible();
  await expect(selected).toHaveCount(6);
  // The tab stop stayed where the focus last was.
  await page.keyboard.press('Tab');
  await expect(inTable).toHaveCount(0);
  await page.keyboard.press('Shift+Tab');
  await expect(box(5)).toBeFocused();
  await expect(page.locator('.capture-table [tabindex="0"]')).toHaveCount(1);
  await expectAccessible(page, '.drafts');

  // Removing the selection from the list does not drop the focus to the page.
  await page.keyboard.press('Escape');
  await page.keyboard.press('Space');
  await page.keyboard.press('Shift+Tab');
  await expect(page.getByRole('button', { name: 'Remove selected from list' })).toBeFocused();
  await page.keyboard.press('Enter');
  await expect(rows).toHaveCount(5);
  await expect(box(0)).toBeFocused();
});
