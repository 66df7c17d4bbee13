import { expect, test } from '@playwright/test';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeFakeCard } from '../../main/card/fake-card.js';
import { useApp } from './harness.js';
import { SIZES } from './shots.js';

// A folder dropped by mistake (a whole drive, a backup of years) is read for a long time: the
// person stops it from the window, and the call stops in the service (docs/decisions/0026-renderer-cancel.md).

const app = useApp('app-stop-reading', { viewport: SIZES.large });

test('Stop reading stops a long inspection: nothing is listed, the notice says so, and the next drop is read', async ({
  page,
}) => {
  // Enough files that the reading is still walking them when Stop is pressed.
  const big = join(app.work, 'DCIM-backup');
  mkdirSync(big);
  for (let i = 0; i < 40_000; i++) writeFileSync(join(big, `clip-${i}.mp4`), 'x');
  await app.h.drop([big]);
  const stop = page.getByRole('button', { name: 'Stop reading' });
  await expect(stop).toBeVisible();
  await stop.click();
  await expect(page.getByText('Reading stopped: nothing was added from the item dropped.')).toBeVisible();
  await expect(stop).toBeHidden();
  await expect(page.getByText('New captures')).toHaveCount(0);
  expect(app.h.queue().allFiles()).toEqual([]);

  // The service answers the next drop: a small folder is listed as usual.
  const card = writeFakeCard(join(app.work, 'X4_CARD'), { recordings: 1 });
  await app.h.drop([card.root]);
  await expect(page.getByText('New captures')).toBeVisible({ timeout: 30_000 });
});
