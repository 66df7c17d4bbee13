import { expect, test } from '@playwright/test';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeFakeCard } from '../../main/card/fake-card.js';
import { AppHarness } from './harness.js';
import { SIZES } from './shots.js';

// A folder dropped by mistake (a whole drive, a backup of years) is read for a long time: the
// person stops it from the window, and the call stops in the service (docs/decisions/port-renderer-cancel.md).
const ORIGIN = `http://127.0.0.1:${process.env.E2E_PORT ?? 4173}`;

let h: AppHarness;
let work: string;
test.beforeEach(async ({ page }) => {
  h = await AppHarness.start(page, ORIGIN);
  work = mkdtempSync(join(tmpdir(), 'app-stop-reading-'));
  await page.setViewportSize(SIZES.large);
  await page.goto('/');
  await page.getByRole('button', { name: 'Use the local test service' }).click();
  await expect(page.getByText('Drop Insta360 recordings here')).toBeVisible();
});
test.afterEach(async () => {
  await h.stop();
  rmSync(work, { recursive: true, force: true });
});

test('Stop reading stops a long inspection: nothing is listed, the notice says so, and the next drop is read', async ({
  page,
}) => {
  // Enough files that the reading is still walking them when Stop is pressed.
  const big = join(work, 'DCIM-backup');
  mkdirSync(big);
  for (let i = 0; i < 40_000; i++) writeFileSync(join(big, `clip-${i}.mp4`), 'x');
  await h.drop([big]);
  const stop = page.getByRole('button', { name: 'Stop reading' });
  await expect(stop).toBeVisible();
  await stop.click();
  await expect(page.getByText('Reading stopped: nothing was added from the item dropped.')).toBeVisible();
  await expect(stop).toBeHidden();
  await expect(page.getByText('New captures')).toHaveCount(0);
  expect(h.queue().allFiles()).toEqual([]);

  // The service answers the next drop: a small folder is listed as usual.
  const card = writeFakeCard(join(work, 'X4_CARD'), { recordings: 1 });
  await h.drop([card.root]);
  await expect(page.getByText('New captures')).toBeVisible({ timeout: 30_000 });
});
