import type { Page } from '@playwright/test';
import { expect, test } from '@playwright/test';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { formatBytes } from '../../shared/format.js';
import { expectAccessible } from './axe.js';
import { stamp, writeCard } from './card-files.js';
import { AppHarness } from './harness.js';
import { fillAccountForm } from './first-run.js';
import { SIZES, shots } from './shots.js';
import { expectStoredByteIdentical, sha256 } from './stored.js';
import { applyBar, applyToSelected, registerAll, registerAndConfirm } from './register-steps.js';

// The registration step at card scale: the built renderer in
// Chromium over the real app core, queue and local service.
const ORIGIN = `http://127.0.0.1:${process.env.E2E_PORT ?? 4173}`;
// Times are asserted in 24-hour form: the page runs under en-GB (the one time format follows the
// locale; e2e/app/time-format.e2e.ts covers a 12-hour locale).
test.use({ locale: 'en-GB' });

let h: AppHarness;
let work: string;
test.beforeEach(async ({ page }) => {
  // Parts retried after 20 ms, not 500 ms: a storage outage meets 200 files here, and each
  // attempt ends after its part's four retries. The retry schedule between attempts is the app's.
  h = await AppHarness.start(page, ORIGIN, { engine: { partRetry: { baseMs: 20, jitterMs: 20 } } });
  work = mkdtempSync(join(tmpdir(), 'app-card-'));
});
test.afterEach(async () => {
  await h.stop();
  rmSync(work, { recursive: true, force: true });
});

/** Scrolls the page so the element matched by `selector` starts at the top of the window. */
const scrollToTop = (page: Page, selector: string) =>
  page.locator(selector).evaluate((el) => el.scrollIntoView({ block: 'start' }));

async function setUpLocal(page: Page) {
  await page.setViewportSize(SIZES.large);
  await page.goto('/');
  await page.getByRole('button', { name: 'Use the local test service' }).click();
  await expect(page.getByText('Drop Insta360 recordings here')).toBeVisible();
}

const queueOf = () => h.queue();
const structureIds = () => {
  const [towerA, towerB] = h.svc.store.state.projects[0]!.structures;
  const design = (s: typeof towerA, name: string) => s!.designs.find((d) => d.name === name)!.id;
  return {
    towerA: towerA!.id,
    towerA2: design(towerA, 'Level 2'),
    towerB: towerB!.id,
    towerB1: design(towerB, 'Level 1'),
    towerB2: design(towerB, 'Level 2'),
  };
};

test('a 100-recording card is registered by site walk in ten interactions, confirmed by name, and queued as 200 files in 100 captures', async ({
  page,
}, info) => {
  test.setTimeout(180_000);
  await setUpLocal(page);
  const card = join(work, 'Camera01');
  // Two site walks: 60 recordings from 08:00 a minute apart, 40 from 13:00 ninety seconds apart; and a lone lens 10.
  writeCard(card, [
    { start: new Date(2026, 10, 22, 8, 0, 0), count: 60, stepS: 60 },
    { start: new Date(2026, 10, 22, 13, 0, 0), count: 40, stepS: 90 },
  ]);
  const lone = `VID_${stamp(new Date(2026, 10, 22, 15, 30, 0))}_10_101.insv`;
  writeFileSync(join(card, lone), randomBytes(4096));
  await h.drop([card]);

  const table = page.getByRole('table', { name: 'Captures to register' });
  await expect(page.getByTestId('capture-row')).toHaveCount(100, { timeout: 30_000 });
  await expect(page.getByRole('heading', { name: /New captures/ })).toContainText('100 in 2 site walks');
  await expect(table.getByRole('rowgroup', { name: 'Site walk 1' })).toContainText('60 captures');
  await expect(table.getByRole('rowgroup', { name: 'Site walk 2' })).toContainText('40 captures');
  // Nothing is placed by default, and nothing can be registered yet.
  await expect(table.getByText('Not chosen')).toHaveCount(100);
  await expect(page.getByRole('button', { name: 'Register 0 captures…' })).toBeDisabled();
  // The lone lens is a row with its reason; the 100 previews are one line.
  await expect(page.getByTestId('blocked-row').filter({ hasText: lone })).toContainText(
    'Lens 10 of a dual-lens recording without its _00_ file',
  );
  await expect(page.getByLabel('Not uploaded').locator('summary')).toHaveText('Not uploaded: 100 previews (LRV)');
  await expectAccessible(page, '.drafts');
  await expectAccessible(page, '[data-testid="dropzone"]');
  await shots(page, info, '11-card-100-recordings', () => scrollToTop(page, '.drafts'));

  // Every interaction a person makes from here is counted.
  let interactions = 0;
  const act = async (step: () => Promise<unknown>) => {
    interactions++;
    await step();
  };
  const bar = applyBar(page);
  await act(() => page.getByLabel('Select site walk 1').check());
  await expect(bar.getByRole('button', { name: 'Apply to 60 selected' })).toBeDisabled(); // until a place is chosen
  await act(() => bar.getByLabel('Structure · design').selectOption({ label: 'Tower A · Level 2' }));
  // No silent default for the type: "Choose…" until chosen.
  await expect(bar.getByRole('button', { name: 'Apply to 60 selected' })).toBeDisabled();
  await act(() => bar.getByLabel('Type').selectOption({ label: 'Interior' }));
  await act(() => bar.getByRole('button', { name: 'Apply to 60 selected' }).click());
  await act(() => page.getByLabel('Select site walk 2').check());
  await act(() => bar.getByLabel('Structure · design').selectOption({ label: 'Tower B · Level 1' }));
  // Another structure, where no type was used yet: "Choose…" again, never Tower A's carried over silently.
  await expect(bar.getByLabel('Type')).toHaveValue('');
  await act(() => bar.getByLabel('Type').selectOption({ label: 'Interior' }));
  await act(() => bar.getByRole('button', { name: 'Apply to 40 selected' }).click());
  await expect(table.getByText('Not chosen')).toHaveCount(0);
  // Scrolled to the second walk: the controls stay at hand above the rows.
  await shots(page, info, '12-card-placed', () => scrollToTop(page, '[aria-label="Site walk 2"]'));

  await act(() => page.getByRole('button', { name: 'Register 100 captures…' }).click());
  const dialog = page.getByRole('dialog', { name: 'Register 100 captures?' });
  await expect(dialog.getByTestId('confirm-sentence')).toHaveText(
    '60 captures in Tower A · Level 2 (interior), 40 in Tower B · Level 1 (interior).',
  );
  await expect(dialog).toContainText('200 files');
  await expectAccessible(page, 'dialog');
  await shots(page, info, '13-card-confirm');
  // Storage is down when the uploads start: every file's attempt ends, and each waits for its
  // retry time; nothing reads "Failed" or "Needs you".
  await h.svc.admin('POST', '/faults', {
    target: 'storage',
    operation: 'UploadPart',
    times: 0,
    action: { type: 'status', status: 500 },
  });
  await act(() => dialog.getByRole('button', { name: 'Register and upload' }).click());
  expect(interactions).toBeLessThanOrEqual(10);

  // The confirmation closes once the captures are queued; they are registered in the background.
  await expect(page.getByTestId('capture-row')).toHaveCount(0, { timeout: 30_000 });
  await expect(dialog).toBeHidden();
  // The queue's rows: 100 captures of two lenses each, placed by walk.
  const ids = structureIds();
  const captures = queueOf().captures();
  expect(captures).toHaveLength(100);
  expect(captures.reduce((n, c) => n + queueOf().filesOf(c.id).length, 0)).toBe(200);
  const placed = (s: string, d: string) =>
    captures.filter((c) => c.structure === s && c.design === d && c.request.type === 'interior').length;
  expect([placed(ids.towerA, ids.towerA2), placed(ids.towerB, ids.towerB1)]).toEqual([60, 40]);
  expect(
    captures.every(
      (c) =>
        queueOf()
          .filesOf(c.id)
          .map((f) => f.fileName.slice(20, 22))
          .join() === '00,10',
    ),
  ).toBe(true);

  // Queuing them is no message: the queue shows them (messages are for what needs a person).
  await expect(page.getByTestId('notices')).toHaveCount(0);

  const counts = page.getByTestId('queue-counts');
  await expect(counts).toHaveText('0 completed · 0 uploading · 0 queued · 200 waiting to retry · 0 need you', {
    timeout: 90_000,
  });
  await expect(page.locator('[data-testid="file-row"][data-state="failed"]')).toHaveCount(0);
  const firstRow = page.getByTestId('file-row').first();
  await expect(firstRow).toHaveAttribute('data-retrying', 'true');
  await expect(firstRow).toContainText(/Retrying at \d\d:\d\d \(attempt \d+\)/);
  await expect(firstRow).toContainText('storage unavailable');
  await expect(page.getByTestId('queue-percent')).toHaveText('0%');
  await expect(page.getByTestId('queue-state')).toHaveText('Waiting for storage');
  // Uploads are waiting, not done: the computer is still kept awake for them.
  await expect(page.getByTestId('kept-awake')).toBeVisible();
  await expectAccessible(page, 'main.upload');
  await shots(page, info, '14-card-storage-down', () => scrollToTop(page, 'section.queue'));

  // Storage is back; one click sends everything now instead of at each file's retry time.
  await h.svc.admin('DELETE', '/faults');
  await act(() => page.getByRole('button', { name: 'Retry all now' }).click());
  await expect(counts).toHaveText('200 completed · 0 uploading · 0 queued · 0 waiting to retry · 0 need you', {
    timeout: 120_000,
  });
  await expect(page.getByTestId('queue-percent')).toHaveText('100%');
  // The card's recordings are random bytes, not videos: each capture carries the intake's warning to the finish.
  await expect(page.getByTestId('queue-state')).toHaveText('All 200 files uploaded, 100 captures with warnings');
  await expect(page.getByRole('progressbar', { name: 'Progress of this batch' })).toHaveAttribute('value', '100');
  const total = queueOf()
    .allFiles()
    .reduce((n, f) => n + f.size, 0);
  await expect(page.getByTestId('queue-summary')).toHaveText(
    `200 of 200 files completed · ${formatBytes(total)} of ${formatBytes(total)}`,
  );
  await expect(page.getByTestId('kept-awake')).toBeHidden();
  await shots(page, info, '15-card-uploaded', () => scrollToTop(page, 'section.queue'));

  // Every byte arrived: each of the 200 stored objects has its file's SHA-256.
  const onDisk = new Map(
    queueOf()
      .allFiles()
      .map((f) => [f.fileName, sha256(readFileSync(f.path))]),
  );
  expect(onDisk.size).toBe(200);
  await expectStoredByteIdentical(h, onDisk, 200);
});

test('shift-click selects a range, and the next card carries the last place over only when asked', async ({
  page,
}, info) => {
  await setUpLocal(page);
  writeCard(join(work, 'first'), [{ start: new Date(2026, 10, 21, 9, 0, 0), count: 2, stepS: 60 }]);
  await h.drop([join(work, 'first')]);
  expect(await registerAll(page, 'Tower B · Level 2', 2)).toBe('2 captures in Tower B · Level 2 (interior).');

  writeCard(join(work, 'second'), [{ start: new Date(2026, 10, 22, 9, 0, 0), count: 5, stepS: 60 }], 10);
  await h.drop([join(work, 'second')]);
  const rows = page.getByTestId('capture-row');
  await expect(rows).toHaveCount(5);
  // The first card was registered whole: the list now holds the second card alone.
  await expect(page.getByLabel('Not uploaded').locator('summary')).toHaveText('Not uploaded: 5 previews (LRV)');
  // Offered, not applied: every row still waits for a choice.
  await expect(page.getByText('Not chosen')).toHaveCount(5);
  await rows.nth(1).getByRole('checkbox').click();
  await rows
    .nth(3)
    .getByRole('checkbox')
    .click({ modifiers: ['Shift'] });
  await expect(applyBar(page).getByRole('button', { name: 'Apply to 3 selected' })).toBeVisible();
  await page.getByRole('button', { name: 'Use Tower B · Level 2 (interior) as last time' }).click();
  await expect(rows.nth(0)).toContainText('Not chosen');
  for (const i of [1, 2, 3]) await expect(rows.nth(i)).toContainText('Tower B · Level 2');
  await expect(rows.nth(4)).toContainText('Not chosen');
  await shots(page, info, '16-carry-over');
  expect(await registerAndConfirm(page, 3)).toBe('3 captures in Tower B · Level 2 (interior).');
  // The two left without a place stay in the list; nothing was sent for them.
  await expect(rows).toHaveCount(2);
  expect(queueOf().captures()).toHaveLength(5);
});

test.describe('in Berlin', () => {
  test.use({ timezoneId: 'Europe/Berlin' });

  test('the capture time is edited in local time beside its UTC offset and sent as ISO 8601 with that zone', async ({
    page,
  }, info) => {
    await setUpLocal(page);
    const file = join(work, 'walk.mp4');
    writeFileSync(file, randomBytes(3000));
    await h.drop([file]);
    const row = page.getByTestId('capture-row');
    await row.getByRole('button', { name: /^Capture time/ }).click();
    const input = page.getByLabel('Capture time (local)');
    await input.fill('2026-11-22T09:30:15');
    await expect(page.getByTestId('utc-offset')).toHaveText('UTC+01:00');
    await expect(page.getByText('sent as 2026-11-22T09:30:15+01:00')).toBeVisible();
    await expect(row).toContainText('09:30:15');
    // The site walk is told by the time as corrected, not as read from the file.
    await expect(page.getByRole('rowgroup', { name: 'Site walk 1' }).locator('.walk-head')).toContainText('22 Nov');
    await expectAccessible(page, '.drafts');
    await shots(page, info, '17-time-editor');
    await page.getByRole('checkbox', { name: /^Select walk\.mp4/ }).check();
    await applyToSelected(page, 'Tower A · Level 2', 'Exterior');
    await registerAndConfirm(page, 1);
    await expect
      .poll(() =>
        Object.values(h.svc.store.state.captures).map(
          (c) => (c.request as { captureDateTime: string }).captureDateTime,
        ),
      )
      .toEqual(['2026-11-22T09:30:15+01:00']);
  });
});

test('first run: the local service is the second choice; structures and designs come from the office file, with the bad line named', async ({
  page,
}, info) => {
  await page.setViewportSize(SIZES.large);
  await page.goto('/');
  const buttons = page.getByRole('main').getByRole('button');
  await expect(buttons.first()).not.toHaveText('Use the local test service');
  await expect(buttons.last()).toHaveText('Use the local test service');
  const { info: s } = h.svc;
  await fillAccountForm(page, s, s.account.password);

  const ids = structureIds();
  const importFile = page.getByLabel('Import from the office’s file (.csv or .json)');
  const header = 'structure_id,structure_name,design_id,design_name';
  await importFile.setInputFiles({
    name: 'office.csv',
    mimeType: 'text/csv',
    buffer: Buffer.from(
      `${header}\n${ids.towerA},Tower A,${ids.towerA2},Level 2\n${ids.towerB},Tower B,${ids.towerB1}\n`,
    ),
  });
  await expect(page.getByRole('alert')).toHaveText(
    'office.csv: Line 3: Too few fields: expected 4 fields but parsed 3.',
  );
  await expect(page.getByLabel('Structure id')).toHaveCount(0); // a file with a bad line changes nothing
  await shots(page, info, '18-settings-import-error', () => scrollToTop(page, '.structures'));
  await importFile.setInputFiles({
    name: 'office.csv',
    mimeType: 'text/csv',
    buffer: Buffer.from(
      `${header}\n${ids.towerA},Tower A,${ids.towerA2},Level 2\n${ids.towerB},Tower B,${ids.towerB1},\n`,
    ),
  });
  await expect(page.getByRole('alert')).toHaveText(
    'office.csv: Line 3: a design needs both design_id and design_name (or leave both empty).',
  );
  await importFile.setInputFiles({
    name: 'office.csv',
    mimeType: 'text/csv',
    buffer: Buffer.from(
      `${header}\n${ids.towerA},Tower A,${ids.towerA2},Level 2\n${ids.towerB},Tower B,${ids.towerB1},Level 1\n`,
    ),
  });
  await expect(page.getByTestId('catalog-result')).toHaveText(
    'Imported 2 structures and 2 designs from office.csv. Save to keep them.',
  );
  await expect(page.getByLabel('Structure name')).toHaveCount(2);
  await expectAccessible(page, 'main.settings');
  await shots(page, info, '19-settings-imported', () => scrollToTop(page, '.structures'));

  await page.getByRole('button', { name: 'Save and sign in' }).click();
  await expect(page.getByText('Drop Insta360 recordings here')).toBeVisible();
  expect(h.settings.view().structures).toEqual([
    { id: ids.towerA, name: 'Tower A', designs: [{ id: ids.towerA2, name: 'Level 2' }] },
    { id: ids.towerB, name: 'Tower B', designs: [{ id: ids.towerB1, name: 'Level 1' }] },
  ]);
  // The drop zone takes focus, and the keyboard opens the file dialog.
  const file = join(work, 'keyboard.mp4');
  writeFileSync(file, randomBytes(1000));
  h.pickResult = [file];
  await page.getByTestId('dropzone').focus();
  await page.keyboard.press('Enter');
  await expect(page.getByTestId('capture-row')).toContainText('keyboard.mp4');
  await expect(applyBar(page).getByLabel('Structure · design').locator('option')).toHaveText([
    'Choose…',
    'Tower A · Level 2',
    'Tower B · Level 1',
  ]);
});

test('a new structure never keeps the type chosen for another silently: its own last type, said as such, or "Choose…"', async ({
  page,
}) => {
  await setUpLocal(page);
  writeCard(join(work, 'first'), [{ start: new Date(2026, 10, 21, 9, 0, 0), count: 2, stepS: 60 }]);
  await h.drop([join(work, 'first')]);
  // Tower B gets a remembered type: exterior.
  expect(await registerAll(page, 'Tower B · Level 2', 2, 'Exterior')).toBe(
    '2 captures in Tower B · Level 2 (exterior).',
  );
  writeCard(join(work, 'second'), [{ start: new Date(2026, 10, 22, 9, 0, 0), count: 2, stepS: 60 }], 10);
  await h.drop([join(work, 'second')]);
  await expect(page.getByTestId('capture-row')).toHaveCount(2);
  const bar = applyBar(page);
  const type = bar.getByLabel('Type');
  await bar.getByLabel('Structure · design').selectOption({ label: 'Tower A · Level 2' });
  await expect(type).toHaveValue('');
  await type.selectOption({ label: 'Interior' });
  // Tower B: its own last type, said as such, not Tower A's interior.
  await bar.getByLabel('Structure · design').selectOption({ label: 'Tower B · Level 1' });
  await expect(type).toHaveValue('exterior');
  await expect(type.locator('option:checked')).toHaveText('Exterior (last used here)');
  // Back to Tower A, which has none: "Choose…", not Tower B's exterior.
  await bar.getByLabel('Structure · design').selectOption({ label: 'Tower A · Level 2' });
  await expect(type).toHaveValue('');
});
