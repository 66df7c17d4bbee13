import type { Page } from '@playwright/test';
import { expect, test } from '@playwright/test';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { violations } from './axe.js';
import { AppHarness } from './harness.js';
import { SIZES, shots } from './shots.js';

// The queue as the operator reads it at the smallest window: one line per capture,
// its files folded inside, captures at work first, completed ones folded by batch, at least six
// captures in view at 820×560, a capture moved to the front and back; the registration heading
// never under the sticky bar, and the designs' warning one line until opened.
const ORIGIN = `http://127.0.0.1:${process.env.E2E_PORT ?? 4173}`;

let h: AppHarness;
let work: string;
test.beforeEach(async ({ page }) => {
  work = mkdtempSync(join(tmpdir(), 'queue-rows-e2e-'));
  h = await AppHarness.start(page, ORIGIN, { foldedQueue: true });
  await h.invoke('capture:settings.useLocalService');
  await page.goto('/');
  await expect(page.getByRole('heading', { name: 'Queue' })).toBeVisible();
});
test.afterEach(async () => {
  await h.stop();
  rmSync(work, { recursive: true, force: true });
});
test.describe.configure({ timeout: 120_000 });

/** Queues one capture of one file through the app core, as the registration screen does. */
async function register(name: string, size = 64 * 1024) {
  const [tower] = h.settings.view().structures;
  const file = join(work, name);
  writeFileSync(file, randomBytes(size));
  await h.invoke('capture:captures.register', [
    { paths: [file], structure: tower!.id, type: 'interior', capturedAt: '2026-11-22T08:00:00+01:00' },
  ]);
}

const captureRow = (page: Page, label: string) =>
  page.locator(`[data-testid="queue-capture"][data-capture="${label}"]`);
const showList = () => h.page.locator('.queue-list').evaluate((el) => el.scrollIntoView({ block: 'start' }));
/** The capture rows wholly inside the window. */
const capturesInView = (page: Page) =>
  page.locator('[data-testid="queue-capture"]').evaluateAll(
    (rows) =>
      rows.filter((r) => {
        const b = r.getBoundingClientRect();
        return b.top >= 0 && b.bottom <= window.innerHeight;
      }).length,
  );

test('one line per capture at 820×560: files behind a disclosure, completed ones folded by batch, six in view; a capture moved to the front goes first', async ({
  page,
}, info) => {
  // Two captures uploaded (one batch: same structure, same day), then eight held back by "Pause until".
  for (const name of ['done-1.mp4', 'done-2.mp4']) await register(name);
  await expect(page.getByTestId('queue-batch')).toHaveAttribute('data-captures', '2', { timeout: 20_000 });
  await h.invoke('capture:queue.pauseUntil', { until: new Date(Date.now() + 3600_000).toISOString() });
  const names = Array.from({ length: 8 }, (_, i) => `floor-${i + 1}-walk-with-a-long-name-from-the-camera.mp4`);
  for (const name of names) await register(name);
  await expect(page.locator('[data-testid="queue-capture"][data-state="registered"]')).toHaveCount(8, {
    timeout: 20_000,
  });

  await page.setViewportSize(SIZES.small);
  await showList();
  // Captures at work first, in queue order; the completed batch after them, folded; no file rows.
  expect(
    await page
      .locator('[data-testid="queue-capture"]')
      .evaluateAll((r) => r.map((e) => e.getAttribute('data-capture'))),
  ).toEqual(names);
  await expect(page.getByTestId('file-row')).toHaveCount(0);
  expect(await capturesInView(page)).toBeGreaterThanOrEqual(6);
  // The full name on hover and in the accessible label, however short the row cuts it.
  const first = captureRow(page, names[0]!);
  await expect(first.locator('.name')).toHaveAttribute('title', new RegExp(`^${names[0]!.replace(/\./g, '\\.')} · `));
  await expect(first).toHaveAttribute('aria-label', new RegExp(`^${names[0]!.replace(/\./g, '\\.')} · Tower A`));

  // Files on demand.
  const disclosure = first.getByRole('button', { name: `Files of ${names[0]} (1)` });
  await expect(disclosure).toHaveAttribute('aria-expanded', 'false');
  await disclosure.click();
  await expect(disclosure).toHaveAttribute('aria-expanded', 'true');
  await expect(page.locator(`[data-testid="file-row"][data-file="${names[0]}"]`)).toBeVisible();
  await disclosure.click();
  await expect(page.getByTestId('file-row')).toHaveCount(0);

  // The completed batch opens into its captures.
  const batch = page.getByTestId('queue-batch');
  await batch.getByRole('button').click();
  await expect(batch.getByRole('button')).toHaveAttribute('aria-expanded', 'true');
  await expect(captureRow(page, 'done-1.mp4')).toBeAttached();
  await batch.getByRole('button').click();
  await expect(captureRow(page, 'done-1.mp4')).toHaveCount(0);
  await shots(page, info, 'queue-rows', showList);
  await page.setViewportSize(SIZES.small);
  await showList();
  expect(await violations(page)).toEqual({});

  // "The site manager needs floor 8 first": to the front, back, and to the front again.
  const last = names[7]!;
  await captureRow(page, last)
    .getByRole('button', { name: `Move ${last} to the front of the queue` })
    .click();
  await expect(page.locator('[data-testid="queue-capture"]').first()).toHaveAttribute('data-capture', last);
  await page.getByRole('button', { name: `Move ${last} back to its place in the queue` }).click();
  await expect(page.locator('[data-testid="queue-capture"]').first()).toHaveAttribute('data-capture', names[0]!);
  await expect(page.locator('[data-testid="queue-capture"]').last()).toHaveAttribute('data-capture', last);
  await captureRow(page, last)
    .getByRole('button', { name: `Move ${last} to the front of the queue` })
    .click();
  await expect(page.locator('[data-testid="queue-capture"]').first()).toHaveAttribute('data-capture', last);
  await shots(page, info, 'queue-front', showList);
  expect(h.queue().captures()[0]!.label).toBe(last);

  // The hold ends: floor 8's part goes in the first round of the four request slots, ahead of
  // floors 4 to 7 (by age it would be in the last). Within the round, which PUT storage sees
  // first depends on which presign answered first: under load another file's can overtake it
  // (a full run saw floors 1 and 2 first). main/engine/front.test.ts has the exact order.
  const from = h.svc.storage.received.length;
  await h.invoke('capture:queue.pauseUntil', { until: null });
  // The eight were added once the first two were done: a batch of their own (docs/progress-batch.md).
  await expect(page.getByTestId('queue-state')).toContainText(/^All 8 files uploaded, 8 captures with warnings/, {
    timeout: 60_000,
  });
  await expect(page.getByTestId('queue-earlier')).toHaveText('Earlier: 2 files uploaded');
  const keyOf = new Map(
    h
      .queue()
      .allFiles()
      .map((f) => [h.svc.store.state.uploads[f.uploadId!]!.key, f.fileName]),
  );
  const puts = h.svc.storage.received
    .slice(from)
    .filter((r) => r.operation === 'UploadPart')
    .map((r) => keyOf.get(r.key!));
  expect(puts).toHaveLength(8);
  expect(puts.slice(0, 4)).toContain(last);
});

test('at 200 % zoom (a 1920×1080 window shown as 960×540 CSS px) the queue list, scrolled to, takes the whole height under the top bar', async ({
  page,
}, info) => {
  await h.invoke('capture:queue.pauseUntil', { until: new Date(Date.now() + 3600_000).toISOString() });
  for (let i = 1; i <= 10; i++) await register(`zoom-${i}.mp4`);
  await expect(page.locator('[data-testid="queue-capture"]')).toHaveCount(10, { timeout: 20_000 });
  await page.setViewportSize({ width: 960, height: 540 });
  await showList();
  const box = await page.locator('.queue-list').evaluate((el) => {
    const r = el.getBoundingClientRect();
    const screen = document.querySelector('.screen')!.getBoundingClientRect();
    return { top: r.top, bottom: r.bottom, screenTop: screen.top, screenBottom: screen.bottom };
  });
  // Scrolled to, the list fills the scrolling area under the top bar (above the messages bar), not a 300 px box.
  expect(box.top).toBeLessThanOrEqual(box.screenTop + 2);
  expect(box.bottom).toBeGreaterThanOrEqual(box.screenBottom - 2);
  await page.screenshot({ path: info.outputPath('queue-zoom-200.png') });
});

test("the registration heading is never under the sticky bar, and the designs' warning is one line until opened", async ({
  page,
}, info) => {
  const design = h.svc.store.state.projects[0]!.structures[0]!.designs[0]!;
  await h.svc.admin('POST', `/projects/${h.svc.info.projectId}/designs/${design.id}/touch`);
  const card = join(work, 'card');
  mkdirSync(card);
  for (let i = 1; i <= 3; i++)
    for (const lens of ['00', '10'])
      writeFileSync(join(card, `VID_20261122_08${10 + i}00_${lens}_00${i}.insv`), randomBytes(4096));
  await page.setViewportSize(SIZES.small);
  await page.reload();
  await h.drop([card]);
  const heading = page.getByRole('heading', { name: /^New captures/ });
  await expect(heading).toBeVisible();

  const banner = page.getByTestId('design-banner');
  await expect(banner).toContainText('the capture sheets were never exported from this computer');
  const line = await banner.locator('.banner-text').evaluate((el) => parseFloat(getComputedStyle(el).lineHeight) || 20);
  const folded = (await banner.boundingBox())!.height;
  // One line of text, with the buttons beside it (their padding and the banner's): not 100 px.
  expect(folded).toBeLessThanOrEqual(Math.max(line, 30) + 14);
  await banner.getByRole('button', { name: 'The whole message about the changed designs' }).click();
  await expect(banner.getByRole('button', { name: 'The whole message about the changed designs' })).toHaveAttribute(
    'aria-expanded',
    'true',
  );
  expect((await banner.boundingBox())!.height).toBeGreaterThan(folded);
  await banner.getByRole('button', { name: 'The whole message about the changed designs' }).click();

  /** Whether the heading's own text is what the window shows at its centre. */
  const headingOnTop = () =>
    heading.evaluate((el) => {
      const b = el.getBoundingClientRect();
      const hit = document.elementFromPoint(b.left + Math.min(b.width, 120) / 2, b.top + b.height / 2);
      return hit !== null && el.contains(hit);
    });
  await heading.scrollIntoViewIfNeeded();
  expect(await headingOnTop()).toBe(true);
  // A shadow is painted, not hit: the heading's text must also end above what the bar's white
  // shadow paints over (its vertical offset upwards), or its lower part is hidden.
  const { headingBottom, shadowTop } = await page.evaluate(() => {
    const hb = document.querySelector('#drafts-title')!.getBoundingClientRect();
    const bar = document.querySelector('.apply-bar')!;
    // Computed as "rgb(255, 255, 255) 0px -16px 0px 0px": x, y, blur, spread.
    const offsetY =
      parseFloat(
        getComputedStyle(bar)
          .boxShadow.replace(/rgba?\([^)]*\)/, '')
          .trim()
          .split(/\s+/)[1] ?? '0',
      ) || 0;
    return { headingBottom: hb.bottom, shadowTop: bar.getBoundingClientRect().top + Math.min(0, offsetY) };
  });
  expect(headingBottom).toBeLessThanOrEqual(shadowTop);
  // Scrolled so the heading is just above the stuck bar: still not covered while it shows.
  for (const by of [4, 8, 12]) {
    await page.locator('main.upload').evaluate((el, y) => el.scrollBy(0, y), by);
    const box = (await heading.boundingBox())!;
    const bar = (await page.locator('.apply-bar').boundingBox())!;
    if (box.y + box.height <= bar.y - 16) expect(await headingOnTop()).toBe(true);
  }
  await shots(page, info, 'register-heading-banner');
  expect(await violations(page)).toEqual({});
});

test('a storage outage in the folded queue at 820×560: the headline says so, each capture in one line', async ({
  page,
}, info) => {
  await h.svc.admin('POST', '/faults', {
    target: 'storage',
    operation: 'UploadPart',
    times: 0,
    action: { type: 'status', status: 503 },
  });
  for (const name of ['level-1.mp4', 'level-2.mp4', 'level-3.mp4']) await register(name, 256 * 1024);
  await expect(page.getByTestId('queue-state')).toHaveText('Waiting for storage', { timeout: 15_000 });
  await expect(page.getByTestId('queue-state-detail')).toContainText('nothing lost');
  await expect(page.getByTestId('queue-capture')).toHaveCount(3);
  await expect(page.getByTestId('file-row')).toHaveCount(0);
  await shots(page, info, 'queue-outage', () =>
    page.locator('section.queue').evaluate((el) => el.scrollIntoView({ block: 'start' })),
  );
  await page.setViewportSize(SIZES.small);
  await showList();
  expect(await violations(page)).toEqual({});
  await h.svc.admin('DELETE', '/faults');
});
