import { expect, test } from '@playwright/test';
import { join } from 'node:path';
import { expectAccessible } from './axe.js';
import { writeCard } from './card-files.js';
import { useApp } from './harness.js';
import { applyBar } from './register-steps.js';
import { SIZES, shots } from './shots.js';

// A keyboard path through a whole card. The built renderer in Chromium over the real
// app core, queue and local service; after the card is dropped, only page.keyboard is used.

const app = useApp('app-keys', { setUp: 'none' });

test('a 100-recording card is placed in four ranges and registered by keyboard alone in at most 40 key presses', async ({
  page,
}, info) => {
  test.setTimeout(120_000);
  await page.setViewportSize(SIZES.large);
  await page.goto('/');
  await app.h.invoke('capture:settings.useLocalService');
  await page.reload();
  await expect(page.getByText('Drop Insta360 recordings here')).toBeVisible();
  // One site walk of 100 recordings a minute apart, from 08:00: the four ranges are the operator's, not the walk's.
  writeCard(join(app.work, 'Camera01'), [{ start: new Date(2026, 10, 23, 8, 0, 0), count: 100, stepS: 60 }]);
  await app.h.drop([join(app.work, 'Camera01')]);
  const rows = page.getByTestId('capture-row');
  await expect(rows).toHaveCount(100, { timeout: 30_000 });

  // From here on, every key is counted and nothing else touches the page.
  let presses = 0;
  const press = async (key: string, times = 1) => {
    for (let i = 0; i < times; i++, presses++) await page.keyboard.press(key);
  };
  const bar = applyBar(page);
  const place = bar.getByLabel('Structure · design');
  const box = (i: number) => rows.nth(i).getByRole('checkbox');
  const selectedRows = () => page.locator('tr[data-testid="capture-row"].selected');
  // The listed card takes the focus: its first capture.
  await expect(box(0)).toBeFocused();

  // Range 1, captures 1–25: the selection grows from the focused capture, ten at a time, then one.
  await press('Shift+PageDown', 2);
  await press('Shift+ArrowDown', 4);
  await expect(box(24)).toBeFocused();
  await expect(selectedRows()).toHaveCount(25);
  await expect(box(0)).toBeChecked();
  await expect(box(25)).not.toBeChecked();
  await expectAccessible(page, '.drafts');
  await shots(page, info, '30-keyboard-range-focus');
  await expect(box(24)).toBeFocused();
  await press('Alt+S'); // to "Structure · design"
  await expect(place).toBeFocused();
  await press('ArrowDown');
  await expect(place.locator('option:checked')).toHaveText('Tower A · Level 1');
  await press('Tab');
  await press('ArrowDown');
  await expect(bar.getByLabel('Type')).toHaveValue('interior');
  await press('Control+Enter');
  await expect(selectedRows()).toHaveCount(0);
  // Focus moves on to the next capture without a place.
  await expect(box(25)).toBeFocused();

  // Ranges 2 and 3, captures 26–50 and 51–75: other designs of the same structure, the type stays chosen.
  for (const [first, name] of [
    [25, 'Tower A · Level 2'],
    [50, 'Tower A · Level 3'],
  ] as const) {
    await press('Shift+PageDown', 2);
    await press('Shift+ArrowDown', 4);
    await expect(selectedRows()).toHaveCount(25);
    await expect(box(first)).toBeChecked();
    await press('Alt+S');
    await press('ArrowDown');
    await expect(place.locator('option:checked')).toHaveText(name);
    await press('Control+Enter');
    await expect(box(first + 25)).toBeFocused();
  }

  // Range 4, captures 76–100: to the end in one press.
  await press('Shift+End');
  await expect(selectedRows()).toHaveCount(25);
  await press('Alt+S');
  await press('ArrowDown', 2);
  await expect(place.locator('option:checked')).toHaveText('Tower B · Level 1');
  // Another structure, with no type used there yet: Type is back to "Choose…", never carried over silently.
  await expect(bar.getByLabel('Type')).toHaveValue('');
  await press('Tab');
  await press('ArrowDown');
  await expect(bar.getByLabel('Type')).toHaveValue('interior');
  await press('Control+Enter');
  await expect(page.getByText('Not chosen')).toHaveCount(0);

  // The confirmation has its own shortcut, said in the button's accessible description of keys.
  const register = page.getByRole('button', { name: 'Register 100 captures…' });
  await expect(register).toHaveAttribute('aria-keyshortcuts', 'Control+Shift+Enter');
  await press('Control+Shift+Enter');
  const dialog = page.getByRole('dialog', { name: 'Register 100 captures?' });
  await expect(dialog.getByTestId('confirm-sentence')).toHaveText(
    '25 captures in Tower A · Level 1 (interior), 25 in Tower A · Level 2 (interior), 25 in Tower A · Level 3 (interior), 25 in Tower B · Level 1 (interior).',
  );
  await press('Enter');
  await expect(rows).toHaveCount(0, { timeout: 30_000 });
  info.annotations.push({ type: 'key presses', description: String(presses) });
  expect(presses).toBeLessThanOrEqual(40);

  // What was queued: 100 captures of two lenses each, placed by range in recording order.
  const [towerA, towerB] = app.h.svc.store.state.projects[0]!.structures;
  const design = (s: typeof towerA, name: string) => s!.designs.find((d) => d.name === name)!.id;
  const want = [
    [towerA!.id, design(towerA, 'Level 1')],
    [towerA!.id, design(towerA, 'Level 2')],
    [towerA!.id, design(towerA, 'Level 3')],
    [towerB!.id, design(towerB, 'Level 1')],
  ];
  const queue = app.h.queue();
  const captures = queue
    .captures()
    .sort((a, b) => Date.parse(a.request.captureDateTime) - Date.parse(b.request.captureDateTime));
  expect(captures).toHaveLength(100);
  expect(captures.map((c, i) => [i, c.structure, c.design, c.request.type])).toEqual(
    captures.map((_, i) => [i, ...want[Math.floor(i / 25)]!, 'interior']),
  );
  expect(captures.reduce((n, c) => n + queue.filesOf(c.id).length, 0)).toBe(200);
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
