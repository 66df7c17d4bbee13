import { expect, test } from '@playwright/test';
import { existsSync, mkdirSync, readFileSync, renameSync } from 'node:fs';
import { basename, join } from 'node:path';
import { formatBytes } from '../../shared/format.js';
import { expectAccessible } from './axe.js';
import { mountCard } from './card-steps.js';
import { useApp } from './harness.js';
import { registerAll } from './register-steps.js';
import { SIZES, shots } from './shots.js';
import { expectStoredByteIdentical, sha256 } from './stored.js';

// A generated card appears in a watched mount folder, the app offers it,
// Import copies it with verification, "Card safe to remove" shows, the card's folder is removed,
// and the uploads complete byte-identical from the copies in the library.

const app = useApp('app-card-import', { mounts: true, viewport: SIZES.large });

test('a card that appears is offered, imported with verification, removed once safe, and uploaded byte-identical from the copies', async ({
  page,
}, info) => {
  const library = join(app.work, 'library');
  // Settings: the library folder (default in the Videos folder) and days kept.
  await page.getByRole('tab', { name: 'Settings' }).click();
  const section = page.getByRole('form', { name: 'Card imports' });
  await expect(section.getByLabel('Library folder')).toHaveValue(/Capture Uploader$/);
  await expect(section.getByLabel('Keep copies after their capture completed (days)')).toHaveValue('7');
  await expect(section.getByLabel(/Upload straight from the card/)).not.toBeChecked();
  await expect(section.getByLabel(/Copy the whole card/)).toBeChecked();
  await expect(section.getByTestId('library-use')).toHaveText('The library holds 0 imported copies (0 B).');
  await section.getByLabel('Library folder').fill(library);
  await section.getByRole('button', { name: 'Save card import settings' }).click();
  await expect.poll(() => (app.h.store.get('library') as { library?: string } | undefined)?.library).toBe(library);
  await page.getByRole('tab', { name: 'Upload' }).click();

  const size = 2 * 1024 * 1024 + 7;
  const card = mountCard(app, 'X4_CARD', 3, size);
  const hashes = new Map(card.recordings.map((p) => [basename(p), sha256(readFileSync(p))]));
  const offer = page.getByTestId('card-offer');
  await expect(offer).toContainText(`Insta360 card, 3 recordings, ${formatBytes(6 * size)}`, { timeout: 15_000 });
  // The setting off, the offer's sentence says the card is copied first.
  await expect(offer).toContainText('Copied to the library folder and verified, then uploaded from the copies.');
  await expectAccessible(page, 'section.cards');
  await shots(page, info, '30-card-offered');

  await offer.getByRole('button', { name: 'Import X4_CARD' }).click();
  const safe = page.getByTestId('card-safe');
  // The whole card: beside the 6 lens files, 3 previews (512 B), 3 thumbnails (64 B) and MISC/version.txt (8 B).
  const whole = 6 * size + 3 * (512 + 64) + 8;
  await expect(safe).toContainText(
    'Card safe to remove: 6 files and 7 other files (previews, thumbnails, MISC: the whole card)',
    { timeout: 30_000 },
  );
  await expect(page.getByTestId('import-summary')).toHaveText(
    `100 % · ${formatBytes(whole)} of ${formatBytes(whole)} copied · 6 of 6 files verified · 7 of 7 other files verified`,
  );
  await page.getByText('Files (6)').click();
  await expect(page.locator('.import-files tbody tr[data-state="verified"]')).toHaveCount(6);
  await expect(page.getByTestId('import-report')).toHaveText(
    /^Transfer report: .*\/ascmhl\/0001_X4_CARD_.*Z_transfer-report\.html$/,
  );
  await expectAccessible(page, 'section.cards');
  await shots(page, info, '31-card-safe-to-remove');
  // Eject runs the system's eject (main/card/eject.ts); the test's card is a folder, not a mounted
  // volume, so the sentence says so and what to do.
  await page.getByRole('button', { name: 'Eject X4_CARD' }).click();
  await expect(page.getByTestId('card-eject')).toHaveText(
    `X4_CARD could not be ejected: no disk is mounted at ${card.root} any more. If it is still in the reader, eject it from the file manager.`,
  );
  await expect(page.getByTestId('card-eject')).toHaveAttribute('role', 'alert');
  await expectAccessible(page, 'section.cards');

  // The operator pulls the card: from here on only the copies can be read.
  const pulled = join(app.work, 'pulled', 'X4_CARD');
  mkdirSync(join(app.work, 'pulled'));
  renameSync(card.root, pulled);
  expect(existsSync(card.root)).toBe(false);
  // Listed for placement at Import (at the card's paths); placed now, they are queued at the verified copies.
  await expect(page.getByTestId('capture-row')).toHaveCount(3, { timeout: 30_000 });
  await registerAll(page, 'Tower A · Level 1', 3);

  await expect.poll(() => app.h.filesIn('completed'), { timeout: 60_000 }).toBe(6);
  const files = app.h.queue().allFiles();
  expect(files.every((f) => f.path.startsWith(join(library, 'X4_CARD_')))).toBe(true);
  // Every stored object is the card's file, byte for byte.
  await expectStoredByteIdentical(app.h, hashes, 6);

  // The offload is on record, and the library's use is shown in Settings.
  const record = app.h.queue().db.prepare('SELECT files, bytes, verified FROM offloads').all();
  expect(record).toEqual([{ files: 13, bytes: whole, verified: 1 }]);

  // Put back the next morning under another mount name: known by its content, nothing copied again.
  await page.getByTestId('import').getByRole('button', { name: 'Dismiss' }).click();
  renameSync(pulled, join(app.mounts, 'X4_CARD1'));
  await offer.getByRole('button', { name: 'Import X4_CARD1' }).click({ timeout: 15_000 });
  await expect(page.getByTestId('card-known')).toContainText(
    /Already imported on .+ to .*X4_CARD_\S+: 3 of 3 recordings \(3 uploaded\)\. Nothing new on the card: nothing is copied\./,
    { timeout: 30_000 },
  );
  await expect(page.getByTestId('card-safe')).toHaveText(
    'Card safe to remove: every recording on it has a verified copy in the library.',
  );
  // Its recordings are not offered for placing again: each row says they are uploaded already.
  await expect(page.getByTestId('blocked-row')).toHaveCount(3, { timeout: 30_000 });
  await expect(page.getByTestId('blocked-row')).toContainText(
    Array(3).fill('Already uploaded: an earlier import of this card copied it.'),
  );
  await expect(page.getByTestId('capture-row')).toHaveCount(0);
  await expect(page.getByText('Not chosen')).toHaveCount(0);
  expect(app.h.queue().db.prepare('SELECT COUNT(*) AS n FROM offloads').get()).toEqual({ n: 1 });
  await page.getByRole('tab', { name: 'Settings' }).click();
  await expect(section.getByTestId('library-use')).toHaveText(
    `The library holds 13 imported copies (${formatBytes(whole)}).`,
  );
  await expectAccessible(page, 'form.library-settings');
  await shots(page, info, '32-card-library-settings', () => section.scrollIntoViewIfNeeded());
});
