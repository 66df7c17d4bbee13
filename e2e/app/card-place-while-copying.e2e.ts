import { AxeBuilder } from '@axe-core/playwright';
import { expect, test } from '@playwright/test';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { mountCard } from './card-steps.js';
import { useApp } from './harness.js';
import { registerAll } from './register-steps.js';
import { SIZES, shots } from './shots.js';
import { expectStoredByteIdentical, sha256 } from './stored.js';

// The person places every recording right after clicking Import, while the card is
// still being copied, and walks away. What was placed waits for its verified copy, never reads
// the card, and uploads byte-identical from the copy once it verifies; nothing is sent twice.

const app = useApp('app-card-place', {
  mounts: true,
  copyGate: true,
  beforeStop: async (a) => {
    writeFileSync(a.gate, '');
  },
});

test('recordings placed while their card is copied wait for their verified copies, then upload from them byte-identical, once each', async ({
  page,
}, info) => {
  const size = 6 * 1024 * 1024 + 7;
  const { root, recordings } = mountCard(app, 'X4_CARD', 3, size);
  const hashes = new Map(recordings.map((p) => [basename(p), sha256(readFileSync(p))]));

  const offer = page.getByTestId('card-offer');
  await expect(offer).toContainText('Insta360 card, 3 recordings', { timeout: 15_000 });
  await offer.getByRole('button', { name: 'Import X4_CARD' }).click();

  // At once, before any copy is verified: every recording listed at the card, each saying so.
  const rows = page.getByTestId('capture-row');
  await expect(rows).toHaveCount(3, { timeout: 15_000 });
  await expect(page.locator('[data-testid="copy-state"][data-state="copying"]')).toHaveCount(3);
  await expect(rows.first().getByTestId('copy-state')).toHaveText('· Copying');
  const { violations } = await new AxeBuilder({ page }).include('table.capture-table').analyze();
  expect(violations.map((v) => ({ rule: v.id, nodes: v.nodes.map((n) => n.target.join(' ')) }))).toEqual([]);
  await shots(page, info, '33-card-copying-register');
  // In the smallest window too, "· Copying" is seen whole, inside its cell: a long name is cut to
  // "…", never the words after it (a row that read "segment 001 · …" said nothing).
  await page.setViewportSize(SIZES.small);
  for (const row of await rows.all()) {
    const [cell, words] = await Promise.all([
      row.locator('td.recording').boundingBox(),
      row.getByTestId('copy-state').boundingBox(),
    ]);
    expect(words!.x + words!.width, (await row.getAttribute('data-key')) ?? '').toBeLessThanOrEqual(
      cell!.x + cell!.width,
    );
  }
  await page.setViewportSize(SIZES.large);
  await registerAll(page, 'Tower A · Level 1', 3);

  // Registered and held: queued at the card's paths, not one part sent, the queue row says why.
  await expect.poll(() => app.h.capturesIn('registered'), { timeout: 15_000 }).toBe(3);
  const held = app.h.queue().allFiles();
  expect(held.map((f) => [f.path.startsWith(`${root}/`), f.state, f.awaitingCopy])).toEqual(
    Array(6).fill([true, 'pending', true]),
  );
  await expect(page.locator('[data-testid="file-row"][data-awaiting-copy="true"]')).toHaveCount(6);
  await expect(page.locator('[data-testid="file-row"][data-awaiting-copy="true"]').first()).toContainText(
    'Waiting for its verified copy',
  );
  await expect(page.locator('.file-row.failed')).toHaveCount(0);
  // The queue opens below the registration step: its rows brought to the top of the window.
  await shots(page, info, '34-queue-waiting-for-copy', () =>
    page.getByRole('region', { name: 'Upload queue' }).evaluate((e) => e.scrollIntoView({ block: 'start' })),
  );
  expect(app.h.svc.storage.received.filter((r) => r.operation === 'UploadPart')).toEqual([]);

  // The copies verify; the card is pulled as soon as it is said safe.
  writeFileSync(app.gate, '');
  await expect(page.getByTestId('card-safe')).toContainText('Card safe to remove: 6 files', { timeout: 30_000 });
  rmSync(root, { recursive: true });
  expect(existsSync(root)).toBe(false);

  await expect.poll(() => app.h.filesIn('completed'), { timeout: 60_000 }).toBe(6);
  const files = app.h.queue().allFiles();
  const library = join(app.h.dataDir, 'Videos', 'Capture Uploader');
  expect(files.every((f) => f.path.startsWith(join(library, 'X4_CARD_')) && !f.awaitingCopy)).toBe(true);
  // One capture per recording, every object the card's file byte for byte, every part sent once.
  expect(app.h.queue().captures()).toHaveLength(3);
  await expectStoredByteIdentical(app.h, hashes, 6);
  const parts = app.h.svc.storage.received.filter((r) => r.operation === 'UploadPart');
  expect(new Set(parts.map((p) => `${p.key} ${p.partNumber}`)).size).toBe(parts.length);
  expect(parts).toHaveLength(6 * 2);
});
