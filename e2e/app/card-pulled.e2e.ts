import { expect, test } from '@playwright/test';
import { mkdirSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import { writeFakeCard } from '../../main/card/fake-card.js';
import { capBandwidth, liftBandwidthCap, registerAndStartUploading } from './card-steps.js';
import { useApp } from './harness.js';
import { SIZES } from './shots.js';

// In the app: a card pulled out while its recordings upload straight from it
// is one line, "Card removed: put it back to continue (N recordings waiting)", and no red row;
// put back under another mount folder name, the uploads finish without a click.
const MiB = 1024 * 1024;

const app = useApp('app-card-pulled', {
  viewport: SIZES.large,
  beforeStop: liftBandwidthCap,
});

test('a card pulled mid-upload is one line, not a red row per file; put back under another name, the uploads finish by themselves', async ({
  page,
}) => {
  const mount = join(app.work, 'media');
  const pocket = join(app.work, 'pocket');
  mkdirSync(pocket);
  const card = writeFakeCard(join(mount, 'X4'), { recordings: 2, bytes: 6 * MiB });
  await capBandwidth(app.h, 2 * MiB);
  await app.h.drop([card.root]);
  await registerAndStartUploading(page, app.h, 2);

  renameSync(card.root, join(pocket, 'X4'));
  const state = page.getByTestId('queue-state');
  await expect(state).toHaveText('Card X4 removed: put it back to continue (2 recordings waiting)', {
    timeout: 30_000,
  });
  await expect(state).toHaveAttribute('data-kind', 'card-removed');
  await expect(page.getByTestId('queue-state-detail')).toHaveText(
    'uploads resume by themselves once it is back, under any name · nothing lost',
  );
  await expect(page.locator('.file-row.failed')).toHaveCount(0);
  expect(
    app.h
      .queue()
      .allFiles()
      .filter((f) => f.state === 'failed'),
  ).toEqual([]);
  // Each file left on it says which card it waits for, not that it waits for its turn.
  const onCard = app.h
    .queue()
    .allFiles()
    .filter((f) => f.state !== 'completed').length;
  expect(onCard).toBeGreaterThan(0);
  await expect(page.locator('.file-row').filter({ hasText: 'Waiting for card X4' })).toHaveCount(onCard);

  await liftBandwidthCap(app);
  renameSync(join(pocket, 'X4'), join(mount, 'X4_1'));
  // Random bytes carry no Insta360 trailer: the finish says so.
  await expect(state).toHaveText('All 4 files uploaded, 2 captures with warnings', { timeout: 40_000 });
  expect(
    app.h
      .queue()
      .allFiles()
      .map((f) => f.path.startsWith(join(mount, 'X4_1', 'DCIM')))
      .every(Boolean),
  ).toBe(true);
});
