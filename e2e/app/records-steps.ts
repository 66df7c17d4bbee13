import type { Locator, Page } from '@playwright/test';
import { expect } from '@playwright/test';
import { captureRequest } from '../../main/testing/kit.js';
import { setFileState } from '../../main/testing/queue-backdoors.js';
import type { AppHarness } from './harness.js';

/**
 * The office workspace's steps as a person takes them, for the browser tests over the local
 * service's progress interface (progress-records-interface.md), and the queue rows its day view
 * reads. Each takes the running page and the test's AppHarness.
 */

/** The "Record progress" form of the Progress workspace. */
const progressForm = (page: Page): Locator => page.getByRole('region', { name: 'Record progress' });

/** Opens the Progress tab and waits for the first read of the entries ("Up to date as of …"). */
export async function openProgressTab(page: Page): Promise<void> {
  await page.getByRole('tab', { name: 'Progress' }).click();
  await expect(page.getByTestId('progress-as-of')).toContainText('Up to date as of');
}

/**
 * Opens the Progress tab, chooses the day of the latest seeded entry (this month or the last),
 * opens that entry, and presses "Record entry" with no details, so the form shows its error
 * ("Say what was done."). Resolves with the form.
 */
export async function openEntryWithFormError(page: Page, h: AppHarness): Promise<Locator> {
  await openProgressTab(page);
  const seeded = h.svc.store.state.progress.at(-1)!;
  if ((await page.locator(`[data-day="${seeded.date}"]`).count()) === 0)
    await page.getByRole('button', { name: 'Previous month' }).click();
  await page.locator(`[data-day="${seeded.date}"]`).click();
  await page.getByTestId('day-view').getByRole('button', { name: seeded.id }).click();
  await expect(page.getByTestId('entry-detail')).toContainText(seeded.details);
  const form = progressForm(page);
  await form.getByRole('button', { name: 'Record entry' }).click();
  await expect(form).toContainText('Say what was done.');
  return form;
}

/**
 * Opens the Progress tab, then makes the progress service answer 503 to every call and records
 * an entry of `details`: it waits in the outbox, and after a Refresh the page says it shows the
 * copy kept. The fault stays on (the test lifts it with `DELETE /faults` where it needs to).
 */
export async function entryWaitingOffline(page: Page, h: AppHarness, details: string): Promise<void> {
  await openProgressTab(page);
  await h.svc.admin('POST', '/faults', { target: 'progress', action: { type: 'status', status: 503 }, times: 0 });
  const form = progressForm(page);
  await form.getByLabel('Details').fill(details);
  await form.getByRole('button', { name: 'Record entry' }).click();
  await expect(page.getByTestId('outbox-item')).toHaveCount(1);
  await page.getByRole('button', { name: 'Refresh' }).click();
  await expect(page.getByTestId('progress-as-of')).toContainText(
    'No connection to the progress service: showing the copy from',
  );
}

/** How the progress service answers a recorded entry once it is back: an HTTP status and a JSON body. */
export interface EntryRefusal {
  /** The HTTP status, e.g. 201 (an answer that says it failed) or 422. */
  status: number;
  /** The JSON body, e.g. `{ success: false, message: 'details too long' }`. */
  body: Record<string, unknown>;
  /** How many recordings it answers so (the faults' `times`; 0: every one). */
  times: number;
}

/**
 * With the Progress workspace read once: the service stops answering (every connection reset),
 * Refresh says so, and an entry of `details` is recorded, kept on this computer. Then the service
 * is back, answering the next recorded entries with `refusal` (nothing is sent until the next
 * Refresh). Resolves with the "Record progress" form.
 */
export async function entryKeptThenRefused(
  page: Page,
  h: AppHarness,
  details: string,
  refusal: EntryRefusal,
): Promise<Locator> {
  await h.svc.admin('POST', '/faults', { target: 'progress', action: { type: 'reset' }, times: 0 });
  await page.getByRole('button', { name: 'Refresh' }).click();
  await expect(page.getByTestId('progress-as-of')).toHaveText(
    /^No connection to the progress service: showing the copy from/,
  );
  const form = progressForm(page);
  await form.getByLabel('Details').fill(details);
  await form.getByRole('button', { name: 'Record entry' }).click();
  await expect(form).toContainText('is kept on this computer');
  await h.svc.admin('DELETE', '/faults');
  await h.svc.admin('POST', '/faults', {
    target: 'progress',
    operation: 'progress',
    method: 'POST',
    action: { type: 'json', status: refusal.status, body: refusal.body },
    times: refusal.times,
  });
  return form;
}

/**
 * Opens the Progress tab and records an entry of `details` while the service cannot be reached;
 * back online, the service refuses it in a 201 that says it failed (`status: false`, "details must
 * name a structure"), and Refresh sends it. Resolves with its outbox item, once it says Refused.
 */
export async function entryRefusedInOutbox(page: Page, h: AppHarness, details: string): Promise<Locator> {
  await openProgressTab(page);
  await entryKeptThenRefused(page, h, details, {
    status: 201,
    body: { status: false, message: 'details must name a structure' },
    times: 1,
  });
  await page.getByRole('button', { name: 'Refresh' }).click();
  const item = page.getByTestId('outbox-item');
  await expect(item).toContainText('Refused');
  return item;
}

/**
 * Opens the Assets tab on the first structure's `category` (default Ductwork), waits for its
 * table, and focuses the first shape: the focus line says what it reached.
 */
export async function assetsDrawn(page: Page, h: AppHarness, category = 'Ductwork'): Promise<void> {
  await page.getByRole('tab', { name: 'Assets' }).click();
  await page.getByLabel('Structure').selectOption({ label: h.settings.view().structures[0]!.name });
  await page.getByLabel('Category').selectOption({ label: category });
  await expect(page.getByTestId('asset-table').locator('tbody tr').first()).toBeVisible();
  await page.getByTestId('asset-line').first().focus();
  await expect(page.getByTestId('asset-focus')).toContainText('Reached');
}

/** How a seeded capture stands in the queue. */
export interface SeededCapture {
  /** The capture's state (default `completed`); a `rejected` one carries "Structure not found". */
  state?: 'completed' | 'rejected';
  /** How many of its two files are uploaded (default 2). */
  uploaded?: number;
}

/**
 * Writes a capture of two files (`<label>-1.insv`, `<label>-2.insv`, 2000 and 2001 bytes, said to
 * be on `/card`) into the app's queue.db, as registered with the first structure of this project
 * and recorded at `at` (ISO 8601, with its offset): what the office's day view lists. The window
 * sees it after a reload. Answers the capture's row id.
 */
export function seedCapture(h: AppHarness, label: string, at: string, seeded: SeededCapture = {}): number {
  const { state = 'completed', uploaded = 2 } = seeded;
  const q = h.queue();
  const files = [1, 2].map((n) => ({ fileName: `${label}-${n}.insv`, contentType: 'video/insv', size: 1999 + n }));
  const request = {
    ...captureRequest(
      at,
      files.map((f, i) => ({ frameIndex: i + 1, ...f })),
    ),
    project: h.svc.info.projectId,
    structure: h.settings.view().structures[0]!.id,
  };
  const onCard = { mtimeMs: 1_700_000_000_000, dev: '1' };
  const row = q.enqueueCapture(
    label,
    request,
    files.map((f) => ({ ...f, ...onCard, path: `/card/${f.fileName}`, ino: f.fileName, fingerprint: f.fileName })),
  );
  q.setCaptureState(row, state, state === 'rejected' ? 'Structure not found' : null);
  q.filesOf(row)
    .slice(0, uploaded)
    .forEach((f) => setFileState(q, f.id, 'completed'));
  return row;
}
