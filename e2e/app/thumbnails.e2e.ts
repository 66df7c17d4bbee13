import { AxeBuilder } from '@axe-core/playwright';
import type { Locator, Page } from '@playwright/test';
import { expect, test } from '@playwright/test';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { writeFakeCard } from '../../main/card/fake-card.js';
import { contentFingerprint } from '../../main/intake/file-identity.js';
import { AppHarness } from './harness.js';
import { SIZES, shots } from './shots.js';
import { registerAll } from './register-steps.js';

// A thumbnail per recording in the registration table, a frame a second in decoded by Chromium's
// own decoder (WebCodecs, in the window's decoding worker) from the service's loopback media
// server, from the camera's preview (LRV) where the card has one; cached in the library folder;
// the neutral icon where it cannot be decoded, never a broken image.
const ORIGIN = `http://127.0.0.1:${process.env.E2E_PORT ?? 4173}`;
const fixtures = fileURLToPath(new URL('../../../shared/fixtures/', import.meta.url));

let h: AppHarness;
let work: string;
test.beforeEach(async ({ page }) => {
  h = await AppHarness.start(page, ORIGIN);
  work = mkdtempSync(join(tmpdir(), 'thumbs-e2e-'));
  // Counts the video elements the page creates (the decoder's only way in), per page load.
  await page.addInitScript(() => {
    const w = window as unknown as { __videos: number };
    w.__videos = 0;
    const create = document.createElement.bind(document);
    document.createElement = ((tag: string, options?: ElementCreationOptions) => {
      if (String(tag).toLowerCase() === 'video') w.__videos++;
      return create(tag, options);
    }) as typeof document.createElement;
  });
});
test.afterEach(async () => {
  await h.stop();
  rmSync(work, { recursive: true, force: true });
});

const row = (page: Page, text: string) => page.getByTestId('capture-row').filter({ hasText: text });
const videosCreated = (page: Page) => page.evaluate(() => (window as unknown as { __videos: number }).__videos);

/** How many distinct colours (rounded to 16 levels a channel) the image shows: 1 for a blank frame. */
function coloursOf(img: Locator): Promise<number> {
  return img.evaluate(async (el: HTMLImageElement) => {
    await el.decode();
    const c = document.createElement('canvas');
    c.width = el.naturalWidth;
    c.height = el.naturalHeight;
    const ctx = c.getContext('2d')!;
    ctx.drawImage(el, 0, 0);
    const d = ctx.getImageData(0, 0, c.width, c.height).data;
    const seen = new Set<number>();
    for (let i = 0; i < d.length; i += 4) seen.add(((d[i]! >> 4) << 8) | ((d[i + 1]! >> 4) << 4) | (d[i + 2]! >> 4));
    return seen.size;
  });
}

/** Images in the page that failed to load (a broken image shows as one with no natural width). */
const brokenImages = (page: Page) =>
  page.evaluate(() => [...document.images].filter((i) => i.complete && i.naturalWidth === 0).map((i) => i.alt));

test('the registration table shows each recording’s first frame, the icon for one Chromium cannot decode, reads them from the cache the second time, and the queue shows them too', async ({
  page,
}, info) => {
  test.setTimeout(120_000);
  const garbage = writeFakeCard(join(work, 'card'), { recordings: 1 }).recordings;
  const mp4 = join(fixtures, 'walkthrough.mp4');
  const insv = join(fixtures, 'sample.insv');
  const cache = join(h.dataDir, 'Videos', 'Capture Uploader', '.thumbnails');

  await page.setViewportSize(SIZES.large);
  await page.goto('/');
  await page.getByRole('button', { name: 'Use the local test service' }).click();
  await expect(page.getByText('Drop Insta360 recordings here')).toBeVisible();
  await h.drop([mp4, insv, ...garbage]);

  // The real recordings: a first frame with a picture in it, not a blank or a broken image. The
  // test pattern is colourful; the Insta360 fixture was filmed in the dark (its pixels average
  // 5 of 255), so a few shades tell it from a blank.
  for (const [name, least] of [
    ['walkthrough.mp4', 100],
    ['sample.insv', 3],
  ] as const) {
    const img = row(page, name).getByRole('img', { name: `First frame of ${name}` });
    await expect(img).toHaveAttribute('data-state', 'image', { timeout: 60_000 });
    expect(await coloursOf(img)).toBeGreaterThanOrEqual(least);
  }
  // The generated lens is random bytes: the neutral icon, with Chromium's reason as its title.
  const none = row(page, 'segment 001').getByTestId('thumbnail');
  await expect(none).toHaveAttribute('data-state', 'none', { timeout: 60_000 });
  await expect(none).toHaveAttribute('role', 'img');
  await expect(none).toHaveAttribute('aria-label', 'No preview of VID_20261124_080000_00_001.insv');
  await expect(none).toHaveAttribute('title', /^No preview: /);
  expect(await brokenImages(page)).toEqual([]);
  // Decoded in the worker: no video element on the page's main thread.
  expect(await videosCreated(page)).toBe(0);

  // Kept in the library by content fingerprint: the JPEGs and the verdict for the undecodable one.
  const key = async (p: string) => contentFingerprint(p, readFileSync(p).length);
  const jpeg = readFileSync(join(cache, `${await key(mp4)}.jpg`));
  expect(jpeg.subarray(0, 3).equals(Buffer.from([0xff, 0xd8, 0xff]))).toBe(true);
  expect(existsSync(join(cache, `${await key(insv)}.jpg`))).toBe(true);
  expect(readFileSync(join(cache, `${await key(garbage[0]!)}.none`), 'utf8')).toMatch(/^No preview: /);
  expect(readdirSync(cache).sort()).toHaveLength(3);

  const { violations } = await new AxeBuilder({ page }).include('.capture-table').analyze();
  expect(violations.map((v) => ({ rule: v.id, nodes: v.nodes.map((n) => n.target.join(' ')) }))).toEqual([]);
  await shots(page, info, '40-register-thumbnails');

  // A second load (the window reloaded, its memory gone): the same images from the cache, and no
  // video element at all: nothing is decoded again.
  await page.reload();
  await expect(page.getByText('Drop Insta360 recordings here')).toBeVisible();
  await h.drop([mp4, insv, ...garbage]);
  const again = row(page, 'walkthrough.mp4').getByRole('img', { name: 'First frame of walkthrough.mp4' });
  await expect(again).toHaveAttribute('src', `data:image/jpeg;base64,${jpeg.toString('base64')}`);
  await expect(row(page, 'sample.insv').getByTestId('thumbnail')).toHaveAttribute('data-state', 'image');
  await expect(row(page, 'segment 001').getByTestId('thumbnail')).toHaveAttribute('data-state', 'none');
  expect(await videosCreated(page)).toBe(0);
  expect(await brokenImages(page)).toEqual([]);

  // Registered, the captures keep their thumbnails in the queue's rows, from the same cache.
  await registerAll(page, 'Tower A · Level 1', 3);
  const queued = page.locator('[data-testid="queue-capture"]');
  await expect(queued.getByRole('img', { name: 'First frame of walkthrough.mp4' })).toHaveAttribute(
    'src',
    `data:image/jpeg;base64,${jpeg.toString('base64')}`,
  );
  await expect(queued.getByRole('img', { name: 'First frame of sample.insv' })).toBeVisible();
  await expect(queued.getByRole('img', { name: 'No preview of VID_20261124_080000_00_001.insv' })).toBeVisible();
  expect(await videosCreated(page)).toBe(0);
  expect(await brokenImages(page)).toEqual([]);
  const a11y = await new AxeBuilder({ page }).include('.queue-list').analyze();
  expect(a11y.violations.map((v) => ({ rule: v.id, nodes: v.nodes.map((n) => n.target.join(' ')) }))).toEqual([]);
  await shots(page, info, '41-queue-thumbnails', () => queued.first().scrollIntoViewIfNeeded());
});

test('a card with previews (LRV): each thumbnail is decoded from the preview beside its recording, off the page’s main thread', async ({
  page,
}) => {
  test.setTimeout(120_000);
  // The lenses are random bytes (nothing a decoder takes), each preview the real Insta360 recording.
  const card = writeFakeCard(join(work, 'card'), {
    recordings: 3,
    media: { preview: readFileSync(join(fixtures, 'sample.insv')) },
    previewExt: 'lrv',
  });
  await page.goto('/');
  await page.getByRole('button', { name: 'Use the local test service' }).click();
  await expect(page.getByText('Drop Insta360 recordings here')).toBeVisible();
  await h.drop([card.root]);
  await expect(page.getByTestId('capture-row')).toHaveCount(3, { timeout: 30_000 });
  for (const n of ['001', '002', '003']) {
    const img = row(page, `segment ${n}`).getByRole('img', { name: /^First frame of VID_/ });
    await expect(img).toHaveAttribute('data-state', 'image', { timeout: 60_000 });
    expect(await coloursOf(img)).toBeGreaterThanOrEqual(3);
  }
  expect(await videosCreated(page)).toBe(0);
  expect(await brokenImages(page)).toEqual([]);
});

test('the media server reads only recordings the table lists: another path is refused', async ({ page }) => {
  await page.goto('/');
  await expect(h.invoke('capture:thumbnails.get', { path: join(fixtures, 'walkthrough.mp4') })).rejects.toThrow(
    /not among the recordings listed/,
  );
  await h.invoke('capture:files.inspect', [join(fixtures, 'walkthrough.mp4')]);
  const view = await h.invoke('capture:thumbnails.get', { path: join(fixtures, 'walkthrough.mp4') });
  expect(view.kind).toBe('frames');
  const url = (view as { url: string }).url;
  const ok = await fetch(url, { headers: { Range: 'bytes=0-7' } });
  expect(ok.status).toBe(206);
  expect(
    Buffer.from(await ok.arrayBuffer())
      .subarray(4, 8)
      .toString(),
  ).toBe('ftyp');
  expect((await fetch(url.replace(/\/\d+$/, '/2'))).status).toBe(404);
});
