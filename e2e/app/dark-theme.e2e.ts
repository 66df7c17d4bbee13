import type { Locator, Page } from '@playwright/test';
import { expect, test } from '@playwright/test';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeFakeCard } from '../../main/card/fake-card.js';
import {
  DARK_PALETTE,
  KEY_FRACTIONS,
  LIGHT_PALETTE,
  fractionColourIn,
} from '../../renderer/src/components/records/palette.js';
import { violations } from './axe.js';
import { contrast, luminance } from './contrast.js';
import { AppHarness } from './harness.js';
import { assetsDrawn, entryWaitingOffline, openEntryWithFormError } from './records-steps.js';
import { shots } from './shots.js';

// The dark theme follows the system's prefers-color-scheme (styles.css), and every main screen is
// axe-clean in the light theme and the dark one: the operator's card offer and import, the
// registration table and the queue, Settings, the Progress workspace (online, and offline with its
// outbox) and the Assets view. In dark the page and the drawing really are dark, and the drawing's
// lines (coloured from TypeScript, palette.ts) follow the scheme and keep 3:1 against it (WCAG
// 1.4.11). Paper is printed black on white whatever the scheme (docs/desktop-app.md, "Dark theme").
const ORIGIN = `http://127.0.0.1:${process.env.E2E_PORT ?? 4173}`;
test.describe.configure({ timeout: 120_000 });

/** A computed style property of the first element matched. */
const computed = (l: Locator, prop: 'backgroundColor' | 'color' | 'stroke') =>
  l.first().evaluate((el, p) => getComputedStyle(el)[p], prop);

for (const scheme of ['light', 'dark'] as const) {
  test.describe(`${scheme} theme`, () => {
    let h: AppHarness;
    let work: string;
    let mounts: string;
    test.beforeEach(async ({ page }) => {
      work = mkdtempSync(join(tmpdir(), 'dark-theme-e2e-'));
      mounts = join(work, 'media');
      mkdirSync(mounts);
      await page.emulateMedia({ colorScheme: scheme });
      // The service watches this folder as it would /media/$USER: a card appears when its folder does.
      h = await AppHarness.start(page, ORIGIN, { cards: { roots: [mounts], pollMs: 300 } });
      await page.goto('/');
      await page.getByRole('button', { name: 'Use the local test service' }).click();
      await expect(page.getByText('Drop Insta360 recordings here')).toBeVisible();
    });
    test.afterEach(async () => {
      await h.stop();
      rmSync(work, { recursive: true, force: true });
    });

    /** The page's ground is dark in dark and light in light (the root element carries it). */
    async function groundFollowsScheme(page: Page): Promise<void> {
      const ground = luminance(await computed(page.locator('html'), 'backgroundColor'));
      if (scheme === 'dark') expect(ground).toBeLessThan(0.2);
      else expect(ground).toBeGreaterThan(0.8);
      // Native form controls follow the scheme too.
      expect(await page.locator('html').evaluate((el) => getComputedStyle(el).colorScheme)).toBe('light dark');
    }

    test(`the upload screen: registration table, queue with rows, and Settings (${scheme})`, async ({ page }) => {
      await groundFollowsScheme(page);
      // Three captures of two lenses each, every file unlike any other (the queue keeps one copy of equal bytes).
      const files: string[] = [];
      for (let i = 1; i <= 3; i++)
        for (const lens of ['00', '10']) {
          const path = join(work, `VID_20261122_08${10 + i}00_${lens}_00${i}.insv`);
          writeFileSync(path, randomBytes(4096));
          files.push(path);
        }
      await h.drop(files);
      await expect(page.getByTestId('capture-row')).toHaveCount(3);
      await page.getByLabel('Select all captures').check();
      expect(await violations(page)).toEqual({});
      if (scheme === 'dark')
        expect(luminance(await computed(page.locator('.drafts'), 'backgroundColor'))).toBeLessThan(0.2);
      const apply = page.getByRole('group', { name: 'Apply to selected captures' });
      await apply.getByLabel('Structure · design').selectOption({ label: 'Tower A · Level 1' });
      await apply.getByLabel('Type').selectOption({ label: 'Interior' });
      await apply.getByRole('button', { name: /^Apply to \d+ selected$/ }).click();
      await page.getByRole('button', { name: 'Register 3 captures…' }).click();
      const dialog = page.getByRole('dialog');
      await expect(dialog.getByRole('button', { name: 'Register and upload' })).toBeVisible();
      expect(await violations(page)).toEqual({});
      await dialog.getByRole('button', { name: 'Register and upload' }).click();
      await expect(dialog).toBeHidden();
      await expect(page.getByTestId('queue-capture')).toHaveCount(3);
      expect(await violations(page)).toEqual({});
      await expect(page.getByTestId('queue-state')).toHaveText(/^All 6 files uploaded/, { timeout: 60_000 });
      expect(await violations(page)).toEqual({});
      await shots(page, test.info(), `queue-${scheme}`);
      await page.getByRole('tab', { name: 'Settings' }).click();
      await expect(page.getByRole('button', { name: 'Check progress sign-in' })).toBeVisible();
      await groundFollowsScheme(page);
      expect(await violations(page)).toEqual({});
    });

    test(`a card offered, then imported and safe to remove (${scheme})`, async ({ page }) => {
      await page.getByRole('tab', { name: 'Settings' }).click();
      const section = page.getByRole('form', { name: 'Card imports' });
      await section.getByLabel('Library folder').fill(join(work, 'library'));
      await section.getByRole('button', { name: 'Save card import settings' }).click();
      await expect
        .poll(() => (h.store.get('library') as { library?: string } | undefined)?.library)
        .toBe(join(work, 'library'));
      await page.getByRole('tab', { name: 'Upload' }).click();
      // Written aside and moved under the mount folder at once, as a volume appears when mounted.
      const card = writeFakeCard(join(work, 'staging', 'X4_CARD'), { recordings: 2, bytes: 64 * 1024 });
      renameSync(card.root, join(mounts, 'X4_CARD'));
      const offer = page.getByTestId('card-offer');
      await expect(offer).toContainText('Insta360 card, 2 recordings', { timeout: 15_000 });
      await groundFollowsScheme(page);
      expect(await violations(page)).toEqual({});
      await offer.getByRole('button', { name: 'Import X4_CARD' }).click();
      await expect(page.getByTestId('card-safe')).toContainText('Card safe to remove', { timeout: 30_000 });
      await page.getByText('Files (4)').click();
      if (scheme === 'dark')
        expect(luminance(await computed(page.getByTestId('card-safe'), 'backgroundColor'))).toBeLessThan(0.2);
      expect(await violations(page)).toEqual({});
    });

    test(`the Progress workspace, with an entry open and a form error, and its printed month (${scheme})`, async ({
      page,
    }) => {
      await openEntryWithFormError(page, h);
      await groundFollowsScheme(page);
      expect(await violations(page)).toEqual({});
      // Paper: black on white, whatever the screen's scheme.
      await page.emulateMedia({ media: 'print', colorScheme: scheme });
      await expect(page.getByTestId('month-report')).toBeVisible();
      expect(await computed(page.locator('body'), 'backgroundColor')).toBe('rgb(255, 255, 255)');
      expect(await computed(page.getByTestId('month-report'), 'color')).toBe('rgb(0, 0, 0)');
      expect(await violations(page)).toEqual({});
      await page.emulateMedia({ media: 'screen', colorScheme: scheme });
    });

    test(`the Progress workspace offline, with an entry waiting in the outbox (${scheme})`, async ({ page }) => {
      await entryWaitingOffline(page, h, 'Parking Garage P1 fire stopping inspected.');
      await groundFollowsScheme(page);
      expect(await violations(page)).toEqual({});
      await h.svc.admin('DELETE', '/faults');
    });

    test(`the Assets view: drawing, colour key, focused line and table (${scheme})`, async ({ page }) => {
      await assetsDrawn(page, h);
      await groundFollowsScheme(page);
      const ground = await computed(page.locator('.asset-drawing'), 'backgroundColor');
      // styles.css's drawing colours (what a canvas reads) are palette.ts's, whose contrast palette.test.ts checks.
      const palette = scheme === 'dark' ? DARK_PALETTE : LIGHT_PALETTE;
      const v = await page.locator('html').evaluate((el) => {
        const s = getComputedStyle(el);
        return Object.fromEntries(
          [
            '--drawing-bg',
            '--untracked',
            '--cividis-from',
            '--cividis-to',
            ...[0, 1, 2, 3, 4].map((i) => `--stage-${i}`),
          ].map((n) => [n, s.getPropertyValue(n).trim()]),
        );
      });
      expect(v['--drawing-bg']).toBe(palette.background);
      expect(v['--untracked']).toBe(palette.untracked);
      expect(Number(v['--cividis-from'])).toBe(palette.from);
      expect(Number(v['--cividis-to'])).toBe(palette.to);
      KEY_FRACTIONS.forEach((f, i) => expect(v[`--stage-${i}`]).toBe(fractionColourIn(palette, f)));
      expect(contrast(await computed(page.locator('html'), 'color'), ground)).toBeGreaterThanOrEqual(4.5);
      if (scheme === 'dark') expect(luminance(ground)).toBeLessThan(0.05);
      // Every line as drawn, against the drawing as drawn: 3:1 or more (WCAG 1.4.11).
      const strokes = await page
        .getByTestId('asset-line')
        .evaluateAll((els) => els.map((el) => getComputedStyle(el).stroke));
      expect(strokes.length).toBeGreaterThan(0);
      for (const stroke of strokes) expect(contrast(stroke, ground)).toBeGreaterThanOrEqual(3);
      // The key's steps: each 3:1 or more, finished the strongest, and neighbours told apart by a
      // second cue (their dash pattern) where their lightness differs by less than 2:1.
      const samples = await page
        .getByTestId('colour-key')
        .locator('[data-fraction] line')
        .evaluateAll((els) =>
          els.map((el) => ({ stroke: getComputedStyle(el).stroke, dash: el.getAttribute('stroke-dasharray') })),
        );
      expect(samples).toHaveLength(5);
      for (const { stroke } of samples) expect(contrast(stroke, ground)).toBeGreaterThanOrEqual(3);
      const strength = samples.map(({ stroke }) => contrast(stroke, ground));
      for (let i = 1; i < strength.length; i++) expect(strength[i]!).toBeGreaterThan(strength[i - 1]!);
      for (let i = 1; i < samples.length; i++)
        if (contrast(samples[i]!.stroke, samples[i - 1]!.stroke) < 2)
          expect(samples[i]!.dash).not.toBe(samples[i - 1]!.dash);
      // The focused shape (reached by Tab, the drawing's one tab stop) is ringed: the same points
      // in a line 3 px wider on each side, 3:1 or more against the drawing (WCAG 2.4.7, 1.4.11).
      await page.getByRole('button', { name: 'Next not finished' }).focus();
      await page.keyboard.press('Tab');
      const focused = page.locator('[data-testid="asset-line"]:focus');
      await expect(focused).toHaveCount(1);
      const ring = page.getByTestId('focus-ring');
      await expect(ring).toHaveCount(1);
      expect(await ring.getAttribute('points')).toBe(await focused.getAttribute('points'));
      const [ringStroke, ringWidth] = await ring.evaluate((el) => {
        const s = getComputedStyle(el);
        return [s.stroke, parseFloat(s.strokeWidth)] as const;
      });
      expect(contrast(ringStroke, ground)).toBeGreaterThanOrEqual(3);
      // The focused shape is drawn again, thicker, over its ring in the overlay (AssetOverlay.tsx).
      const highlight = page.getByTestId('asset-highlight');
      await expect(highlight).toHaveAttribute('data-highlight', (await focused.getAttribute('data-asset'))!);
      expect(ringWidth).toBeGreaterThanOrEqual(Number(await highlight.getAttribute('stroke-width')) + 4);
      // And it is painted: the same shape, still drawn as the focused one, looks different once blurred.
      const box = (await ring.boundingBox())!;
      const clip = { x: box.x - 10, y: box.y - 10, width: box.width + 20, height: box.height + 20 };
      const withRing = await page.screenshot({ clip, animations: 'disabled' });
      await focused.evaluate((el) => (el as SVGElement).blur());
      await expect(ring).toHaveCount(0);
      await expect(highlight).toHaveAttribute('stroke-width', /^(7|5|16)$/);
      expect((await page.screenshot({ clip, animations: 'disabled' })).equals(withRing)).toBe(false);
      expect(await violations(page)).toEqual({});
    });
  });
}
