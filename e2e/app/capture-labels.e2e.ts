import type { Locator, Page } from '@playwright/test';
import { expect, test } from '@playwright/test';
import { readFileSync, renameSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { writeFakeCard } from '../../main/card/fake-card.js';
import { writeCard } from './card-files.js';
import { useApp } from './harness.js';
import { applyBar, applyToSelected, registerAndConfirm } from './register-steps.js';
import { SIZES } from './shots.js';

// The name a person reads for a capture (shared/capture-label.ts): the capture time the platform
// gets, a time shift included, and the part that tells rows apart is never the part cut.
test.use({ locale: 'en-GB' });
const fixtures = fileURLToPath(new URL('../../../shared/fixtures/', import.meta.url));
test.describe.configure({ timeout: 180_000 });

const app = useApp('labels-e2e', { mounts: true, setUp: 'invoke' });

test('after "Shift 2 selected" (+1 h) the checkboxes, the confirmation and the queue row are named by the shifted time', async ({
  page,
}) => {
  // The camera's clock says 08:00:00, 08:01:00, 08:02:00 (local time).
  writeCard(join(app.work, 'Camera01'), [{ start: new Date(2026, 10, 23, 8, 0, 0), count: 3, stepS: 60 }]);
  // The second recording lost its _10_ lens: a warning the confirmation lists by the capture's name.
  rmSync(join(app.work, 'Camera01', 'VID_20261123_080100_10_002.insv'));
  await app.h.drop([join(app.work, 'Camera01')]);
  const rows = page.getByTestId('capture-row');
  await expect(rows).toHaveCount(3, { timeout: 30_000 });
  await expect(rows.nth(0).getByRole('checkbox')).toHaveAccessibleName(
    'Select 2026-11-23 08:00:00 · segment 001 · 2 lenses',
  );

  await rows.nth(0).getByRole('checkbox').check();
  await rows.nth(1).getByRole('checkbox').check();
  await applyBar(page).getByLabel('Shift times').fill('+01:00');
  await applyBar(page).getByRole('button', { name: 'Shift 2 selected' }).click();
  // Rows follow their times: the shifted one is now last.
  const shifted = page.getByRole('checkbox', { name: 'Select 2026-11-23 09:00:00 · segment 001 · 2 lenses' });
  await expect(shifted).toBeVisible();
  await expect(page.getByRole('checkbox', { name: /08:0[01]:00/ })).toHaveCount(0);
  await expect(rows.nth(1).getByRole('checkbox')).toHaveAccessibleName(
    'Select 2026-11-23 09:00:00 · segment 001 · 2 lenses',
  );
  await expect(rows.nth(2).getByRole('checkbox')).toHaveAccessibleName('Select 2026-11-23 09:01:00 · segment 002');

  await page.getByLabel('Select all captures').check();
  await applyToSelected(page, 'Tower A · Level 1');
  await page.getByRole('button', { name: 'Register 3 captures…' }).click();
  // The confirmation's list of captures with warnings (a lone lens) names it so too.
  const dialog = page.getByRole('dialog');
  await expect(dialog.getByRole('listitem').filter({ hasText: 'segment 002' })).toHaveText(
    /^2026-11-23 09:01:00 · segment 002: /,
  );
  await dialog.getByRole('button', { name: 'Register and upload' }).click();
  await expect(dialog).toBeHidden();
  const row = page.locator('[data-testid="queue-capture"][data-capture*="segment 001"]');
  await expect(row).toHaveCount(1, { timeout: 30_000 });
  await expect(row.locator('.name strong')).toHaveText(/^2026-11-23 09:00:00 · segment 001 · 2 lenses/);
  await expect(row.locator('.name')).toHaveAttribute('title', /^2026-11-23 09:00:00 · segment 001 · 2 lenses/);
  // The camera's own file name stays readable on hover.
  await expect(row.locator('.name')).toHaveAttribute('title', /VID_20261123_080000_00_001\.insv/);
  await expect(row).toHaveAccessibleName(/^2026-11-23 09:00:00 · segment 001/);
  await expect(page.locator('[data-testid="queue-capture"]', { hasText: '08:00:00' })).toHaveCount(0);
});

/**
 * For a queue row: its label (data-capture), the part of it that tells rows apart (time and
 * segment), and how far (px) that part reaches past what the title and its clipping ancestors
 * show at its right edge (0: seen whole), its hover title and accessible name. Read in one step: the list may reorder between two.
 */
async function distinctClip(
  row: Locator,
): Promise<{ label: string; distinct: string; clipped: number; title: string; name: string }> {
  return row.evaluate((el) => {
    const label = el.getAttribute('data-capture') ?? '';
    const said = {
      title: el.querySelector('.name')?.getAttribute('title') ?? '',
      name: el.getAttribute('aria-label') ?? '',
    };
    const distinct = /\d{2}:\d{2}:\d{2} · segment \d{3}/.exec(label)?.[0] ?? '';
    const title = el.querySelector('.name strong')!;
    const walker = document.createTreeWalker(title, NodeFilter.SHOW_TEXT);
    let text = '';
    const nodes: { n: Text; at: number }[] = [];
    for (let n = walker.nextNode(); n; n = walker.nextNode()) {
      nodes.push({ n: n as Text, at: text.length });
      text += (n as Text).data;
    }
    const start = distinct ? text.indexOf(distinct) : -1;
    if (start < 0) return { label, distinct, clipped: Infinity, ...said };
    const end = start + distinct.length;
    const locate = (i: number, last: boolean) => {
      const hit = nodes.find((x) =>
        last ? i > x.at && i <= x.at + x.n.data.length : i >= x.at && i < x.at + x.n.data.length,
      )!;
      return [hit.n, i - hit.at] as const;
    };
    const range = document.createRange();
    range.setStart(...locate(start, false));
    range.setEnd(...locate(end, true));
    const right = range.getBoundingClientRect().right;
    let edge = Infinity;
    for (let e: Element | null = title; e; e = e.parentElement) {
      if (getComputedStyle(e).overflowX !== 'visible') edge = Math.min(edge, e.getBoundingClientRect().right);
    }
    return { label, distinct, clipped: Math.max(0, right - edge), ...said };
  });
}

/**
 * The registration table's box: how much wider its table is than the box (px), whether the Type
 * header is inside it, and how many of the first 20 recordings' names ("segment 001", what tells
 * rows apart) are cut.
 */
async function tableFit(page: Page): Promise<{ overflow: number; typeSeen: boolean; namesCut: number }> {
  return page.locator('.capture-table-wrap').evaluate((wrap) => {
    const box = wrap.getBoundingClientRect();
    const type = [...wrap.querySelectorAll('thead th')]
      .find((th) => th.textContent?.trim() === 'Type')!
      .getBoundingClientRect();
    const names = [...wrap.querySelectorAll('.recording-name')].slice(0, 20);
    return {
      overflow: wrap.scrollWidth - wrap.clientWidth,
      typeSeen: type.width > 0 && type.left >= box.left && type.right <= box.right + 0.5,
      namesCut: names.filter((n) => n.scrollWidth > n.clientWidth).length,
    };
  });
}

test('an imported 100-recording card: the table fits its box and each queue title keeps its time and segment whole, at 1280×800 and 820×560', async ({
  page,
}) => {
  await page.setViewportSize(SIZES.large);
  const card = writeFakeCard(join(app.work, 'staging', 'X4_CARD'), {
    recordings: 100,
    bytes: 4096,
    start: new Date(2026, 10, 23, 8, 0, 0),
  });
  // Twenty lens files with a real camera's bytes (camera model, duration read from them), the rest
  // random bytes (a warning each): every column as wide as a real card makes it.
  // Each copy made distinct by a byte of its media data: ten copies of one recording would be one
  // recording registered once, the rest said as the same recording before the confirmation.
  const sample = readFileSync(join(fixtures, 'sample.insv'));
  for (const [i, p] of card.recordings.slice(0, 20).entries()) {
    const copy = Buffer.from(sample);
    copy.writeUInt16BE(i, sample.indexOf('mdat') + 200);
    writeFileSync(p, copy);
  }
  // A recording whose _10_ lens is missing, and a truncated real one: their warnings make the longest cells.
  rmSync(card.recordings.find((p) => /_10_050\.insv$/.test(p))!);
  truncateSync(card.recordings.find((p) => /_00_002\.insv$/.test(p))!, 300_000);
  renameSync(card.root, join(app.mounts, 'X4_CARD'));
  await page.getByTestId('card-offer').getByRole('button', { name: 'Import X4_CARD' }).click({ timeout: 15_000 });
  await expect(page.getByTestId('card-safe')).toContainText('Card safe to remove', { timeout: 120_000 });
  const rows = page.getByTestId('capture-row');
  await expect(rows).toHaveCount(100, { timeout: 60_000 });
  const fits = async (when: string) => {
    for (const [size, viewport] of Object.entries(SIZES)) {
      await page.setViewportSize(viewport);
      await expect
        .poll(() => tableFit(page), { message: `registration table ${when} at ${size}` })
        .toEqual({ overflow: 0, typeSeen: true, namesCut: 0 });
    }
    await page.setViewportSize(SIZES.large);
  };
  await fits('after the import');
  // A place chosen on every row: the longest the table gets (Type shows its word).
  await page.getByLabel('Select all captures').check();
  await applyToSelected(page, 'Tower A · Level 1');
  await fits('with every place chosen');

  await registerAndConfirm(page, 100);
  const queued = page.getByTestId('queue-capture');
  await expect(queued.first()).toBeVisible({ timeout: 60_000 });
  for (const [size, viewport] of Object.entries(SIZES)) {
    await page.setViewportSize(viewport);
    const shown = await queued.count();
    expect(shown).toBeGreaterThan(0);
    for (let i = 0; i < Math.min(shown, 6); i++) {
      const seen = await distinctClip(queued.nth(i));
      expect(seen.distinct, `label "${seen.label}"`).not.toBe('');
      expect(seen.clipped, `"${seen.distinct}" of "${seen.label}" at ${size}`).toBe(0);
      // The whole name stays on hover (with the camera's file names) and in the accessible name.
      expect(seen.title.startsWith(seen.label) && seen.title.includes('_00_')).toBe(true);
      expect(seen.name.startsWith(seen.label)).toBe(true);
    }
  }
});
