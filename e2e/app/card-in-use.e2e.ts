import { expect, test } from '@playwright/test';
import { mkdirSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import {
  capBandwidth,
  chooseUploadFromCard,
  liftBandwidthCap,
  mountCard,
  registerAndStartUploading,
} from './card-steps.js';
import { useApp } from './harness.js';
import { SIZES } from './shots.js';

// A card the queue uploads from is the queue's to remember, not the window's: after a restart,
// still in the reader or pulled and put back under another mount name, it is shown as in use
// and never offered again as a new card (main/service/cards-in-use.ts).
const MiB = 1024 * 1024;
test.describe.configure({ timeout: 180_000 });

const app = useApp('app-card-in-use', {
  mounts: true,
  viewport: SIZES.large,
  beforeStop: liftBandwidthCap,
});

test('after a restart the card being uploaded from is shown in use, not offered; pulled, restarted and put back, it is not offered either', async ({
  page,
}) => {
  await chooseUploadFromCard(page, app.h);

  const { root } = mountCard(app, 'X4', 2, 6 * MiB);
  await capBandwidth(app.h, 1 * MiB);
  const offer = page.getByTestId('card-offer');
  await offer.getByRole('button', { name: 'Upload from the card X4' }).click({ timeout: 15_000 });
  await registerAndStartUploading(page, app.h, 2);

  // A restart while it uploads from the card: the new window knows nothing of it, the queue does.
  await app.h.restart();
  const inUse = page.getByTestId('card-in-use');
  await expect(inUse).toContainText(
    'Card X4 in use: 2 recordings upload from it. Keep it in the reader until they finish.',
    { timeout: 15_000 },
  );
  await expect(offer).toHaveCount(0);
  await expect(page.getByRole('button', { name: /Upload from the card X4|Import X4/ })).toHaveCount(0);

  // Pulled: its files wait for it by name. Restarted, then put back under another mount name.
  const pocket = join(app.work, 'pocket');
  mkdirSync(pocket);
  renameSync(root, join(pocket, 'X4'));
  await expect(page.locator('.file-row').filter({ hasText: 'Waiting for card X4' }).first()).toBeVisible({
    timeout: 30_000,
  });
  await app.h.restart();
  await expect(page.getByTestId('queue-state')).toContainText('Card X4 removed', { timeout: 15_000 });
  renameSync(join(pocket, 'X4'), join(app.mounts, 'X4_1'));
  await expect(inUse).toContainText('Card X4_1 in use', { timeout: 15_000 });
  await expect(offer).toHaveCount(0);
  // Back and resumed: queued at its new mount, it is still in use and still not offered.
  await expect
    .poll(
      () =>
        app.h
          .queue()
          .allFiles()
          .filter((f) => f.state !== 'completed')
          .every((f) => f.path.startsWith(join(app.mounts, 'X4_1'))),
      { timeout: 30_000 },
    )
    .toBe(true);
  await expect(inUse).toContainText(/Card X4_1 in use: .*upload.* from it/);
  await expect(offer).toHaveCount(0);
  await liftBandwidthCap(app);
  await expect.poll(() => app.h.filesIn('completed'), { timeout: 60_000 }).toBe(4);
});
