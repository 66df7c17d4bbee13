import type { Page } from '@playwright/test';
import { expect } from '@playwright/test';
import { renameSync } from 'node:fs';
import { join } from 'node:path';
import { writeFakeCard } from '../../main/card/fake-card.js';
import type { AppHarness, AppTest } from './harness.js';
import { registerAll } from './register-steps.js';

/**
 * Steps of the card browser tests (useApp with `mounts`): a generated card appearing under the
 * watched mount folder, the Settings choices of the card imports, and uploads slowed so a test
 * can act while they run.
 */

/** A card written by mountCard, at its mount. */
export interface MountedCard {
  /** `<mounts>/<name>`, absolute. */
  root: string;
  /** Absolute paths of every .insv lens file on it, at the mount. */
  recordings: string[];
}

/**
 * Writes a fake Insta360 card (main/card/fake-card.ts: `recordings` recordings of two lenses,
 * `bytes` bytes each) aside in `<work>/staging` and moves it under the mount folder at once, as a
 * volume appears when mounted: the watcher never sees a half-written card.
 */
export function mountCard(
  app: Pick<AppTest, 'work' | 'mounts'>,
  name: string,
  recordings: number,
  bytes: number,
): MountedCard {
  const card = writeFakeCard(join(app.work, 'staging', name), { recordings, bytes });
  const root = join(app.mounts, name);
  renameSync(card.root, root);
  return { root, recordings: card.recordings.map((p) => p.replace(card.root, root)) };
}

/**
 * In Settings, Card imports: sets the library folder to `library` when given, turns on "Upload
 * straight from the card", saves, waits until the settings store holds it, and goes back to the
 * Upload tab.
 */
export async function chooseUploadFromCard(page: Page, h: AppHarness, library?: string): Promise<void> {
  await page.getByRole('tab', { name: 'Settings' }).click();
  const section = page.getByRole('form', { name: 'Card imports' });
  if (library !== undefined) await section.getByLabel('Library folder').fill(library);
  await section.getByLabel(/Upload straight from the card/).check();
  await section.getByRole('button', { name: 'Save card import settings' }).click();
  await expect
    .poll(() => (h.store.get('library') as { uploadFromCard?: boolean } | undefined)?.uploadFromCard)
    .toBe(true);
  await page.getByRole('tab', { name: 'Upload' }).click();
}

/** Caps the test service's storage at `bytesPerSecond` (bytes per second), so uploads take a while. */
export async function capBandwidth(h: AppHarness, bytesPerSecond: number): Promise<void> {
  await h.svc.admin('PUT', '/settings', { bandwidthBytesPerSecond: bytesPerSecond });
}

/** Lifts the cap capBandwidth set (also as useApp's `beforeStop`, so the service stops at once). */
export async function liftBandwidthCap(app: Pick<AppTest, 'h'>): Promise<void> {
  await app.h.svc.admin('PUT', '/settings', { bandwidthBytesPerSecond: null });
}

/**
 * Waits for `count` recordings listed for placement, registers them all in Tower A · Level 1,
 * and waits until the queue has stored at least one part: the uploads are under way.
 */
export async function registerAndStartUploading(page: Page, h: AppHarness, count: number): Promise<void> {
  await expect(page.getByTestId('capture-row')).toHaveCount(count, { timeout: 30_000 });
  await registerAll(page, 'Tower A · Level 1', count);
  const stored = () =>
    h
      .queue()
      .allFiles()
      .reduce((n, f) => n + f.storedParts, 0);
  await expect.poll(stored, { timeout: 30_000 }).toBeGreaterThanOrEqual(1);
}
