import type { Page } from '@playwright/test';
import { expect, test } from '@playwright/test';
import { randomBytes } from 'node:crypto';
import { copyFileSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { violations } from './axe.js';
import { useApp } from './harness.js';
import { shots } from './shots.js';
import { sha256, storedSha } from './stored.js';

// The operator's screen tells the truth. A storage outage reads "Waiting for storage"
// (since when, the cause, the next try, nothing lost, Try now), the bar counts only bytes storage
// acknowledged and never goes back, and a retry time is never one already past.
// Times are asserted in 24-hour form: the page runs under en-GB (the one time format follows the
// locale; e2e/app/time-format.e2e.ts covers a 12-hour locale).
test.use({ locale: 'en-GB' });
const fixtures = fileURLToPath(new URL('../../../shared/fixtures/', import.meta.url));

const app = useApp('screen-e2e', {
  setUp: 'invoke',
  beforeStop: async (a) => {
    await a.h.svc.admin('DELETE', '/faults');
  },
});
test.describe.configure({ timeout: 120_000 });

/**
 * Queues one capture through the app core, as the registration screen does; answers the file's
 * path. A real video with `size` random bytes after it: readable (no warning), and unlike any other.
 */
async function register(name: string, size: number): Promise<string> {
  const file = join(app.work, name);
  writeFileSync(file, Buffer.concat([readFileSync(join(fixtures, 'walkthrough.mp4')), randomBytes(size)]));
  const [tower] = app.h.settings.view().structures;
  await app.h.invoke('capture:captures.register', [
    {
      paths: [file],
      structure: tower!.id,
      design: tower!.designs[0]!.id,
      type: 'interior',
      capturedAt: '2026-11-22T08:00:00+01:00',
    },
  ]);
  return file;
}

const fileRow = (page: Page, name: string) => page.locator(`[data-testid="file-row"][data-file="${name}"]`);
const percent = async (page: Page) =>
  Number.parseInt((await page.getByTestId('queue-percent').textContent()) ?? '', 10);

test('storage cut: the headline says "Waiting for storage" within 5 s, with since, cause, next try, nothing lost and Try now; the bar never goes back', async ({
  page,
}, info) => {
  await register('before-the-cut.mp4', 1024 * 1024);
  await expect(fileRow(page, 'before-the-cut.mp4')).toHaveAttribute('data-state', 'completed', { timeout: 20_000 });
  await expect(page.getByTestId('queue-state')).toHaveText('All 1 file uploaded');
  const stored = await percent(page);
  expect(stored).toBe(100);

  // Storage answers 500 to every part from now on; the next recording meets it.
  await app.h.svc.admin('POST', '/faults', {
    target: 'storage',
    operation: 'UploadPart',
    times: 0,
    action: { type: 'status', status: 500 },
  });
  const cutAt = Date.now();
  const after = await register('during-the-cut.mp4', 1024 * 1024);
  const state = page.getByTestId('queue-state');
  await expect(state).toHaveText('Waiting for storage', { timeout: 5_000 });
  info.annotations.push({ type: 'waiting-for-storage-shown-after-ms', description: String(Date.now() - cutAt) });
  const detail = page.getByTestId('queue-state-detail');
  await expect(detail).toContainText(
    /^since \d\d:\d\d · storage unavailable · next try (any moment|\d\d:\d\d) · nothing lost/,
  );
  await expect(detail.getByRole('button', { name: 'Try now' })).toBeVisible();
  // Nothing is acknowledged during an outage: no ETA is guessed.
  await expect(page.getByTestId('queue-summary')).toContainText('time left unknown');
  // Nor does its capture or file row say "Uploading": they wait, as the headline says.
  const captureState = page.getByTestId('queue-capture').filter({ hasText: 'during-the-cut' }).locator('.stats .state');
  await expect(captureState).toHaveText(/^(Waiting for storage|Retrying at .+|Retry due since .+)$/);
  await expect(fileRow(page, 'during-the-cut.mp4').locator('.stats .state')).toHaveText(
    /^(Waiting for storage|(Retrying at|Retry due since) .+ \(attempt \d+\))$/,
  );

  // The percentage never goes back while storage is down. It is this batch's: during-the-cut.mp4
  // was added once before-the-cut.mp4 was done, so nothing of the batch is stored (docs/progress-batch.md).
  const seen: number[] = [];
  for (let i = 0; i < 12; i++) {
    seen.push(await percent(page));
    await page.waitForTimeout(500);
  }
  expect(seen.every((p) => p === 0)).toBe(true);
  await expect(page.getByTestId('queue-earlier')).toHaveText('Earlier: 1 file uploaded');
  await expect(state).toHaveText('Waiting for storage');
  // A retry time ahead reads "Retrying at", never one already past; a time come reads "Retry
  // due since": a file that waits never says "Retrying now" (only one whose request is on the wire).
  const row = fileRow(page, 'during-the-cut.mp4');
  await expect(row).toHaveAttribute('data-retrying', 'true', { timeout: 30_000 });
  const text = (await row.textContent()) ?? '';
  const at = /Retrying at (\d\d):(\d\d)/.exec(text);
  if (at) {
    const shown = new Date();
    shown.setHours(Number(at[1]), Number(at[2]), 59, 999);
    expect(shown.getTime()).toBeGreaterThanOrEqual(Date.now() - 1000);
  } else expect(text).toMatch(/Retry due since \d\d:\d\d \(attempt \d+\)/);
  expect(text).not.toContain('Retrying now');
  expect(await violations(page)).toEqual({});
  await shots(page, info, '18-waiting-for-storage', () =>
    page.locator('section.queue').evaluate((el) => el.scrollIntoView({ block: 'start' })),
  );

  // Storage is back: Try now sends at once, and the headline says so.
  await app.h.svc.admin('DELETE', '/faults');
  await detail.getByRole('button', { name: 'Try now' }).click();
  await expect(row).toHaveAttribute('data-state', 'completed', { timeout: 30_000 });
  await expect(state).toHaveText('All 1 file uploaded');
  await expect(page.getByTestId('queue-state-detail')).toHaveCount(0);
  expect(await storedSha(app.h, 'during-the-cut.mp4')).toBe(sha256(readFileSync(after)));

  // The morning summary says when it finished, how much, and the outage.
  await page.getByText('Summary of the last 24 hours').click();
  const summary = page.getByTestId('night-summary');
  await expect(summary).toContainText(/Started at .+; finished at .+ after .+: 2 captures \(2 files\), .+ uploaded\./);
  await expect(summary).toContainText(/Longest outage: .+ \(storage unavailable\); nothing was lost\./);
  await expect(summary).toContainText('Nothing needs you.');
  expect(await violations(page)).toEqual({});
  await shots(page, info, '18-morning-summary', () => summary.evaluate((el) => el.scrollIntoView({ block: 'center' })));
});

test('warnings travel to the finish line: a damaged recording and a lens gone before Register are said before confirm, marked in the queue, and the finish is not plain green', async ({
  page,
}, info) => {
  // A recording cut short (its trailer's last byte is gone), and a pair whose second lens vanishes before Register.
  const whole = readFileSync(join(fixtures, 'sample.insv'));
  const damaged = join(app.work, 'VID_20231121_201609_00_012.insv');
  writeFileSync(damaged, whole.subarray(0, whole.length - 1));
  // At the header's time (the fixture's 20:16:09): a name at another time would bring a warning of its own.
  const lens0 = join(app.work, 'VID_20231121_201609_00_013.insv');
  const lens1 = join(app.work, 'VID_20231121_201609_10_013.insv');
  copyFileSync(join(fixtures, 'sample.insv'), lens0);
  copyFileSync(join(fixtures, 'sample.insv'), lens1);
  await app.h.drop([damaged, lens0, lens1]);
  const damagedRow = page.locator('[data-testid="capture-row"]').filter({ hasText: 'segment 012' });
  await expect(damagedRow.getByTestId('capture-warning')).toHaveAttribute('title', /No Insta360 trailer/);
  unlinkSync(lens1);
  await page.getByLabel('Select all captures').check();
  await page
    .getByRole('group', { name: 'Apply to selected captures' })
    .getByLabel('Structure · design')
    .selectOption({ label: 'Tower A · Level 1' });
  await page
    .getByRole('group', { name: 'Apply to selected captures' })
    .getByLabel('Type')
    .selectOption({ label: 'Interior' });
  await page
    .getByRole('group', { name: 'Apply to selected captures' })
    .getByRole('button', { name: /^Apply to \d+ selected$/ })
    .click();
  await page.getByRole('button', { name: 'Register 2 captures…' }).click();
  const dialog = page.getByRole('dialog');
  await expect(dialog.getByTestId('confirm-warnings')).toContainText('1 capture with warnings');
  await expect(dialog.getByTestId('confirm-warnings')).toContainText('No Insta360 trailer');
  expect(await violations(page)).toEqual({});
  await shots(page, info, '18-warnings-before-confirm');
  await dialog.getByRole('button', { name: 'Register and upload' }).click();
  await expect(dialog).toBeHidden();

  const state = page.getByTestId('queue-state');
  await expect(state).toHaveText('All 2 files uploaded, 2 captures with warnings', { timeout: 30_000 });
  await expect(state).toHaveAttribute('data-kind', 'done-with-warnings');
  await expect(page.locator('[data-testid="queue-capture"][data-warnings]')).toHaveCount(2);
  await page.getByRole('link', { name: 'Show the 2 captures with warnings' }).click();
  const list = page.getByTestId('capture-warnings');
  await expect(list).toContainText('VID_20231121_201609_10_013.insv was no longer there at Register');
  await expect(list).toContainText('No Insta360 trailer');
  expect(await violations(page)).toEqual({});
  await shots(page, info, '18-finish-with-warnings', () =>
    page.locator('section.queue').evaluate((el) => el.scrollIntoView({ block: 'start' })),
  );
});

test('a camera clock an hour off is shifted for a selection, previewed before Apply; focus moves to the next unplaced capture; the type is never a silent default', async ({
  page,
}, info) => {
  const files: string[] = [];
  for (const [i, at] of ['20231121_201609', '20231121_201700', '20231121_201800'].entries()) {
    const f = join(app.work, `VID_${at}_00_01${i}.insv`);
    writeFileSync(f, Buffer.concat([readFileSync(join(fixtures, 'sample.insv')), randomBytes(10)]).subarray(0));
    files.push(f);
  }
  await app.h.drop(files);
  const rows = page.getByTestId('capture-row');
  await expect(rows).toHaveCount(3);
  const bar = page.getByRole('group', { name: 'Apply to selected captures' });
  // The time of day as HHMMSS (the date before it, when shown, is left out).
  const timeOf = async (i: number) =>
    (
      /\d\d:\d\d:\d\d/.exec(
        (await rows
          .nth(i)
          .getByRole('button', { name: /^Capture time/ })
          .textContent()) ?? '',
      )?.[0] ?? ''
    ).replace(/\D/g, '');
  const before = [await timeOf(0), await timeOf(1), await timeOf(2)];
  await rows.nth(0).getByRole('checkbox').click();
  await rows
    .nth(1)
    .getByRole('checkbox')
    .click({ modifiers: ['Shift'] });
  await bar.getByLabel('Shift times').fill('+01:00');
  await expect(bar.getByTestId('shift-preview')).toContainText('(first of 2; the gaps stay)');
  await expect(bar.getByTestId('shift-preview')).toContainText('→');
  expect(await violations(page)).toEqual({});
  await shots(page, info, '18-time-shift-preview');
  await bar.getByRole('button', { name: 'Shift 2 selected' }).click();
  const hourLater = (hhmmss: string) =>
    `${String((Number(hhmmss.slice(0, 2)) + 1) % 24).padStart(2, '0')}${hhmmss.slice(2)}`;
  // Rows follow their times: compare the card's times as a set.
  expect([await timeOf(0), await timeOf(1), await timeOf(2)].sort()).toEqual(
    [hourLater(before[0]!), hourLater(before[1]!), before[2]!].sort(),
  );
  // The selection is cleared, and focus is on the first capture still without a place.
  await expect(bar.getByRole('button', { name: 'Shift all 3' })).toBeDisabled();
  await expect(rows.nth(0).getByRole('checkbox')).toBeFocused();

  // The type starts unset: Apply waits for it; once chosen for this structure it is offered as such.
  await rows.nth(0).getByRole('checkbox').check();
  await bar.getByLabel('Structure · design').selectOption({ label: 'Tower A · Level 1' });
  await expect(bar.getByLabel('Type')).toHaveValue('');
  await expect(bar.getByRole('button', { name: 'Apply to 1 selected' })).toBeDisabled();
  await expect(rows.nth(1)).toContainText('—');
  await bar.getByLabel('Type').selectOption({ label: 'Exterior' });
  await bar.getByRole('button', { name: 'Apply to 1 selected' }).click();
  await expect(rows.nth(0)).toContainText('Exterior');
  await expect(rows.nth(1).getByRole('checkbox')).toBeFocused();
});

test("keyboard: the confirmation's primary action is the default; Escape returns focus to Register; after confirm focus goes to the next capture without a place", async ({
  page,
}, info) => {
  const files: string[] = [];
  for (const [i, at] of ['20231121_201609', '20231121_211700'].entries()) {
    const f = join(app.work, `VID_${at}_00_02${i}.insv`);
    writeFileSync(f, Buffer.concat([readFileSync(join(fixtures, 'sample.insv')), randomBytes(10)]));
    files.push(f);
  }
  await app.h.drop(files);
  const rows = page.getByTestId('capture-row');
  await expect(rows).toHaveCount(2);
  const bar = page.getByRole('group', { name: 'Apply to selected captures' });
  await rows.nth(0).getByRole('checkbox').check();
  await bar.getByLabel('Structure · design').selectOption({ label: 'Tower A · Level 1' });
  await bar.getByLabel('Type').selectOption({ label: 'Interior' });
  await bar.getByRole('button', { name: 'Apply to 1 selected' }).click();
  const register = page.getByRole('button', { name: 'Register 1 capture…' });
  await register.click();
  const dialog = page.getByRole('dialog');
  await expect(dialog.getByRole('button', { name: 'Register and upload' })).toBeFocused();
  await shots(page, info, '18-confirm-focus');
  await page.keyboard.press('Escape');
  await expect(dialog).toBeHidden();
  await expect(register).toBeFocused();
  await page.keyboard.press('Enter');
  await expect(dialog.getByRole('button', { name: 'Register and upload' })).toBeFocused();
  await page.keyboard.press('Enter');
  await expect(dialog).toBeHidden();
  await expect(rows).toHaveCount(1);
  await expect(rows.nth(0).getByRole('checkbox')).toBeFocused();
  expect(await violations(page)).toEqual({});
});
