import { AxeBuilder } from '@axe-core/playwright';
import { expect, test } from '@playwright/test';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { basename, join, sep } from 'node:path';
import { chooseUploadFromCard, mountCard } from './card-steps.js';
import { useApp } from './harness.js';
import { registerAll } from './register-steps.js';
import { SIZES } from './shots.js';
import { expectStoredByteIdentical, sha256 } from './stored.js';

// With "Upload straight from the card" on in Settings, a card
// that appears is offered as "Upload from the card", not Import: its recordings are listed for
// placement at the card's own paths and upload from the card, and nothing is copied to the library.

const app = useApp('app-card-from-card', { mounts: true, viewport: SIZES.large });

test('with "Upload straight from the card" on, a card is offered as Upload from the card and uploads byte-identical from the card, with no copy in the library', async ({
  page,
}) => {
  const library = join(app.work, 'library');
  await chooseUploadFromCard(page, app.h, library);

  const size = 1024 * 1024 + 3;
  const { root, recordings } = mountCard(app, 'X4_CARD', 2, size);
  const hashes = new Map(recordings.map((p) => [basename(p), sha256(readFileSync(p))]));

  const offer = page.getByTestId('card-offer');
  await expect(offer).toContainText('Insta360 card, 2 recordings', { timeout: 15_000 });
  // The sentence says what the button will do: no copy, the card stays in until its uploads finish.
  await expect(offer).toContainText('Uploads read straight from the card: keep it in the reader until they finish.');
  await expect(offer.getByRole('button', { name: 'Import X4_CARD' })).toHaveCount(0);
  const { violations } = await new AxeBuilder({ page }).include('section.cards').analyze();
  expect(violations.map((v) => v.id)).toEqual([]);

  await offer.getByRole('button', { name: 'Upload from the card X4_CARD' }).click();
  await expect(page.getByTestId('capture-row')).toHaveCount(2, { timeout: 30_000 });
  // Handed over: the card is not offered again while it stays mounted.
  await expect(offer).toHaveCount(0);
  await registerAll(page, 'Tower A · Level 1', 2);

  await expect.poll(() => app.h.filesIn('completed'), { timeout: 60_000 }).toBe(4);
  // Queued at the card's own paths, not the library's.
  const paths = app.h
    .queue()
    .allFiles()
    .map((f) => f.path);
  expect(paths.every((p) => p.startsWith(join(root, 'DCIM')))).toBe(true);
  await expectStoredByteIdentical(app.h, hashes, 4);
  // No copy, no offload: the library holds only the first-frame thumbnails it caches.
  const held = existsSync(library) ? readdirSync(library, { recursive: true, encoding: 'utf8' }) : [];
  expect(held.filter((p) => p !== '.thumbnails' && !p.startsWith(`.thumbnails${sep}`))).toEqual([]);
  expect(app.h.queue().db.prepare('SELECT COUNT(*) AS n FROM offloads').get()).toEqual({ n: 0 });
});
