import { expect, test } from '@playwright/test';
import { writeFileSync } from 'node:fs';
import { mountCard } from './card-steps.js';
import { useApp } from './harness.js';
import { countRowRenders, rowRenders } from './render-count.js';

// The registration table during an import redraws only the rows that changed: each import event
// (a copy started, a file verified, the bytes moving) is one store update, and a table that
// redrew every row for each of them kept the window's main thread busy through the whole import
// (scripts/bench-app.ts `--only import` prints the frame gaps). React's own commits are counted
// per row (render-count.ts).

const app = useApp('app-row-renders', {
  mounts: true,
  copyGate: true,
  beforeStop: (a) => writeFileSync(a.gate, ''),
});

test('while a card is imported, a row of the registration table is redrawn only when its own recording changes', async ({
  page,
}) => {
  await countRowRenders(page, 'capture-row');
  await page.reload();
  await expect(page.getByRole('heading', { name: 'Queue' })).toBeVisible();

  const recordings = 6;
  mountCard(app, 'X4_CARD', recordings, 64 * 1024);
  const offer = page.getByTestId('card-offer');
  await offer.getByRole('button', { name: 'Import X4_CARD' }).click({ timeout: 15_000 });
  const rows = page.getByTestId('capture-row');
  await expect(rows).toHaveCount(recordings, { timeout: 15_000 });
  // Every copy written and waiting at the gate for its read-back; each thumbnail settled (these
  // lenses are random bytes: the icon).
  await expect(page.locator('[data-testid="copy-state"][data-state="copying"]')).toHaveCount(recordings);
  await expect(page.locator('[data-testid="thumbnail"][data-state="none"]')).toHaveCount(recordings, {
    timeout: 15_000,
  });
  const keys = await rows.evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-key')!));

  // One row's checkbox (the table's tab stop already there): that row alone is redrawn.
  const box = rows.nth(2).getByRole('checkbox');
  await box.focus();
  await expect(box).toHaveAttribute('tabindex', '0');
  await rowRenders(page, true);
  if (process.env.SKIP_CLICK) {
    writeFileSync(app.gate, '');
    await expect(page.getByTestId('card-safe')).toBeVisible({ timeout: 30_000 });
    await expect(page.locator('[data-testid="copy-state"][data-state="verified"]')).toHaveCount(recordings);
    expect(await rowRenders(page)).toEqual(Object.fromEntries(keys.map((k) => [k, 1])));
  }
  await box.click();
  await expect(rows.nth(2)).toHaveClass('selected');
  expect(await rowRenders(page, true)).toEqual({ [keys[2]!]: 1 });

  // The copies verify one recording after another: each row is redrawn once, when its own copy
  // turns verified, however many import events came.
  writeFileSync(app.gate, '');
  await expect(page.getByTestId('card-safe')).toBeVisible({ timeout: 30_000 });
  await expect(page.locator('[data-testid="copy-state"][data-state="verified"]')).toHaveCount(recordings);
  const counts = await rowRenders(page);
  expect(counts).toEqual(Object.fromEntries(keys.map((k) => [k, 1])));
});
