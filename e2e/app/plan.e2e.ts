import type { Page } from '@playwright/test';
import { expect, test } from '@playwright/test';
import { readFileSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import type { PlanWalk } from '../../shared/capture-plan.js';
import { expectAccessible } from './axe.js';
import { writeInsta360Card } from './card-files.js';
import { useApp } from './harness.js';
import { SIZES, shots } from './shots.js';

// The capture plan in the window: written in the Plan panel, a card that matches it opens placed
// with one "Register and upload"; a walk more, a walk fewer and a camera with no plan are each
// said; a plan changed while a card is open places what is not registered yet; with "no click" a
// matching card goes to the queue as soon as it is inserted. The cards are real Insta360 files
// (the fixture sample.insv, serial number IAEAN00000XXXX), recorded on Monday 23 Nov 2026.

const fixtures = join(import.meta.dirname, '..', '..', '..', 'shared', 'fixtures');
const sample = readFileSync(join(fixtures, 'sample.insv'));
const CAMERA = 'IAEAN00000XXXX';
const app = useApp('app-plan', { mounts: true, viewport: SIZES.large, setUp: 'invoke' });

/** Walks of `count` recordings a minute apart, starting at each of `hours` on Monday 23 Nov 2026 (local). */
const walksAt = (hours: number[], count = 2) =>
  hours.map((h) => ({ start: new Date(2026, 10, 23, h, 0, 0), count, stepS: 60 }));

/** The plan walks of the local service's structures by name: ["Tower A · Level 1", "interior"]. */
function walksOf(places: [string, PlanWalk['type']][]): PlanWalk[] {
  return places.map(([place, type]) => {
    const [structure, design] = place.split(' · ');
    const s = app.h.svc.info.namedStructures.find((x) => x.name === structure)!;
    return { structure: s.id, design: s.designs.find((d) => d.name === design)!.id, type };
  });
}
const FOUR: [string, PlanWalk['type']][] = [
  ['Tower A · Level 1', 'interior'],
  ['Tower A · Roof', 'exterior'],
  ['Tower B · Level 1', 'interior'],
  ['Tower B · Level 2', 'interior'],
];

/** A card of real recordings under the mount folder, moved in whole as a volume appears. */
function mount(name: string, walks: ReturnType<typeof walksAt>): string {
  const staged = join(app.work, 'staging', name);
  writeInsta360Card(join(staged, 'DCIM', 'Camera01'), sample, walks);
  renameSync(staged, join(app.mounts, name));
  return join(app.mounts, name);
}

/** The queue's captures in recording order, each as [structure · design, type]. */
function queued(): [string, string][] {
  return app.h
    .queue()
    .captures()
    .sort((a, b) => Date.parse(a.request.captureDateTime) - Date.parse(b.request.captureDateTime))
    .map((c) => {
      const s = app.h.svc.info.namedStructures.find((x) => x.id === c.structure)!;
      return [`${s.name} · ${s.designs.find((d) => d.id === c.design)!.name}`, c.request.type];
    });
}

/** Chooses `label` in the select labelled `name` of the last day's fieldset of the Plan panel. */
async function pick(page: Page, name: string, label: string) {
  // By the label's start: "Walk 1" is not "Move walk 1 up".
  await page
    .getByTestId('plan-day')
    .last()
    .getByLabel(new RegExp(`^${name}`))
    .selectOption({ label });
}

test('a plan of 4 walks written in the Plan panel: a matching card opens placed and registers with one action', async ({
  page,
}, info) => {
  test.setTimeout(180_000);
  await page.getByRole('tab', { name: 'Plan' }).click();
  await expect(page.getByRole('heading', { name: 'Capture plan' })).toBeVisible();
  await page.getByRole('button', { name: 'Add a day' }).click();
  await page.getByLabel('Camera serial number (empty: any camera)').fill(CAMERA);
  await pick(page, 'Day', 'Every Monday');
  for (const [i, [place, type]] of FOUR.entries()) {
    if (i > 0) await page.getByRole('button', { name: 'Add a walk' }).click();
    await pick(page, `Walk ${i + 1}`, `${place} · ${type}`);
  }
  await expectAccessible(page, '.plan-panel');
  await shots(page, info, '40-capture-plan');
  await page.getByRole('button', { name: 'Save plan' }).click();
  await expect(page.getByRole('status').filter({ hasText: 'Plan saved: 1 day.' })).toBeVisible();
  expect(await app.h.invoke('capture:plan.get')).toMatchObject({
    autoRegister: false,
    days: [{ camera: CAMERA, day: 'monday', walks: walksOf(FOUR) }],
  });

  await page.getByRole('tab', { name: 'Upload' }).click();
  mount('X4_PLAN', walksAt([8, 10, 12, 14], 3));
  await page.getByRole('button', { name: 'Import X4_PLAN' }).click();
  const rows = page.getByTestId('capture-row');
  await expect(rows).toHaveCount(12, { timeout: 60_000 });
  const banner = page.getByRole('region', { name: 'Placed by the capture plan' });
  await expect(banner).toContainText(`Camera ${CAMERA}, Monday`);
  await expect(banner).toContainText(
    '3 captures in Tower A · Level 1 (interior), 3 in Tower A · Roof (exterior), 3 in Tower B · Level 1 (interior), 3 in Tower B · Level 2 (interior).',
  );
  await expect(page.getByText('Not chosen')).toHaveCount(0);
  // The card's one confirmation is focused: one key registers it.
  await expect(banner.getByRole('button', { name: 'Register and upload' })).toBeFocused();
  await expectAccessible(page, '.drafts');
  await shots(page, info, '41-card-placed-by-plan', () =>
    page.locator('section.drafts').evaluate((el) => el.scrollIntoView({ block: 'start' })),
  );
  await page.keyboard.press('Enter');
  await expect(rows).toHaveCount(0, { timeout: 30_000 });
  expect(queued()).toEqual(FOUR.flatMap(([place, type]) => Array(3).fill([place, type])));
  // The header holds the camera's wall time: the name's time is the recorded time.
  const first = app.h
    .queue()
    .captures()
    .map((c) => Date.parse(c.request.captureDateTime))
    .sort((a, b) => a - b)[0];
  expect(first).toBe(new Date(2026, 10, 23, 8, 0, 0).getTime());
});

test('a walk more, a walk fewer and a camera with no plan are each said, and the card waits for the person', async ({
  page,
}, info) => {
  test.setTimeout(180_000);
  const planFor = (camera: string) =>
    app.h.invoke('capture:plan.save', { autoRegister: false, days: [{ camera, day: 'monday', walks: walksOf(FOUR) }] });
  const problems = page.getByTestId('plan-problems');
  const clear = () => page.getByRole('button', { name: 'Clear this list' }).click();

  await planFor(CAMERA);
  const extra = join(app.work, 'extra');
  writeInsta360Card(extra, sample, walksAt([8, 10, 12, 14, 16]));
  await app.h.drop([extra]);
  await expect(page.getByTestId('capture-row')).toHaveCount(10, { timeout: 30_000 });
  await expect(problems).toHaveText(
    new RegExp(`^Walk 5 \\(.+\\) has no place in the plan for Monday.+ for camera ${CAMERA}: it plans 4 walks\\.$`),
  );
  // The four walks it plans are placed; the fifth waits for the person.
  await expect(page.getByText('Not chosen')).toHaveCount(2);
  await expect(page.getByRole('button', { name: 'Register 8 captures…' })).toBeVisible();
  await expectAccessible(page, '.drafts');
  await shots(page, info, '42-plan-walk-more');
  await clear();

  const fewer = join(app.work, 'fewer');
  writeInsta360Card(fewer, sample, walksAt([8, 10, 12]));
  await app.h.drop([fewer]);
  await expect(page.getByTestId('capture-row')).toHaveCount(6, { timeout: 30_000 });
  await expect(problems).toHaveText(
    new RegExp(
      `^The plan for Monday.+ for camera ${CAMERA} has 4 walks; the card has 3: placed as its first 3, check them\\. Its walk 4 \\(Tower B · Level 2 \\(interior\\)\\) has no recordings\\.$`,
    ),
  );
  await expect(page.getByRole('region', { name: 'Placed by the capture plan' })).toHaveCount(0);
  await clear();

  await planFor('IAEAN99999ZZZZ');
  const other = join(app.work, 'other-camera');
  writeInsta360Card(other, sample, walksAt([8, 10, 12, 14]));
  await app.h.drop([other]);
  await expect(page.getByTestId('capture-row')).toHaveCount(8, { timeout: 30_000 });
  await expect(problems).toHaveText(
    new RegExp(`^Camera ${CAMERA} has no plan for Monday.+: walks 1–4 \\(8 captures\\) not placed\\.$`),
  );
  await expect(page.getByText('Not chosen')).toHaveCount(8);
  expect(app.h.queue().captures()).toEqual([]);
});

test('a plan changed while a card is open places what is not registered yet, as walks of the same card', async ({
  page,
}) => {
  test.setTimeout(180_000);
  await app.h.invoke('capture:plan.save', {
    autoRegister: false,
    days: [{ camera: CAMERA, day: '2026-11-23', walks: walksOf(FOUR.slice(0, 2)) }],
  });
  const card = join(app.work, 'three-walks');
  writeInsta360Card(card, sample, walksAt([8, 10, 12]));
  await app.h.drop([card]);
  await expect(page.getByTestId('capture-row')).toHaveCount(6, { timeout: 30_000 });
  await expect(page.getByTestId('plan-problems')).toContainText('Walk 3 (');
  // The person registers the two walks the plan placed; the third waits.
  await page.getByRole('button', { name: 'Register 4 captures…' }).click();
  await page.getByRole('dialog').getByRole('button', { name: 'Register and upload' }).click();
  await expect(page.getByTestId('capture-row')).toHaveCount(2, { timeout: 30_000 });

  // The office adds the third walk to the plan (another window, the CLI's `plan set` alike).
  await app.h.invoke('capture:plan.save', {
    autoRegister: false,
    days: [
      { camera: CAMERA, day: '2026-11-23', walks: walksOf([...FOUR.slice(0, 2), ['Tower B · Level 1', 'exterior']]) },
    ],
  });
  const banner = page.getByRole('region', { name: 'Placed by the capture plan' });
  await expect(banner).toContainText('2 captures in Tower B · Level 1 (exterior)');
  await banner.getByRole('button', { name: 'Register and upload' }).click();
  await expect(page.getByTestId('capture-row')).toHaveCount(0, { timeout: 30_000 });
  expect(queued()).toEqual([
    ...Array(2).fill(['Tower A · Level 1', 'interior']),
    ...Array(2).fill(['Tower A · Roof', 'exterior']),
    ...Array(2).fill(['Tower B · Level 1', 'exterior']),
  ]);
});

test('with "no click" on, a matching card goes to the queue as soon as it is inserted, said in the queue', async ({
  page,
}) => {
  test.setTimeout(180_000);
  await app.h.invoke('capture:plan.save', {
    autoRegister: true,
    days: [{ camera: CAMERA, day: 'weekdays', walks: walksOf(FOUR.slice(0, 2)) }],
  });
  mount('X4_AUTO', walksAt([8, 10]));
  await expect.poll(() => app.h.queue().captures().length, { timeout: 60_000 }).toBe(4);
  expect(queued()).toEqual([
    ...Array(2).fill(['Tower A · Level 1', 'interior']),
    ...Array(2).fill(['Tower A · Roof', 'exterior']),
  ]);
  await expect(page.getByTestId('notices')).toContainText('Card X4_AUTO matched the capture plan');
  await expect(page.getByTestId('capture-row')).toHaveCount(0);
  await page.getByText('Activity log').click();
  await expect(page.getByTestId('activity-lines').locator('li[data-kind="planned"]')).toHaveCount(4);
  await expect(page.getByTestId('activity-lines')).toContainText(
    `Placed by the capture plan (camera ${CAMERA}, weekdays: walk 2 of 2, Tower A · Roof (exterior)) and queued with no click.`,
  );
});
