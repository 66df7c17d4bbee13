import type { Page } from '@playwright/test';
import { expect, test } from '@playwright/test';
import { useApp } from './harness.js';
import type { SeedAsset } from './seed-assets.js';
import { floorPolyline, seededAssets } from './seed-assets.js';

// The Assets view at a real building's size (progress-records-interface.md §2 ExternalAsset):
// a floor of 2,000 polylines of 100 points each, in Chromium over the real app core. The drawing
// is one tab stop whose arrow keys move between the shapes, "n" goes to the next shape not
// finished, and the table is one Tab further. Speed is measured by scripts/bench-assets.ts, not here.
const FLOOR = 2000;
/** The shapes left unfinished (every other one is at 100 % on every stage). */
const UNFINISHED = [6, 1234];

// 200,000 points go from the service through the app core to the page: generous on a loaded machine.
test.setTimeout(180_000);

const app = useApp('app-assets-scale');

/**
 * Replaces the first structure's curtain wall with a floor of FLOOR polylines on a 50 × 40 grid,
 * each a 30-unit zigzag of 100 points, every stage done but for UNFINISHED; shows it.
 */
async function floor(page: Page): Promise<SeedAsset[]> {
  const { structure, category, held, all } = seededAssets(app.h, 'Curtain Wall');
  const template = held[0]!;
  const kept = all.filter((a) => !held.includes(a));
  const shapes: SeedAsset[] = Array.from({ length: FLOOR }, (_, i) => ({
    ...template,
    _id: `floor-${i}`,
    doNotTrack: false,
    points: floorPolyline(i),
    stages: template.stages.map((s, n) => ({ ...s, percentage: UNFINISHED.includes(i) && n === 1 ? 40 : 100 })),
  }));
  all.splice(0, all.length, ...kept, ...shapes);
  await page.getByRole('tab', { name: 'Assets' }).click();
  await page.getByLabel('Structure').selectOption({ label: structure.name });
  await page.getByLabel('Category').selectOption({ label: category.name });
  await expect(page.getByTestId('asset-line')).toHaveCount(FLOOR, { timeout: 120_000 });
  // The table's rows come after the drawing (made in the background): the view is whole with them.
  await expect(page.getByTestId('asset-table').locator('tbody tr')).toHaveCount(FLOOR, { timeout: 120_000 });
  return shapes;
}

/** The element with keyboard focus: its test id, its place among the shapes, or its accessible name. */
const active = (page: Page) =>
  page.evaluate(() => {
    const e = document.activeElement;
    return {
      testid: e?.getAttribute('data-testid') ?? null,
      index: e?.getAttribute('data-index') ?? null,
      label: e?.getAttribute('aria-label') ?? null,
    };
  });

/** Where a point of the plan (its units) is on the screen (CSS pixels), through the drawing's own transform. */
const onScreen = (page: Page, point: { x: number; y: number }) =>
  page.getByTestId('asset-layer').evaluate((layer: SVGGElement, p) => {
    const m = layer.getScreenCTM()!;
    return { x: m.a * p.x + m.c * p.y + m.e, y: m.b * p.x + m.d * p.y + m.f };
  }, point);

test('a floor of 2,000 polylines is drawn, and hovering one shows that shape and no other', async ({ page }) => {
  const shapes = await floor(page);
  // A vertex of shape 777 in screen pixels, through the drawing's own transform.
  const i = 777;
  const at = await onScreen(page, shapes[i]!.points[50]!);
  await page.mouse.move(at.x, at.y);
  await expect(page.getByTestId('asset-focus')).toContainText(`Curtain Wall ${i + 1}. Polyline. Reached:`);
  // Only the hovered shape is drawn as focused: once, thicker, over it.
  const highlight = page.getByTestId('asset-highlight');
  await expect(highlight).toHaveAttribute('data-highlight', `floor-${i}`);
  await expect(highlight).toHaveAttribute('stroke-width', '7');
  // Another shape, on the next row of the grid.
  const j = i + 50;
  const next = await onScreen(page, shapes[j]!.points[50]!);
  await page.mouse.move(next.x, next.y);
  await expect(page.getByTestId('asset-focus')).toContainText(`Curtain Wall ${j + 1}. Polyline. Reached:`);
  await expect(highlight).toHaveAttribute('data-highlight', `floor-${j}`);
  await expect(highlight).toHaveCount(1);
  await expect(page.getByTestId('workspace-failed')).toHaveCount(0);
});

/** Every change made to the shapes' layer (its elements and their attributes) from now on, read by `changes`. */
const watchShapes = (page: Page) =>
  page.getByTestId('asset-layer').evaluate((layer) => {
    const seen: string[] = [];
    new MutationObserver((records) => {
      for (const r of records)
        seen.push(r.type === 'attributes' ? `${r.attributeName}` : `${r.type} of ${(r.target as Element).tagName}`);
    }).observe(layer, { subtree: true, attributes: true, childList: true, characterData: true });
    (window as unknown as { shapeChanges: string[] }).shapeChanges = seen;
  });
const changes = (page: Page) =>
  page.evaluate(() => [...new Set((window as unknown as { shapeChanges: string[] }).shapeChanges)]);

/** The on-screen box of an SVG element's geometry (stroke left out), rounded to the pixel. */
const screenBox = (page: Page, selector: string) =>
  page.locator(selector).evaluate((el) => {
    const r = el.getBoundingClientRect();
    return [r.x, r.y, r.width, r.height].map(Math.round);
  });

test('hover and focus are drawn in the overlay over the shape, at every zoom, and change no shape but the tab stop', async ({
  page,
}) => {
  const shapes = await floor(page);
  await watchShapes(page);
  const i = 777;
  const at = await onScreen(page, shapes[i]!.points[50]!);
  await page.mouse.move(at.x, at.y);
  await expect(page.getByTestId('asset-focus')).toContainText(`Curtain Wall ${i + 1}. Polyline.`);
  const highlight = page.getByTestId('asset-overlay').getByTestId('asset-highlight');
  await expect(highlight).toHaveAttribute('data-highlight', `floor-${i}`);
  // The same points, and on screen exactly over the shape.
  expect(await highlight.getAttribute('points')).toBe(
    await page.locator(`[data-testid="asset-line"][data-asset="floor-${i}"]`).getAttribute('points'),
  );
  expect(await screenBox(page, '[data-testid="asset-highlight"]')).toEqual(
    await screenBox(page, `[data-testid="asset-line"][data-asset="floor-${i}"]`),
  );
  // The keyboard: the tab stop, then the next shape; the ring and the highlight follow it.
  await page.getByRole('button', { name: 'Next not finished' }).focus();
  await page.keyboard.press('Tab');
  await page.keyboard.press('ArrowRight');
  expect((await active(page)).index).toBe(String(i + 1));
  await expect(page.getByTestId('focus-ring')).toHaveAttribute('data-asset', `floor-${i + 1}`);
  await expect(highlight).toHaveAttribute('data-highlight', `floor-${i + 1}`);
  // Hover and focus moved nothing in the shapes' layer but the roving tab stop.
  expect(await changes(page)).toEqual(['tabindex']);
  // Zoomed in (its transform on both layers), the highlight and the ring are still over the shape.
  for (let k = 0; k < 3; k++) await page.getByRole('button', { name: 'Zoom in' }).click();
  await expect(page.getByTestId('zoom-level')).toHaveText('338%');
  await page.locator(`[data-asset="floor-${i + 1}"][data-testid="asset-line"]`).focus();
  for (const over of ['[data-testid="asset-highlight"]', '[data-testid="focus-ring"]'])
    expect(await screenBox(page, over)).toEqual(
      await screenBox(page, `[data-testid="asset-line"][data-asset="floor-${i + 1}"]`),
    );
});

test('the drawing is one tab stop: Tab from it reaches the table in one press', async ({ page }) => {
  await floor(page);
  // One shape in the tab order, the others reached with the arrow keys.
  expect(await page.getByTestId('asset-layer').locator('[tabindex="0"]').count()).toBe(1);
  await page.getByRole('button', { name: 'Next not finished' }).focus();
  await page.keyboard.press('Tab');
  expect((await active(page)).testid).toBe('asset-line');
  await page.keyboard.press('Tab');
  expect(await page.evaluate(() => document.activeElement?.getAttribute('aria-label'))).toBe(
    'Curtain Wall assets, one row each',
  );
  // And back in one Shift+Tab, onto the same shape.
  await page.keyboard.press('Shift+Tab');
  expect((await active(page)).testid).toBe('asset-line');
});

test('arrow keys move between shapes, and "n" and "Next not finished" land on the unfinished ones', async ({
  page,
}) => {
  const shapes = await floor(page);
  await page.getByRole('button', { name: 'Next not finished' }).focus();
  await page.keyboard.press('Tab');
  expect((await active(page)).index).toBe('0');
  await page.keyboard.press('ArrowRight');
  expect(await active(page)).toEqual({
    testid: 'asset-line',
    index: '1',
    label: 'Curtain Wall 2. 100% of all stages, reached ' + (await lastStageName()),
  });
  await expect(page.getByTestId('asset-focus')).toContainText('Curtain Wall 2. Polyline.');
  await page.keyboard.press('ArrowDown');
  expect((await active(page)).index).toBe('2');
  await page.keyboard.press('ArrowLeft');
  await page.keyboard.press('ArrowUp');
  expect((await active(page)).index).toBe('0');
  await page.keyboard.press('End');
  expect((await active(page)).index).toBe(String(FLOOR - 1));
  await expect(page.getByTestId('asset-focus')).toContainText(`Curtain Wall ${FLOOR}. Polyline.`);
  await page.keyboard.press('Home');
  expect((await active(page)).index).toBe('0');

  // "n" goes round the unfinished shapes, whose stages in the service are not all at 100 %.
  for (const want of [...UNFINISHED, UNFINISHED[0]!]) {
    await page.keyboard.press('n');
    expect((await active(page)).index).toBe(String(want));
    expect(shapes[want]!.stages.some((s) => s.percentage < 100)).toBe(true);
    await expect(page.getByTestId('asset-focus')).toContainText(`Curtain Wall ${want + 1}. Polyline.`);
  }
  // The button does the same from the shape last focused.
  await page.getByRole('button', { name: 'Next not finished' }).click();
  expect((await active(page)).index).toBe(String(UNFINISHED[1]));
  await expect(page.getByTestId('asset-focus')).toContainText(`Curtain Wall ${UNFINISHED[1]! + 1}. Polyline.`);
});

/** The name of the curtain wall's last stage in sequence: the one a finished shape has reached. */
async function lastStageName(): Promise<string> {
  const category = (
    app.h.svc.store.state.assetCategories as unknown as { name: string; stages: { name: string; sequence: number }[] }[]
  ).find((c) => c.name === 'Curtain Wall')!;
  return [...category.stages].sort((a, b) => a.sequence - b.sequence).at(-1)!.name;
}
