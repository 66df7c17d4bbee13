import type { Page } from '@playwright/test';
import { expect, test } from '@playwright/test';
import { localDate } from '../../shared/when.js';
import { useApp } from './harness.js';
import type { SeedAsset, SeedStage } from './seed-assets.js';
import { floorPolyline, seededAssets } from './seed-assets.js';

// The asset `shape` and each stage's own unit (progress-records-interface.md §2 ExternalAsset.shape,
// Stage.uom and measurement), in Chromium over the local service's seeded assets:
// polylines, polygons and points, stages counted in ea, m, lf, m2 and m3. The expected figures are
// worked out here from the seed's own numbers, not with the app's code.
const LOCALE = 'en-GB';
test.use({ locale: LOCALE });

const app = useApp('app-records-assets');

/** The category and this structure's assets in it, as the local service holds them. */
const seeded = (name: string) => seededAssets(app.h, name);

async function show(page: Page, structure: string, category: string) {
  await page.getByRole('tab', { name: 'Assets' }).click();
  await page.getByLabel('Structure').selectOption({ label: structure });
  await page.getByLabel('Category').selectOption({ label: category });
  await expect(page.getByTestId('asset-table').locator('tbody tr').first()).toBeVisible();
}

const run = (pts: { x: number; y: number }[]) =>
  pts.slice(1).reduce((n, p, i) => n + Math.hypot(p.x - pts[i]!.x, p.y - pts[i]!.y), 0);
/** The seeded slabs are rectangles on plan: width × depth. */
const rectArea = (pts: { x: number; y: number }[]) =>
  (Math.max(...pts.map((p) => p.x)) - Math.min(...pts.map((p) => p.x))) *
  (Math.max(...pts.map((p) => p.y)) - Math.min(...pts.map((p) => p.y)));
/** "120 of 300.5 m": one decimal at most, no thousands separator. */
const n = (x: number) => x.toLocaleString(LOCALE, { maximumFractionDigits: 1, useGrouping: false });
const work = (done: number, total: number, uom: string) => `${n(done)} of ${n(total)} ${uom}`;
const pctIn = (a: SeedAsset, s: SeedStage) => a.stages.find((x) => x._id === s._id)?.percentage ?? 0;

test("each stage's work is said in the stage's own unit, from polylines by length and height", async ({ page }) => {
  const { structure, category, held } = seeded('Curtain Wall');
  expect(category.stages.map((s) => s.uom)).toEqual(['ea', 'm', 'm2', 'lf']);
  await show(page, structure.name, 'Curtain Wall');
  const tracked = held.filter((a) => !a.doNotTrack);
  // Per metre of run: 1 each, 1 m, 4.2 m² (the category's height) and 1/0.3048 linear feet.
  const per: Record<string, (a: SeedAsset) => number> = {
    ea: () => 1,
    m: (a) => run(a.points),
    m2: (a) => run(a.points) * category.height,
    lf: (a) => run(a.points) / 0.3048,
  };
  const rows = category.stages.map((s) => {
    const q = per[s.uom]!;
    return `${s.name}${work(
      tracked.reduce((t, a) => t + (q(a) * pctIn(a, s)) / 100, 0),
      tracked.reduce((t, a) => t + q(a), 0),
      s.uom,
    )}`;
  });
  await expect(page.getByTestId('stage-work').locator('tbody tr')).toHaveText(rows);
  await expect(page.getByTestId('asset-table').locator('thead')).toContainText(
    'Anchors (ea)Framing (m)Glazing (m2)Sealant (lf)',
  );
  // One asset's Glazing cell: its percentage, its share of its own area, and the day, in the office's date form.
  const a =
    tracked.find((x) => pctIn(x, category.stages[2]!) > 0 && pctIn(x, category.stages[2]!) < 100) ?? tracked[0]!;
  const glazing = category.stages[2]!;
  const st = a.stages.find((x) => x._id === glazing._id)!;
  const area = run(a.points) * category.height;
  const row = page.getByTestId('asset-table').locator('tbody tr').nth(held.indexOf(a));
  await expect(row.locator('td').nth(1)).toHaveText('Polyline');
  await expect(row.locator('td').nth(4 + 2)).toHaveText(
    `${st.percentage}% · ${work((area * st.percentage) / 100, area, 'm2')}${st.percentage > 0 ? ` · ${localDate(st.date, { locale: LOCALE })}` : ''}`,
  );
});

test('slabs are drawn as filled polygons and measured by their area; pours in m3 by the slab’s thickness', async ({
  page,
}) => {
  const { structure, category, held } = seeded('Floor Slabs');
  await show(page, structure.name, 'Floor Slabs');
  const shapes = page.getByTestId('asset-line');
  await expect(shapes).toHaveCount(held.length);
  expect(
    await shapes.evaluateAll((els) =>
      els.map((e) => [e.tagName, e.getAttribute('data-shape'), e.getAttribute('fill') === e.getAttribute('stroke')]),
    ),
  ).toEqual(held.map(() => ['polygon', 'polygon', true]));
  const tracked = held.filter((a) => !a.doNotTrack);
  const total = tracked.reduce((t, a) => t + rectArea(a.points), 0);
  await expect(page.getByTestId('asset-legend').locator('caption')).toHaveText(
    'Assets of Floor Slabs by the latest stage each has reached, stages in sequence (area in m2: the drawn outlines)',
  );
  await expect(page.getByTestId('asset-legend').locator('thead')).toContainText('Area');
  const per: Record<string, (a: SeedAsset) => number> = {
    m2: (a) => rectArea(a.points),
    m3: (a) => rectArea(a.points) * category.height,
  };
  await expect(page.getByTestId('stage-work').locator('tbody tr')).toHaveText(
    category.stages.map(
      (s) =>
        `${s.name}${work(
          tracked.reduce((t, a) => t + (per[s.uom]!(a) * pctIn(a, s)) / 100, 0),
          tracked.reduce((t, a) => t + per[s.uom]!(a), 0),
          s.uom,
        )}`,
    ),
  );
  expect(category.stages.find((s) => s.name === 'Concrete Pour')!.uom).toBe('m3');
  // The legend's rows add up to the tracked slabs' area.
  const sizes = await page
    .getByTestId('asset-legend')
    .locator('tbody tr:not([data-testid="legend-not-tracked"]) td:nth-child(3)')
    .allTextContents();
  expect(sizes.reduce((t, s) => t + Number.parseFloat(s), 0)).toBeCloseTo(total, 0);
  await expect(page.getByTestId('colour-key')).toContainText('Outlines (polygons) are filled with their colour.');
});

test('the colour key is whole in the window: no step cut at the right edge, wide or narrow', async ({ page }) => {
  const { structure } = seeded('Curtain Wall');
  for (const size of [
    { width: 1280, height: 800 },
    { width: 820, height: 560 },
  ]) {
    await page.setViewportSize(size);
    await show(page, structure.name, 'Curtain Wall');
    const key = page.getByTestId('colour-key');
    await expect(key).toContainText('not tracked');
    const inside = await key.evaluate((el) => {
      const panel = el.closest('section')!.getBoundingClientRect();
      const right = Math.min(panel.right, document.documentElement.clientWidth);
      return {
        keyFits: el.scrollWidth <= el.clientWidth,
        steps: [...el.querySelectorAll('.key-step')].map((s) => {
          const r = s.getBoundingClientRect();
          return { text: s.textContent, whole: r.left >= panel.left && r.right <= right && r.width > 0 };
        }),
      };
    });
    expect(inside.keyFits).toBe(true);
    expect(inside.steps.length).toBeGreaterThanOrEqual(6);
    for (const step of inside.steps)
      expect(step, `${size.width}×${size.height}`).toEqual({ text: step.text, whole: true });
  }
});

test('at 820×560 the drawing, the focus panel, the key and the legend are in view together, and within the panel', async ({
  page,
}) => {
  const { structure, held } = seeded('Curtain Wall');
  await page.setViewportSize({ width: 820, height: 560 });
  await show(page, structure.name, 'Curtain Wall');
  await expect(page.getByTestId('asset-line')).toHaveCount(held.length);
  const boxes = await page.evaluate(() => {
    const panel = document.querySelector('[data-testid="asset-focus"]')!.closest('section')!.getBoundingClientRect();
    return {
      height: window.innerHeight,
      panel: { left: panel.left, right: panel.right },
      parts: ['asset-focus', 'colour-key', 'asset-legend'].map((id) => {
        const r = document.querySelector(`[data-testid="${id}"]`)!.getBoundingClientRect();
        return { id, top: r.top, bottom: r.bottom, left: r.left, right: r.right };
      }),
      drawing: document.querySelector('.asset-drawing')!.getBoundingClientRect().toJSON() as DOMRect,
    };
  });
  for (const p of boxes.parts) {
    expect(p.top, p.id).toBeGreaterThanOrEqual(0);
    expect(p.bottom, p.id).toBeLessThanOrEqual(boxes.height);
    expect(p.left, p.id).toBeGreaterThanOrEqual(boxes.panel.left);
    expect(p.right, p.id).toBeLessThanOrEqual(boxes.panel.right);
  }
  // Beside the drawing, not under it, and the drawing itself in view.
  const focus = boxes.parts[0]!;
  expect(focus.left).toBeGreaterThanOrEqual(boxes.drawing.right);
  expect(boxes.drawing.top).toBeGreaterThanOrEqual(0);
  expect(boxes.drawing.bottom).toBeLessThanOrEqual(boxes.height);
});

test('a pointer beside a line, or in a gap of its dashes, hovers that line', async ({ page }) => {
  const { structure, held } = seeded('Curtain Wall');
  await show(page, structure.name, 'Curtain Wall');
  const i = held.findIndex((a) => !a.doNotTrack && a.points.length >= 2);
  const [p0, p1] = held[i]!.points as [{ x: number; y: number }, { x: number; y: number }];
  // The middle of its first segment on screen, then 3.5 px off it, square to it: past the line's
  // half width (2 px), where the browser finds no line, within the 3 px the drawing looks around.
  const at = await page.getByTestId('asset-layer').evaluate(
    (layer: SVGGElement, [a, b]) => {
      const m = layer.getScreenCTM()!;
      const on = (p: { x: number; y: number }) => ({ x: m.a * p.x + m.c * p.y + m.e, y: m.b * p.x + m.d * p.y + m.f });
      const [s, t] = [on(a), on(b)];
      const len = Math.hypot(t.x - s.x, t.y - s.y);
      const mid = { x: (s.x + t.x) / 2, y: (s.y + t.y) / 2 };
      const off = { x: mid.x - ((t.y - s.y) / len) * 3.5, y: mid.y + ((t.x - s.x) / len) * 3.5 };
      const hit = document.elementFromPoint(off.x, off.y);
      return { ...off, bare: hit?.getAttribute('data-testid') !== 'asset-line' };
    },
    [p0, p1] as const,
  );
  expect(at.bare).toBe(true);
  await page.mouse.move(at.x, at.y);
  await expect(page.getByTestId('asset-focus')).toContainText(`Curtain Wall ${i + 1}. Polyline.`);
});

test('fire dampers are drawn as points and counted in each', async ({ page }) => {
  const { structure, category, held } = seeded('Fire Dampers');
  await show(page, structure.name, 'Fire Dampers');
  const shapes = page.getByTestId('asset-line');
  await expect(shapes).toHaveCount(held.length);
  expect(new Set(await shapes.evaluateAll((els) => els.map((e) => e.getAttribute('data-shape'))))).toEqual(
    new Set(['point']),
  );
  await expect(page.getByTestId('asset-legend').locator('caption')).toHaveText(
    'Assets of Fire Dampers by the latest stage each has reached, stages in sequence (counted in ea)',
  );
  await expect(page.getByTestId('asset-legend').locator('thead')).toContainText('Count');
  const tracked = held.filter((a) => !a.doNotTrack);
  await expect(page.getByTestId('stage-work').locator('tbody tr')).toHaveText(
    category.stages.map(
      (s) =>
        `${s.name}${work(
          tracked.reduce((t, a) => t + pctIn(a, s) / 100, 0),
          tracked.length,
          'ea',
        )}`,
    ),
  );
  const first = held[0]!;
  await shapes.first().focus();
  await expect(page.getByTestId('asset-focus')).toContainText(
    `Fire Dampers 1. Point. ${first.doNotTrack ? 'Not tracked. ' : ''}Reached:`,
  );
  await expect(page.getByTestId('asset-table').locator('tbody tr').first().locator('td').nth(1)).toHaveText('Point');
});

test("a floor of 2,000 polylines of 100 points each is drawn, and the app's tabs stay usable", async ({ page }) => {
  // 200,000 points: as arguments of one call they overflow the call stack, which blanked the window.
  // 200,000 points from the service through the app core to the page: generous on a loaded machine.
  test.setTimeout(180_000);
  const { structure, category, held, all } = seeded('Curtain Wall');
  const template = held[0]!;
  for (let i = 0; i < 2000; i++)
    all.push({
      ...template,
      _id: `floor-${i}`,
      points: floorPolyline(i),
      stages: template.stages.map((s) => ({ ...s })),
    });
  await page.getByRole('tab', { name: 'Assets' }).click();
  await page.getByLabel('Structure').selectOption({ label: structure.name });
  await page.getByLabel('Category').selectOption({ label: category.name });
  await expect(page.getByTestId('asset-table').locator('tbody tr')).toHaveCount(held.length + 2000, {
    timeout: 120_000,
  });
  await expect(page.getByTestId('asset-line')).toHaveCount(held.length + 2000);
  await expect(page.getByTestId('workspace-failed')).toHaveCount(0);
  // The rest of the app answers.
  await page.getByRole('tab', { name: 'Progress' }).click();
  await expect(page.getByTestId('progress-as-of')).toContainText('Up to date as of');
});

test('a loading sentence takes the drawing’s place at once, and another choice gives up the read under way', async ({
  page,
}) => {
  const curtain = seeded('Curtain Wall');
  const ducts = seeded('Ductwork');
  // The first read of the curtain wall's assets never answers, until the client gives it up.
  await app.h.svc.admin('POST', '/faults', {
    target: 'progress',
    operation: 'external-assets',
    action: { type: 'hang' },
  });
  await page.getByRole('tab', { name: 'Assets' }).click();
  await page.getByLabel('Structure').selectOption({ label: curtain.structure.name });
  await page.getByLabel('Category').selectOption({ label: curtain.category.name });
  const loading = page.getByTestId('assets-loading');
  await expect(loading).toHaveText(`Loading the Curtain Wall assets of ${curtain.structure.name}…`);
  await expect(page.getByRole('region', { name: 'Drawing' }).getByRole('status')).toHaveText(
    `Loading the Curtain Wall assets of ${curtain.structure.name}…`,
  );
  await expect.poll(() => app.h.svc.faults.held.length).toBe(1);
  const held = app.h.svc.faults.held[0]!;
  // Chosen again before the answer: the first read is given up at the service, the second drawn.
  await page.getByLabel('Category').selectOption({ label: ducts.category.name });
  await expect(page.getByTestId('asset-line')).toHaveCount(ducts.held.length);
  await expect.poll(() => held.closedAt).toBeDefined();
  await expect(loading).toHaveCount(0);
  await expect(page.getByTestId('asset-table').locator('tbody tr')).toHaveCount(ducts.held.length);
  await expect(page.locator('.error')).toHaveCount(0);
});
