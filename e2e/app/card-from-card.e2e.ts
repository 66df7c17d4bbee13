import { GetObjectCommand } from '@aws-sdk/client-s3';
import { AxeBuilder } from '@axe-core/playwright';
import { expect, test } from '@playwright/test';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, readdirSync, renameSync } from 'node:fs';
import { basename, join, sep } from 'node:path';
import { writeFakeCard } from '../../main/card/fake-card.js';
import { useApp } from './harness.js';
import { registerAll } from './register-steps.js';
import { SIZES } from './shots.js';

// With "Upload straight from the card" on in Settings, a card
// that appears is offered as "Upload from the card", not Import: its recordings are listed for
// placement at the card's own paths and upload from the card, and nothing is copied to the library.

const app = useApp('app-card-from-card', { mounts: true, viewport: SIZES.large });

const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

test('with "Upload straight from the card" on, a card is offered as Upload from the card and uploads byte-identical from the card, with no copy in the library', async ({
  page,
}) => {
  const library = join(app.work, 'library');
  await page.getByRole('tab', { name: 'Settings' }).click();
  const section = page.getByRole('form', { name: 'Card imports' });
  await section.getByLabel('Library folder').fill(library);
  await section.getByLabel(/Upload straight from the card/).check();
  await section.getByRole('button', { name: 'Save card import settings' }).click();
  await expect
    .poll(() => (app.h.store.get('library') as { uploadFromCard?: boolean } | undefined)?.uploadFromCard)
    .toBe(true);
  await page.getByRole('tab', { name: 'Upload' }).click();

  const size = 1024 * 1024 + 3;
  const staged = writeFakeCard(join(app.work, 'staging', 'X4_CARD'), { recordings: 2, bytes: size });
  const root = join(app.mounts, 'X4_CARD');
  renameSync(staged.root, root);
  const onCard = staged.recordings.map((p) => p.replace(staged.root, root));
  const hashes = new Map(onCard.map((p) => [basename(p), sha256(readFileSync(p))]));

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
  const uploads = Object.values(app.h.svc.store.state.uploads).filter((u) => u.status === 'completed');
  expect(uploads).toHaveLength(4);
  for (const [name, hash] of hashes) {
    const u = uploads.find((x) => x.fileName === name)!;
    const res = await app.h.svc.s3().send(new GetObjectCommand({ Bucket: app.h.svc.info.s3.bucket, Key: u.key }));
    expect(sha256(Buffer.from(await res.Body!.transformToByteArray())), name).toBe(hash);
  }
  // No copy, no offload: the library holds only the first-frame thumbnails it caches.
  const held = existsSync(library) ? readdirSync(library, { recursive: true, encoding: 'utf8' }) : [];
  expect(held.filter((p) => p !== '.thumbnails' && !p.startsWith(`.thumbnails${sep}`))).toEqual([]);
  expect(app.h.queue().db.prepare('SELECT COUNT(*) AS n FROM offloads').get()).toEqual({ n: 0 });
});
