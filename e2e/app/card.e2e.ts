import { expect, test } from '@playwright/test';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { writeFakeCard } from '../../main/card/fake-card.js';
import { useApp } from './harness.js';
import { registerAll } from './register-steps.js';
import { SIZES } from './shots.js';

// A card is dropped as it comes out of the reader, at its root, or a folder
// of several cards; every recording is registered, and previews and thumbnails are not.

const app = useApp('app-card-root', { viewport: SIZES.large });

/** The queued files' paths, sorted, once `count` captures are in the queue. */
async function queuedPaths(count: number): Promise<string[]> {
  await expect.poll(() => app.h.queue().captures().length, { timeout: 30_000 }).toBe(count);
  return app.h
    .queue()
    .allFiles()
    .map((f) => f.path)
    .sort();
}

test("a card's root registers every recording; previews and thumbnails are one line, not uploaded", async ({
  page,
}) => {
  const card = writeFakeCard(join(app.work, 'INSTA360'), { recordings: 5 });
  await app.h.drop([card.root]);
  await expect(page.getByTestId('capture-row')).toHaveCount(5, { timeout: 30_000 });
  await expect(page.getByLabel('Not uploaded').locator('summary')).toHaveText(
    'Not uploaded: 5 previews (LRV) and 5 thumbnails (THM) and 1 other file',
  );
  await registerAll(page, 'Tower A · Level 1', 5);
  expect(await queuedPaths(5)).toEqual([...card.recordings].sort());
});

test('a folder of two cards registers the recordings of both', async ({ page }) => {
  const both = join(app.work, 'cards');
  const a = writeFakeCard(join(both, 'card-1'), { recordings: 3 });
  const b = writeFakeCard(join(both, 'card-2'), {
    recordings: 4,
    start: new Date(2026, 10, 25, 14, 0, 0),
    firstSegment: 20,
  });
  await app.h.drop([both]);
  await expect(page.getByTestId('capture-row')).toHaveCount(7, { timeout: 30_000 });
  await registerAll(page, 'Tower B · Level 2', 7);
  expect(await queuedPaths(7)).toEqual([...a.recordings, ...b.recordings].sort());
});

test('a folder without recordings says so, naming it', async ({ page }) => {
  const empty = join(app.work, 'photos');
  mkdirSync(join(empty, 'DCIM', '100MEDIA'), { recursive: true });
  await app.h.drop([empty]);
  await expect(page.getByTestId('nothing-found')).toHaveText(
    `No recordings found in ${empty} (looked for .insv, .mp4, .csv)`,
  );
});
