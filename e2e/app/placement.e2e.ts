import type { Locator } from '@playwright/test';
import { expect, test } from '@playwright/test';
import { useApp } from './harness.js';
import { choiceOf, mountRoutineCard, ROUTINE_WALKS } from './realistic-card.js';
import { SIZES, shots } from './shots.js';

// The operator's routine card placed with the mouse: Import, the whole card shifted an hour, each
// walk placed in one choice of its list (the next walk's list opens by itself), Register and its
// confirmation. Every click is counted; the shift is typed, and those keys are counted apart.

const app = useApp('app-placement', { mounts: true, viewport: SIZES.large, setUp: 'invoke' });

test('the routine card (100 recordings, 4 walks on two structures, types differing, a 1 h shift) is imported, placed and registered in at most 10 mouse interactions', async ({
  page,
}, info) => {
  // Under load (a shared 2-core machine) importing and listing 100 recordings takes minutes.
  test.setTimeout(420_000);
  mountRoutineCard(app);
  let clicks = 0;
  let keys = 0;
  const click = async (l: Locator) => {
    clicks++;
    await l.click();
  };
  await click(page.getByRole('button', { name: 'Import X4_SITE' }));
  const rows = page.getByTestId('capture-row');
  await expect(rows).toHaveCount(100, { timeout: 60_000 });

  await click(page.getByLabel('Shift times'));
  for (const ch of '+1h') {
    keys++;
    await page.keyboard.press(ch);
  }
  await click(page.getByRole('button', { name: 'Shift all 100' }));

  for (const [i, w] of ROUTINE_WALKS.entries()) {
    // The walk to place next has its list open already: one click on the place and type.
    const list = page.getByRole('listbox', { name: `Places for site walk ${i + 1}` });
    await expect(list).toBeVisible();
    if (i === 1) await shots(page, info, '32-walk-list-open');
    await click(list.getByRole('option', { name: choiceOf(w) }));
    await expect(page.getByTestId('walk-status')).toHaveText(
      `${w.place} (${w.type}) set on ${w.count + (i === 3 ? 1 : 0)} captures of site walk ${i + 1}.`,
    );
  }
  await click(page.getByRole('button', { name: 'Register 100 captures…' }));
  await click(
    page.getByRole('dialog', { name: 'Register 100 captures?' }).getByRole('button', { name: 'Register and upload' }),
  );
  await expect(rows).toHaveCount(0, { timeout: 30_000 });
  info.annotations.push({ type: 'mouse interactions', description: String(clicks) });
  info.annotations.push({ type: 'key presses (the shift typed)', description: String(keys) });
  console.log(`with the mouse, the routine card: ${clicks} mouse interactions (goal at most 10), ${keys} keys typed`);
  expect(clicks).toBeLessThanOrEqual(10);

  const captures = app.h
    .queue()
    .captures()
    .sort((a, b) => Date.parse(a.request.captureDateTime) - Date.parse(b.request.captureDateTime));
  const named = (c: (typeof captures)[number]) => {
    const s = app.h.svc.info.namedStructures.find((x) => x.id === c.structure)!;
    return `${s.name} · ${s.designs.find((d) => d.id === c.design)!.name}`;
  };
  expect(captures.map((c) => [named(c), c.request.type])).toEqual(
    ROUTINE_WALKS.flatMap((w, i) => Array(w.count + (i === 3 ? 1 : 0)).fill([w.place, w.type])),
  );
  expect(Date.parse(captures.at(-1)!.request.captureDateTime)).toBe(new Date(2026, 10, 23, 14, 30, 0).getTime());
});
