import type { Page } from '@playwright/test';
import { expect, test } from '@playwright/test';
import { randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { violations } from './axe.js';
import { useApp } from './harness.js';
import { controlsCoveredByNotices } from './register-steps.js';
import { SIZES, shots } from './shots.js';

// The queue screen as an operator reads it in the morning: captures with their files nested, the
// whole queue's bar and counts, a capture the service refused corrected and registered again, a
// passing failure waiting to retry, filters, and axe-core on each state.
// Times are asserted in 24-hour form: the page runs under en-GB (the one time format follows the
// locale; e2e/app/time-format.e2e.ts covers a 12-hour locale).
test.use({ locale: 'en-GB' });

const app = useApp('queue-e2e', {
  setUp: 'invoke',
  beforeStop: async (a) => {
    await a.h.svc.admin('DELETE', '/faults');
  },
});

/** Scrolls the upload screen so the queue starts at the top of the window. */
const showQueue = () => app.h.page.locator('section.queue').evaluate((el) => el.scrollIntoView({ block: 'start' }));

/** Queues one capture through the app core, as the registration screen does. */
async function register(name: string, size: number, structure: string, design?: string) {
  const file = join(app.work, name);
  writeFileSync(file, randomBytes(size));
  return app.h.invoke('capture:captures.register', [
    { paths: [file], structure, design, type: 'interior', capturedAt: '2026-11-22T08:00:00+01:00' },
  ]);
}

const captureRow = (page: Page, label: string) =>
  page.locator(`[data-testid="queue-capture"][data-capture="${label}"]`);
const fileRow = (page: Page, name: string) => page.locator(`[data-testid="file-row"][data-file="${name}"]`);

test.describe.configure({ timeout: 120_000 });

test('the queue by capture: overall bar and counts, a refused capture corrected from the queue, a retry waiting, filters; axe finds nothing', async ({
  page,
}, info) => {
  const [tower] = app.h.settings.view().structures;
  await register('done-walk.mp4', 1024 * 1024, tower!.id, tower!.designs[0]!.id);
  await expect(fileRow(page, 'done-walk.mp4')).toHaveAttribute('data-state', 'completed', { timeout: 20_000 });
  await register('refused-walk.mp4', 1024 * 1024, 'structure-from-another-project');
  await expect(page.getByTestId('attention')).toContainText('refused-walk.mp4');
  // Storage answers 503 to every part of this file for now: it waits for its retry, it does not need anyone.
  await app.h.svc.admin('POST', '/faults', {
    target: 'storage',
    operation: 'UploadPart',
    times: 0,
    action: { type: 'status', status: 503 },
  });
  await register('flaky-walk.mp4', 2 * 1024 * 1024, tower!.id);
  await expect(fileRow(page, 'flaky-walk.mp4')).toHaveAttribute('data-retrying', 'true', { timeout: 30_000 });

  await expect(captureRow(page, 'done-walk.mp4')).toContainText(
    `${tower!.name} · ${tower!.designs[0]!.name} · Interior`,
  );
  await expect(captureRow(page, 'done-walk.mp4')).toContainText('1 of 1 file');
  // done-walk finished before the others were added: they are a batch of their own, which starts
  // at 0 % (docs/progress-batch.md); done-walk is folded into one line and still listed.
  await expect(page.getByTestId('queue-counts')).toHaveText(
    '0 completed · 0 uploading · 0 queued · 1 waiting to retry · 1 need you',
  );
  await expect(page.getByTestId('queue-summary')).toContainText('0 of 2 files completed · 0 B of 3.0 MiB');
  await expect(page.getByTestId('queue-percent')).toHaveText('0%');
  await expect(page.getByTestId('queue-earlier')).toHaveText('Earlier: 1 file uploaded');
  await shots(page, info, 'queue-morning', showQueue);
  expect(await violations(page)).toEqual({});

  // Filters: what needs a person, what is done.
  await page.getByRole('button', { name: 'Needs you (1)' }).click();
  await expect(page.getByTestId('queue-capture')).toHaveCount(1);
  await expect(captureRow(page, 'refused-walk.mp4')).toBeVisible();
  await page.getByRole('button', { name: 'Completed (1)' }).click();
  await expect(page.getByTestId('file-row')).toHaveCount(1);
  await expect(fileRow(page, 'done-walk.mp4')).toBeVisible();
  await page.getByRole('button', { name: /^All/ }).click();

  // The refused capture is corrected where it is reported, and registered again.
  const attention = page.getByTestId('attention');
  await attention.getByRole('button', { name: 'Correct and register again' }).click();
  const form = page.getByRole('form', { name: 'Correct refused-walk.mp4' });
  await expect(form.getByText(/Capture time \(UTC[+-]\d\d:\d\d\)/)).toBeVisible();
  await form.getByLabel('Structure').selectOption({ label: tower!.name });
  await form.getByLabel('Design').selectOption({ label: tower!.designs[0]!.name });
  await shots(page, info, 'queue-correcting', showQueue);
  expect(await violations(page)).toEqual({});
  await form.getByRole('button', { name: 'Register again' }).click();
  await expect(captureRow(page, 'refused-walk.mp4')).toHaveAttribute('data-state', 'registered', { timeout: 20_000 });
  await expect(page.getByTestId('attention')).toHaveCount(0);
  const registered = Object.values(app.h.svc.store.state.captures).filter((c) =>
    JSON.stringify(c.request).includes('refused-walk.mp4'),
  );
  expect(registered.map((c) => c.structure)).toEqual([tower!.id]);

  // Storage back: Retry now carries the waiting files on; then the completed captures are cleared.
  await app.h.svc.admin('DELETE', '/faults');
  for (const name of ['flaky-walk.mp4', 'refused-walk.mp4']) {
    // Each file may be between tries (Retry now), or already on its way again by its schedule.
    const tryNow = fileRow(page, name).getByRole('button', { name: 'Retry now' });
    if (await tryNow.isVisible()) await tryNow.click().catch(() => undefined);
    await expect(fileRow(page, name)).toHaveAttribute('data-state', 'completed', { timeout: 60_000 });
  }
  await expect(page.getByTestId('queue-counts')).toHaveText(
    '2 completed · 0 uploading · 0 queued · 0 waiting to retry · 0 need you',
  );
  await expect(page.getByRole('button', { name: 'Completed (3)' })).toBeVisible();
  await page.getByRole('button', { name: 'Clear completed' }).click();
  await expect(page.getByText('Nothing queued yet.')).toBeVisible();

  // The night's story: what happened to each, filtered by a word, saved as text.
  await page.getByText('Activity log').click();
  const lines = page.getByTestId('activity-lines').locator('li');
  await expect(lines.filter({ hasText: 'rejected  refused-walk.mp4' })).toHaveCount(1);
  await expect(lines.filter({ hasText: 'retry-scheduled  flaky-walk.mp4' }).first()).toBeVisible();
  await page.getByLabel('Filter').fill('refused-walk');
  expect(await lines.evaluateAll((li) => li.every((l) => l.textContent!.includes('refused-walk')))).toBe(true);
  expect(await violations(page)).toEqual({});
  const download = page.waitForEvent('download');
  await page.getByRole('button', { name: 'Save as text' }).click();
  const saved = await (await download).path();
  expect(readFileSync(saved, 'utf8')).toMatch(/registered {2}refused-walk\.mp4: Registered as capture/);
});

test('a refusal of the credentials is a message that needs a person: in the bar at the foot, over no control, counted once', async ({
  page,
}, info) => {
  const [tower] = app.h.settings.view().structures;
  await register('first-walk.mp4', 256 * 1024, tower!.id);
  await expect(fileRow(page, 'first-walk.mp4')).toHaveAttribute('data-state', 'completed', { timeout: 20_000 });
  // The project's API key is revoked at the service: the gateway answers 403 "Invalid API key" at
  // the next registration, and the queue stops and says why. (A bare 403 with another message
  // concerns one capture only, so a status fault no longer stands for this.)
  app.h.svc.store.state.projects[0]!.apiKey = 'revoked-by-the-office';
  await register('second-walk.mp4', 256 * 1024, tower!.id);
  const notices = page.getByTestId('notices');
  await expect(notices.getByRole('alert')).toContainText('The service refuses the API key');
  await expect(notices.getByRole('alert')).toHaveCount(1);
  await expect(page.getByTestId('queue-blocked')).toContainText('The service refuses the API key');
  // A stop that waits for a person reads "Needs you", as everywhere else.
  await expect(page.getByTestId('queue-state')).toHaveText('Needs you');
  for (const viewport of Object.values(SIZES)) {
    await page.setViewportSize(viewport);
    await showQueue();
    expect(await controlsCoveredByNotices(page)).toEqual([]);
    // The bar sits below the screen, not over it.
    const [bar, screen] = await Promise.all([notices.boundingBox(), page.locator('.screen').boundingBox()]);
    expect(bar!.y).toBeGreaterThanOrEqual(screen!.y + screen!.height - 1);
  }
  await shots(page, info, 'queue-blocked', showQueue);
  expect(await violations(page)).toEqual({});
  await notices.getByRole('button', { name: 'Dismiss' }).click();
  await expect(notices).toHaveCount(0);
});

test('upload limits: any amount down to 8 KiB/s, a timetable, and pause until a time', async ({ page }, info) => {
  const limit = page.getByLabel('Upload limit');
  await limit.selectOption({ label: 'Custom amount…' });
  await page.getByLabel('Limit amount').fill('4');
  await page.getByRole('button', { name: 'Apply' }).click();
  await expect(page.getByRole('alert')).toContainText('below the lowest limit of 8 KiB/s');
  await page.getByLabel('Limit amount').fill('1.5');
  await page.getByLabel('Limit unit').selectOption({ label: 'Mbit/s' });
  await page.getByRole('button', { name: 'Apply' }).click();
  await expect(page.getByTestId('limit-now')).toHaveText('Now 183.1 KiB/s (1.5 Mbit/s)');
  expect(app.h.settings.view().bandwidthBytesPerSecond).toBe(187_500);

  await limit.selectOption({ label: 'Timetable…' });
  await page.getByLabel('Limit timetable').fill('00:00,64k 23:59,64k');
  await page.getByRole('button', { name: 'Apply' }).click();
  await expect(page.getByTestId('limit-now')).toHaveText('Now 64 KiB/s (0.52 Mbit/s)');
  expect(app.h.settings.view().bandwidthTimetable).toBe('00:00,64k 23:59,64k');
  await shots(page, info, 'queue-limits', showQueue);
  expect(await violations(page)).toEqual({});

  await page.getByLabel('Pause until').fill('06:30');
  await page.getByRole('button', { name: /^Pause all until \d\d:\d\d$/ }).click();
  await expect(page.getByTestId('paused-until')).toContainText(/Paused until (\d+ \w{3} )?06:30/);
  await page.reload();
  await expect(page.getByTestId('paused-until')).toContainText(/Paused until (\d+ \w{3} )?06:30/);
  await page.getByRole('button', { name: 'Resume now' }).click();
  await expect(page.getByTestId('paused-until')).toHaveCount(0);
});
