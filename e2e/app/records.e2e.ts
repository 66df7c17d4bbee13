import type { Page } from '@playwright/test';
import { expect, test } from '@playwright/test';
import type { LegendAsset, LegendStage } from '../../shared/asset-stages.js';
import { contrast } from './contrast.js';
import {
  DRAWING_BACKGROUND,
  LIGHT_PALETTE,
  MUTED,
  fractionColourIn,
} from '../../renderer/src/components/records/palette.js';
import { polylineLength, progressFraction, reachedStage, stageTotals } from '../../shared/asset-stages.js';
import { localDate } from '../../shared/when.js';
import { chooseLocalService, useApp } from './harness.js';
import { localDay } from './local-time.js';
import { openProgressTab } from './records-steps.js';

/** `#rrggbb` as the browser computes it, `rgb(r, g, b)`. */
const rgbOf = (hex: string) => `rgb(${[1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16)).join(', ')})`;

// The office workspace in Debian's Chromium over the real app core and the local service's
// progress interface.
// Dates on the page are in the office's one format (shared/when.ts) for this locale.
test.use({ locale: 'en-GB' });

const app = useApp('app-records', { setUp: 'none' });

async function setUpLocal(page: Page) {
  await chooseLocalService(page);
  // Choosing the local service is said by the top bar's badge, not by a message.
  await expect(page.getByText('Local test service')).toBeVisible();
  await expect(page.getByTestId('notices')).toHaveCount(0);
}

test('records a progress entry, sees it on the calendar and opens it by id', async ({ page }, info) => {
  await setUpLocal(page);
  await page.getByRole('tab', { name: 'Upload' }).focus();
  await page.keyboard.press('ArrowRight'); // tabs move with the arrow keys
  await expect(page.getByRole('tab', { name: 'Progress' })).toHaveAttribute('aria-selected', 'true');
  await expect(page.getByTestId('progress-as-of')).toContainText('as of');

  const today = localDay();
  const todayCell = page.locator(`[data-day="${today}"]`);
  await expect(todayCell).toHaveAttribute('aria-current', 'date');
  // The form starts on today, refuses empty details at the field, and sends once.
  const form = page.getByRole('region', { name: 'Record progress' });
  await expect(form.getByLabel('Date')).toHaveValue(today);
  const before = app.h.svc.store.state.progress.length;
  await form.getByRole('button', { name: 'Record entry' }).click();
  await expect(form.getByLabel('Details')).toHaveAttribute('aria-invalid', 'true');
  await expect(form).toContainText('Say what was done.');
  expect(app.h.svc.store.state.progress).toHaveLength(before);
  await form.screenshot({ path: info.outputPath('20-progress-form-error.png') });
  await form.getByLabel('Status').selectOption('Completed');
  await form.getByLabel('Details').fill('Tower A level 4 curtain wall anchors complete.\nNorth face checked.');
  await form.getByRole('button', { name: 'Record entry' }).click();
  await expect(form).toContainText(/Recorded [0-9a-f]{24} for /);

  const recorded = app.h.svc.store.state.progress.filter((p) => p.details.startsWith('Tower A level 4'));
  expect(recorded).toEqual([
    {
      id: expect.any(String),
      projectId: app.h.svc.info.projectId,
      date: today,
      status: 'Completed',
      details: 'Tower A level 4 curtain wall anchors complete.\nNorth face checked.',
    },
  ]);
  await expect(todayCell).toHaveAccessibleName(`${today}: 1 Completed`);
  const day = page.getByTestId('day-view');
  await expect(day.getByTestId('entry')).toHaveCount(1);
  await day.getByRole('button', { name: recorded[0]!.id }).click();
  await expect(page.getByTestId('entry-detail')).toContainText('North face checked.');
  await page.screenshot({ path: info.outputPath('20-progress-recorded.png'), fullPage: true });

  // A seeded day with entries of both kinds or several: its cell counts them by status, the day
  // view lists them, and the search (case-insensitive) narrows them to one's words.
  const seeded = app.h.svc.store.state.progress.filter((p) => p.date < today);
  const busy = [...new Set(seeded.map((p) => p.date))]
    .reverse()
    .find((d) => seeded.filter((p) => p.date === d).length > 1)!;
  const onBusy = seeded.filter((p) => p.date === busy);
  const monthsBack =
    (Number(today.slice(0, 4)) - Number(busy.slice(0, 4))) * 12 + Number(today.slice(5, 7)) - Number(busy.slice(5, 7));
  for (let i = 0; i < monthsBack; i++) await page.getByRole('button', { name: 'Previous month' }).click();
  const counts = (list: typeof onBusy) =>
    (['In Progress', 'Completed'] as const)
      .map((st) => [list.filter((p) => p.status === st).length, st] as const)
      .filter(([n]) => n > 0)
      .map(([n, st]) => `${n} ${st}`)
      .join(', ');
  await expect(page.locator(`[data-day="${busy}"]`)).toHaveAccessibleName(`${busy}: ${counts(onBusy)}`);
  await page.locator(`[data-day="${busy}"]`).click();
  await expect(day.getByTestId('entry')).toHaveText(
    onBusy.map((p) => new RegExp(`${p.status}\\s*${escape(p.details)}`)),
  );
  await page.screenshot({ path: info.outputPath('20-progress-day-view.png'), fullPage: true });
  await page.getByLabel('Search details').fill(onBusy[0]!.details.toUpperCase());
  const found = onBusy.filter((p) => p.details === onBusy[0]!.details);
  await expect(day.getByTestId('entry')).toHaveCount(found.length);
  await expect(page.locator(`[data-day="${busy}"]`)).toHaveAccessibleName(`${busy}: ${counts(found)}`);
});

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

test('an entry recorded while the service cannot be reached waits, and is sent once when it is back', async ({
  page,
}, info) => {
  await setUpLocal(page);
  await openProgressTab(page);
  // Every progress request has its connection cut: the workspace shows what it kept.
  await app.h.svc.admin('POST', '/faults', { target: 'progress', action: { type: 'reset' }, times: 0 });
  await page.getByRole('button', { name: 'Refresh' }).click();
  await expect(page.getByTestId('progress-as-of')).toHaveText(
    /^No connection to the progress service: showing the copy from \d{1,2}:\d\d( [AP]M)?/,
  );
  await expect(page.locator('[data-day].has-entries').first()).toBeVisible();

  const details = 'Tower B level 2 ductwork hangers installed along gridlines 3–6.';
  const form = page.getByRole('region', { name: 'Record progress' });
  await form.getByLabel('Details').fill(details);
  await form.getByRole('button', { name: 'Record entry' }).click();
  await expect(form).toContainText('is kept on this computer and sent when it is back');
  const outbox = page.getByTestId('outbox');
  await expect(outbox.getByTestId('outbox-item')).toHaveCount(1);
  await expect(outbox.getByTestId('outbox-item')).toContainText(
    `Waiting${'In Progress'}${localDate(localDay(), { locale: 'en-GB' })}${details}`,
  );
  await expect(page.getByTestId('day-view').getByTestId('waiting-entry')).toContainText('Waiting to be sent');
  expect(app.h.svc.store.state.progress.filter((p) => p.details === details)).toEqual([]);
  await page.screenshot({ path: info.outputPath('22-progress-offline.png'), fullPage: true });

  await app.h.svc.admin('DELETE', '/faults');
  await page.getByRole('button', { name: 'Refresh' }).click();
  await expect(page.getByTestId('progress-as-of')).toContainText('Up to date as of');
  await expect(page.getByTestId('outbox')).toHaveCount(0);
  await expect(page.getByTestId('day-view').getByTestId('entry').filter({ hasText: details })).toHaveCount(1);
  expect(app.h.svc.store.state.progress.filter((p) => p.details === details)).toEqual([
    { id: expect.any(String), projectId: app.h.svc.info.projectId, date: localDay(), status: 'In Progress', details },
  ]);
  await page.screenshot({ path: info.outputPath('23-progress-sent.png'), fullPage: true });
});

test("draws a structure's assets coloured by stage, with the legend's figures and a table", async ({ page }, info) => {
  await setUpLocal(page);
  await page.getByRole('tab', { name: 'Assets' }).click();
  const structureName = app.h.settings.view().structures[0]!.name;
  await page.getByLabel('Structure').selectOption({ label: structureName });
  await page.getByLabel('Category').selectOption({ label: 'Curtain Wall' });
  // What the seed holds for this structure's curtain wall.
  const structureId = app.h.settings.view().structures[0]!.id;
  const category = (
    app.h.svc.store.state.assetCategories as { id: string; name: string; stages: LegendStage[] }[]
  ).find((c) => c.name === 'Curtain Wall')!;
  const held = app.h.svc.store.state.assets.filter(
    (a) => a.structure === structureId && a.category === category.id,
  ) as unknown as (LegendAsset & { _id: string; stages: { _id: string; percentage: number; date: string }[] })[];
  const lines = page.getByTestId('asset-line');
  await expect(lines).toHaveCount(held.length);
  // Each line is coloured by the stage it reached, muted when not tracked.
  const strokes = await lines.evaluateAll((ls) =>
    Object.fromEntries(ls.map((l) => [l.getAttribute('data-asset'), l.getAttribute('stroke')])),
  );
  // Each line is coloured by how far it got (all stages together) on cividis: a sequential palette
  // whose lightness follows the fraction, so greyscale keeps the order, finished work the
  // strongest against the drawing.
  for (const a of held)
    expect(strokes[a._id]).toBe(
      a.doNotTrack ? MUTED : fractionColourIn(LIGHT_PALETTE, progressFraction(category.stages, a)),
    );
  const strength = (rgb: string) => contrast(rgb, DRAWING_BACKGROUND);
  const byFraction = held
    .filter((a) => !a.doNotTrack)
    .sort((x, y) => progressFraction(category.stages, x) - progressFraction(category.stages, y));
  const [least, most] = [byFraction[0]!, byFraction.at(-1)!];
  expect(progressFraction(category.stages, most)).toBeGreaterThan(progressFraction(category.stages, least));
  expect(strength(strokes[most._id]!)).toBeGreaterThan(strength(strokes[least._id]!) * 1.5);
  const key = page.getByTestId('colour-key');
  await expect(key).toContainText('0%');
  await expect(key).toContainText('100%');
  await expect(key).toContainText('not tracked');
  const steps = await key
    .locator('[data-fraction] line')
    .evaluateAll((els) => els.map((e) => getComputedStyle(e).stroke));
  expect(steps).toEqual([0, 0.25, 0.5, 0.75, 1].map((f) => fractionColourIn(LIGHT_PALETTE, f)));
  // The background the palette's contrast is measured against (palette.test.ts).
  expect(await page.locator('.asset-drawing').evaluate((e) => getComputedStyle(e).backgroundColor)).toBe(
    rgbOf(DRAWING_BACKGROUND),
  );
  for (let i = 1; i < steps.length; i++) expect(strength(steps[i]!)).toBeGreaterThan(strength(steps[i - 1]!));
  const legend = page.getByTestId('asset-legend');
  // Every state drawn is listed, "Not tracked" included (its lines are outside the figures).
  const untracked = held.filter((a) => a.doNotTrack);
  expect(untracked.length).toBeGreaterThan(0);
  await expect(legend.locator('tbody tr')).toHaveText([
    ...stageTotals(category.stages, held).map(
      (t) =>
        new RegExp(
          `${escape(t.stage?.name ?? 'Not started')}\\s*${t.assets}\\s*${t.length.toFixed(1)} m\\s*${(t.share * 100).toFixed(1)}%`,
        ),
    ),
    new RegExp(
      `Not tracked\\s*${untracked.length}\\s*${untracked.reduce((n, a) => n + polylineLength(a.points), 0).toFixed(1)} m\\s*not counted`,
    ),
  ]);
  // Focus and hover each show an asset's stages with their percentages.
  const tracked = held.filter((a) => !a.doNotTrack && reachedStage(category.stages, a));
  const [first, second] = [tracked[0]!, tracked.at(-1)!];
  await page.locator(`[data-asset="${first._id}"]`).focus();
  const pctOf = (a: typeof first) => Math.round(progressFraction(category.stages, a) * 100);
  await expect(page.getByTestId('asset-focus')).toContainText(
    `Reached: ${reachedStage(category.stages, first)!.name} (${pctOf(first)}% of all stages). ${category.stages[0]!.name} ${first.stages[0]!.percentage}%`,
  );
  // A straight run has a box of zero width or height, which Playwright's hover() calls hidden: the mouse goes to its middle.
  const middle = await page.locator(`[data-asset="${second._id}"]`).evaluate((el) => {
    const r = el.getBoundingClientRect();
    return { x: r.x + r.width / 2, y: r.y + r.height / 2 };
  });
  await page.mouse.move(middle.x, middle.y);
  await expect(page.getByTestId('asset-focus')).toContainText(
    `Reached: ${reachedStage(category.stages, second)!.name} (${pctOf(second)}% of all stages). ${category.stages[0]!.name} ${second.stages[0]!.percentage}%`,
  );
  // Each stage with its percentage, its quantity in its unit (records-assets.e2e.ts checks them) and its day.
  for (const [i, st] of category.stages.entries()) {
    const { percentage, date } = second.stages[i]!;
    const day = percentage > 0 ? ` · ${escape(localDate(date, { locale: 'en-GB' }))}` : '';
    await expect(page.getByTestId('asset-focus')).toContainText(
      new RegExp(`${escape(st.name)} ${percentage}% · [\\d.]+ of [\\d.]+ \\w+${day}(,|\\.)`),
    );
  }
  // Drawn thicker over the drawing, in its overlay (AssetOverlay.tsx).
  await expect(page.getByTestId('asset-highlight')).toHaveAttribute('data-highlight', second._id);
  await expect(page.getByTestId('asset-highlight')).toHaveAttribute('stroke-width', '7');
  await expect(page.getByTestId('asset-table').locator('tbody tr')).toHaveCount(held.length);
  // Names, not ids: the category's name and a number; the id only on hover.
  const names = page.getByTestId('asset-table').getByTestId('asset-name');
  await expect(names).toHaveText(held.map((a, i) => `Curtain Wall ${i + 1}${a.doNotTrack ? ' (not tracked)' : ''}`));
  await expect(names.first()).toHaveAttribute('title', `Asset id ${held[0]!._id}`);
  await expect(page.getByTestId('asset-table')).not.toContainText(held[0]!._id);
  await expect(page.getByTestId('asset-focus')).toContainText(`Curtain Wall ${held.indexOf(second) + 1}. `);
  const download = page.waitForEvent('download');
  await page.getByRole('button', { name: 'Export CSV' }).click();
  const file = await download;
  expect(file.suggestedFilename()).toBe('Curtain-Wall-assets.csv');
  await page.screenshot({ path: info.outputPath('21-assets.png'), fullPage: true });
});

test('pans and zooms the drawing with the wheel, the keyboard and the buttons, and resets it', async ({
  page,
}, info) => {
  await setUpLocal(page);
  await page.getByRole('tab', { name: 'Assets' }).click();
  await page.getByLabel('Structure').selectOption({ label: app.h.settings.view().structures[0]!.name });
  await page.getByLabel('Category').selectOption({ label: 'Drywall Partitions' });
  // Drywall is counted in m2: a wall traced on plan, its area the drawn length times the category's height.
  const drywall = (app.h.svc.store.state.assetCategories as { name: string; height: number }[]).find(
    (c) => c.name === 'Drywall Partitions',
  )!;
  await expect(page.getByTestId('asset-legend').locator('caption')).toHaveText(
    `Assets of Drywall Partitions by the latest stage each has reached, stages in sequence (area in m2: drawn length × height ${drywall.height})`,
  );
  await expect(page.getByTestId('asset-legend').locator('thead')).toContainText('Area');
  const level = page.getByTestId('zoom-level');
  const layer = page.getByTestId('asset-zoom');
  const transform = async () => {
    const t = (await layer.getAttribute('transform')) ?? '';
    const [x, y, k] = /translate\(([-\d.e]+),([-\d.e]+)\) scale\(([-\d.e]+)\)/.exec(t)!.slice(1).map(Number) as [
      number,
      number,
      number,
    ];
    return { x, y, k };
  };
  await expect(level).toHaveText('100%');
  await page.getByRole('button', { name: 'Zoom in' }).click();
  await expect(level).toHaveText('150%');
  await page.keyboard.press('+');
  await expect(level).toHaveText('225%');
  expect((await transform()).k).toBeCloseTo(2.25);
  // An arrow key moves the view the other way (the drawing follows the arrow's direction).
  const before = await transform();
  await page.keyboard.press('ArrowLeft');
  await expect.poll(async () => (await transform()).x).toBeGreaterThan(before.x);
  await page.getByRole('button', { name: 'Pan down' }).click();
  await expect.poll(async () => (await transform()).y).toBeLessThan(before.y);
  // The wheel zooms too (d3-zoom's own gesture handling).
  await page.locator('svg.asset-drawing').hover();
  await page.mouse.wheel(0, -400);
  await expect.poll(async () => (await transform()).k).toBeGreaterThan(2.3);
  await page.screenshot({ path: info.outputPath('24-assets-zoomed.png'), fullPage: false });
  await page.getByRole('button', { name: 'Reset view' }).click();
  await expect(level).toHaveText('100%');
  expect(await transform()).toEqual({ x: 0, y: 0, k: 1 });
});

test('offline with nothing kept, the Assets view says in a sentence that it needs the service once, never a raw error', async ({
  page,
}) => {
  await setUpLocal(page);
  await app.h.svc.admin('POST', '/faults', { target: 'progress', action: { type: 'reset' }, times: 0 });
  await page.getByRole('tab', { name: 'Assets' }).click();
  const alert = page.getByRole('alert');
  await expect(alert).toHaveText('No connection to the progress service; this view needs it once.');
  await expect(page.locator('main')).not.toContainText(/ECONNRESET|127\.0\.0\.1|GET /);
  // Once read, the copy is shown with its time when the service is away again.
  await app.h.svc.admin('DELETE', '/faults');
  await page.getByRole('tab', { name: 'Upload' }).click();
  await page.getByRole('tab', { name: 'Assets' }).click();
  await expect(page.getByLabel('Category').locator('option')).toContainText(['Curtain Wall']);
  await page.getByRole('tab', { name: 'Upload' }).click();
  await app.h.svc.admin('POST', '/faults', { target: 'progress', action: { type: 'reset' }, times: 0 });
  await page.getByRole('tab', { name: 'Assets' }).click();
  await expect(page.getByTestId('assets-as-of')).toHaveText(
    /^No connection to the progress service: showing the copy from \d{1,2}:\d\d( [AP]M)?$/,
  );
});
