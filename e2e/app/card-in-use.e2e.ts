import { expect, test } from '@playwright/test';
import { mkdirSync, mkdtempSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeFakeCard } from '../../main/card/fake-card.js';
import { AppHarness } from './harness.js';
import { registerAll } from './register-steps.js';
import { SIZES } from './shots.js';

// A card the queue uploads from is the queue's to remember, not the window's: after a restart,
// still in the reader or pulled and put back under another mount name, it is shown as in use
// and never offered again as a new card (main/service/cards-in-use.ts).
const ORIGIN = `http://127.0.0.1:${process.env.E2E_PORT ?? 4173}`;
const MiB = 1024 * 1024;
test.describe.configure({ timeout: 180_000 });

let h: AppHarness;
let work: string;
let mounts: string;
test.beforeEach(async ({ page }) => {
  work = mkdtempSync(join(tmpdir(), 'app-card-in-use-'));
  mounts = join(work, 'media');
  mkdirSync(mounts);
  h = await AppHarness.start(page, ORIGIN, { cards: { roots: [mounts], pollMs: 300 } });
  await page.setViewportSize(SIZES.large);
  await page.goto('/');
  await page.getByRole('button', { name: 'Use the local test service' }).click();
  await expect(page.getByText('Drop Insta360 recordings here')).toBeVisible();
});
test.afterEach(async () => {
  await h.svc.admin('PUT', '/settings', { bandwidthBytesPerSecond: null });
  await h.stop();
  rmSync(work, { recursive: true, force: true });
});

test('after a restart the card being uploaded from is shown in use, not offered; pulled, restarted and put back, it is not offered either', async ({
  page,
}) => {
  await page.getByRole('tab', { name: 'Settings' }).click();
  const section = page.getByRole('form', { name: 'Card imports' });
  await section.getByLabel(/Upload straight from the card/).check();
  await section.getByRole('button', { name: 'Save card import settings' }).click();
  await expect
    .poll(() => (h.store.get('library') as { uploadFromCard?: boolean } | undefined)?.uploadFromCard)
    .toBe(true);
  await page.getByRole('tab', { name: 'Upload' }).click();

  const staged = writeFakeCard(join(work, 'staging', 'X4'), { recordings: 2, bytes: 6 * MiB });
  const root = join(mounts, 'X4');
  renameSync(staged.root, root);
  await h.svc.admin('PUT', '/settings', { bandwidthBytesPerSecond: 1 * MiB });
  const offer = page.getByTestId('card-offer');
  await offer.getByRole('button', { name: 'Upload from the card X4' }).click({ timeout: 15_000 });
  await expect(page.getByTestId('capture-row')).toHaveCount(2, { timeout: 30_000 });
  await registerAll(page, 'Tower A · Level 1', 2);
  const stored = () =>
    h
      .queue()
      .allFiles()
      .reduce((n, f) => n + f.storedParts, 0);
  await expect.poll(stored, { timeout: 30_000 }).toBeGreaterThanOrEqual(1);

  // A restart while it uploads from the card: the new window knows nothing of it, the queue does.
  await h.restart();
  const inUse = page.getByTestId('card-in-use');
  await expect(inUse).toContainText(
    'Card X4 in use: 2 recordings upload from it. Keep it in the reader until they finish.',
    { timeout: 15_000 },
  );
  await expect(offer).toHaveCount(0);
  await expect(page.getByRole('button', { name: /Upload from the card X4|Import X4/ })).toHaveCount(0);

  // Pulled: its files wait for it by name. Restarted, then put back under another mount name.
  const pocket = join(work, 'pocket');
  mkdirSync(pocket);
  renameSync(root, join(pocket, 'X4'));
  await expect(page.locator('.file-row').filter({ hasText: 'Waiting for card X4' }).first()).toBeVisible({
    timeout: 30_000,
  });
  await h.restart();
  await expect(page.getByTestId('queue-state')).toContainText('Card X4 removed', { timeout: 15_000 });
  renameSync(join(pocket, 'X4'), join(mounts, 'X4_1'));
  await expect(inUse).toContainText('Card X4_1 in use', { timeout: 15_000 });
  await expect(offer).toHaveCount(0);
  // Back and resumed: queued at its new mount, it is still in use and still not offered.
  await expect
    .poll(
      () =>
        h
          .queue()
          .allFiles()
          .filter((f) => f.state !== 'completed')
          .every((f) => f.path.startsWith(join(mounts, 'X4_1'))),
      { timeout: 30_000 },
    )
    .toBe(true);
  await expect(inUse).toContainText(/Card X4_1 in use: .*upload.* from it/);
  await expect(offer).toHaveCount(0);
  await h.svc.admin('PUT', '/settings', { bandwidthBytesPerSecond: null });
  await expect
    .poll(
      () =>
        h
          .queue()
          .allFiles()
          .filter((f) => f.state === 'completed').length,
      { timeout: 60_000 },
    )
    .toBe(4);
});
