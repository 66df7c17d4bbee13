import type { Page } from '@playwright/test';
import { expect, test } from '@playwright/test';
import { randomBytes } from 'node:crypto';
import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chooseLocalService, useApp } from './harness.js';
import { fillAccountForm } from './first-run.js';
import { shots } from './shots.js';
import { sha256, storedSha } from './stored.js';
import { applyToSelected, registerAll, registerAndConfirm } from './register-steps.js';
import { setFileState } from '../../main/testing/queue-backdoors.js';

// The built renderer in Debian's Chromium, driving the real app core, engine, queue and local
// service through the same IPC dispatcher the Electron shell registers, and the same service
// host and worker thread behind it (e2e/app/harness.ts).
const fixtures = fileURLToPath(new URL('../../../shared/fixtures/', import.meta.url));
const MiB = 1024 * 1024;
// Times are asserted in 24-hour form: the page runs under en-GB (the one time format follows the
// locale; e2e/app/time-format.e2e.ts covers a 12-hour locale).
test.use({ locale: 'en-GB' });

const app = useApp('app-files', { setUp: 'none' });

/** Scrolls the upload screen so the queue starts at the top of the window (for its screenshots). */
const showQueue = (page: Page) => () =>
  page.locator('section.queue').evaluate((el) => el.scrollIntoView({ block: 'start' }));

const row = (page: Page, fileName: string) => page.locator(`[data-testid="file-row"][data-file="${fileName}"]`);

test('first run: a wrong password shows the service error; the right account signs in', async ({ page }, info) => {
  await page.goto('/');
  await expect(page.getByRole('heading', { name: 'Welcome' })).toBeVisible();
  await shots(page, info, '01-first-run');
  const { info: s } = app.h.svc;
  await fillAccountForm(page, s, 'not-the-password');
  await page.getByRole('button', { name: 'Save and sign in' }).click();
  await expect(page.getByRole('alert')).toContainText('Sign-in failed: Invalid email or password (HTTP 401');
  await shots(page, info, '02-sign-in-error');
  await page.getByLabel('Password').fill(s.account.password);
  await page.getByRole('button', { name: 'Save and sign in' }).click();
  await expect(page.getByText('Drop Insta360 recordings here')).toBeVisible();
  // The password and API key are stored sealed, never in clear.
  expect(JSON.stringify([...app.h.store.values()])).not.toContain(s.account.password);
  expect(JSON.stringify([...app.h.store.values()])).not.toContain(s.apiKey);
});

test('drops real recordings, fills the forms from their metadata, registers and uploads every byte', async ({
  page,
}, info) => {
  await chooseLocalService(page);
  const lens0 = join(app.work, 'VID_20231121_201609_00_012.insv');
  const lens1 = join(app.work, 'VID_20231121_201609_10_012.insv');
  copyFileSync(join(fixtures, 'sample.insv'), lens0);
  copyFileSync(join(fixtures, 'sample.insv'), lens1);
  const mp4 = join(app.work, 'walkthrough.mp4');
  copyFileSync(join(fixtures, 'walkthrough.mp4'), mp4);
  const preview = join(app.work, 'LRV_20231121_201609_11_012.insv');
  writeFileSync(preview, 'low-res');
  await app.h.drop([lens1, lens0, mp4, preview]);

  const insvRow = page.getByTestId('capture-row').filter({ hasText: 'segment 012' });
  await expect(insvRow).toBeVisible();
  await expect(insvRow).toContainText('Insta360 OneR');
  const mp4Row = page.getByTestId('capture-row').filter({ hasText: 'walkthrough.mp4' });
  await expect(mp4Row).toContainText('Not chosen'); // no structure is chosen for a person
  await expect(page.getByLabel('Not uploaded')).toContainText('Not uploaded: 1 preview (LRV)');
  await page.getByLabel('Not uploaded').getByText('Not uploaded: 1 preview (LRV)').click();
  await expect(page.getByLabel('Not uploaded')).toContainText(
    'LRV_20231121_201609_11_012.insv — Low-resolution preview',
  );
  // The capture time is edited in local time, its offset beside it; unchanged it is sent as read.
  await insvRow.getByRole('button', { name: /^Capture time/ }).click();
  await expect(page.getByLabel('Capture time (local)')).toHaveValue(
    await page.evaluate(() => {
      const d = new Date('2023-11-21T20:16:09.000Z');
      const p = (n: number) => String(n).padStart(2, '0');
      return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())}T${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}`;
    }),
  );
  await expect(page.getByTestId('utc-offset')).toHaveText(/^UTC[+-]\d\d:\d\d$/);
  await page.getByRole('button', { name: 'Done' }).click();

  await insvRow.getByRole('checkbox').check();
  await applyToSelected(page, 'Tower B · Level 2', 'Exterior');
  await mp4Row.getByRole('checkbox').check();
  await applyToSelected(page, 'Tower A · Level 1');
  await shots(page, info, '03-captures-to-register');
  expect(await registerAndConfirm(page, 2)).toBe(
    '1 capture in Tower A · Level 1 (interior), 1 in Tower B · Level 2 (exterior).',
  );

  for (const name of ['VID_20231121_201609_00_012.insv', 'VID_20231121_201609_10_012.insv', 'walkthrough.mp4']) {
    await expect(row(page, name)).toHaveAttribute('data-state', 'completed', { timeout: 30_000 });
  }
  await expect(page.getByTestId('queue-summary')).toContainText('3 of 3 files completed');
  await shots(page, info, '04-uploads-completed', showQueue(page));

  expect(await storedSha(app.h, 'VID_20231121_201609_00_012.insv')).toBe(sha256(readFileSync(lens0)));
  expect(await storedSha(app.h, 'VID_20231121_201609_10_012.insv')).toBe(sha256(readFileSync(lens1)));
  expect(await storedSha(app.h, 'walkthrough.mp4')).toBe(sha256(readFileSync(mp4)));
  const registered = Object.values(app.h.svc.store.state.captures).map((c) => c.request as Record<string, unknown>);
  const tower = app.h.svc.store.state.projects[0]!.structures.find((s) => s.name === 'Tower B')!;
  expect(registered).toContainEqual(
    expect.objectContaining({
      structure: tower.id,
      design: tower.designs.find((d) => d.name === 'Level 2')!.id,
      type: 'exterior',
      captureDateTime: '2023-11-21T20:16:09.000Z',
      // From the Insta360 trailer and the MP4 header, read by main at registration.
      deviceId: 'IAEAN00000XXXX',
      metaDetails: expect.objectContaining({ frameRate: 29.97, cameraName: 'Insta360 OneR' }),
      files: [
        expect.objectContaining({ fileName: 'VID_20231121_201609_00_012.insv' }),
        expect.objectContaining({ fileName: 'VID_20231121_201609_10_012.insv' }),
      ],
    }),
  );
});

test('pauses and resumes a file, and after an app restart mid-upload the queue comes back and finishes', async ({
  page,
}, info) => {
  await chooseLocalService(page);
  await app.h.svc.admin('PUT', '/settings', { bandwidthBytesPerSecond: 3 * MiB });
  const big = join(app.work, 'VID_20261122_090000_00_001.insv');
  const bytes = randomBytes(26 * MiB);
  writeFileSync(big, bytes);
  await app.h.drop([big]);
  await registerAll(page, 'Tower A · Level 1', 1);
  const r = row(page, 'VID_20261122_090000_00_001.insv');
  await expect(r).toHaveAttribute('data-state', 'uploading');
  await expect
    .poll(async () => Number(await r.getAttribute('data-parts-done')), { timeout: 20_000 })
    .toBeGreaterThanOrEqual(1);
  await r.getByRole('button', { name: 'Pause' }).click();
  await expect(r).toHaveAttribute('data-state', 'paused');
  // A part whose bytes were all out when Pause was pressed gets 1.5 s for storage's answer and is
  // then recorded (storage has it either way); after that nothing moves.
  await page.waitForTimeout(2000);
  await shots(page, info, '05-paused', showQueue(page));
  const pausedAt = await r.getByRole('progressbar').getAttribute('value');
  expect(Number(pausedAt)).toBeGreaterThanOrEqual(19); // at least one 5 MiB part of 26 MiB is stored
  await page.waitForTimeout(1500);
  expect(await r.getByRole('progressbar').getAttribute('value')).toBe(pausedAt);

  await r.getByRole('button', { name: 'Resume' }).click();
  await expect(r).toHaveAttribute('data-state', 'uploading');
  // The upload limit applies at once to the running engine, and is kept.
  await page.getByLabel('Upload limit').selectOption({ label: '50 MiB/s (419 Mbit/s)' });
  // (The engine is in the service's worker thread: the limit it was given is the one kept.)
  await expect.poll(() => app.h.settings.view().bandwidthBytesPerSecond).toBe(50 * MiB);
  // Moving again: five points further, or to the end when the pause came late in the file.
  await expect
    .poll(async () => Number(await r.getByRole('progressbar').getAttribute('value')), { timeout: 20_000 })
    .toBeGreaterThan(Math.min(Number(pausedAt) + 5, 99));

  const before = { ...app.h.svc.storage.stats };
  await app.h.restart();
  const again = row(page, 'VID_20261122_090000_00_001.insv');
  await expect(again).toBeVisible();
  await shots(page, info, '06-after-restart', showQueue(page));
  expect(Number(await again.getByRole('progressbar').getAttribute('value'))).toBeGreaterThan(0);
  expect(app.h.settings.view().bandwidthBytesPerSecond).toBe(50 * MiB); // kept across the restart
  await app.h.svc.admin('PUT', '/settings', { bandwidthBytesPerSecond: null });
  await expect(again).toHaveAttribute('data-state', 'completed', { timeout: 60_000 });
  expect(await storedSha(app.h, 'VID_20261122_090000_00_001.insv')).toBe(sha256(bytes));
  expect(app.h.svc.storage.stats.partsReplaced - before.partsReplaced).toBe(0);
});

test('shows why bad input is refused, and the service refusal of a capture', async ({ page }, info) => {
  await chooseLocalService(page);
  const files = {
    csv: join(app.work, 'notes.csv'),
    mov: join(app.work, 'clip.mov'),
    empty: join(app.work, 'empty.mp4'),
    lens10: join(app.work, 'VID_20261122_100000_10_003.insv'),
  };
  writeFileSync(files.csv, 'x,y\n');
  writeFileSync(files.mov, 'mov');
  writeFileSync(files.empty, '');
  writeFileSync(files.lens10, 'lens');
  await app.h.drop(Object.values(files));
  // Files that are not recordings are summed up in one line, the list behind it.
  const skipped = page.getByLabel('Not uploaded');
  await expect(skipped).toContainText('Not uploaded: 2 files');
  await skipped.getByText('Not uploaded: 2 files').click();
  await expect(skipped).toContainText('notes.csv — At least one INSV or MP4 file is required, CSV is optional');
  await expect(skipped).toContainText('clip.mov — Only INSV, MP4, and CSV files are allowed');
  // Recordings that cannot be registered are rows of the table, with their reason.
  const blocked = page.getByTestId('blocked-row');
  await expect(blocked.filter({ hasText: 'empty.mp4' })).toContainText('The file is empty (0 bytes)');
  await expect(blocked.filter({ hasText: 'VID_20261122_100000_10_003.insv' })).toContainText(
    'Lens 10 of a dual-lens recording without its _00_ file; add VID_20261122_100000_00_003.insv too.',
  );
  await shots(page, info, '07-refused-files');

  // A structure the service does not know: its own 422 message comes back.
  const bogus = join(app.work, 'bogus.mp4');
  writeFileSync(bogus, randomBytes(2000));
  // Settings from an older project: the service reads them at its start (the restart reloads the page).
  app.h.settings.useLocal([{ id: 'f'.repeat(24), name: 'Old Annex', designs: [] }]);
  await app.h.restart();
  await app.h.drop([bogus]);
  await registerAll(page, 'Old Annex (no designs)', 1);
  const attention = page.getByTestId('attention');
  await expect(attention).toContainText(
    'bogus.mp4 (Old Annex): Refused by the service. Correct it and register it again, or remove it.',
  );
  await attention.getByText('The service’s words').click();
  await expect(attention.locator('.raw')).toHaveText(
    'captures[0].structure ffffffffffffffffffffffff is not a structure of this project',
  );
  await shots(page, info, '08-service-refusal');
});

test('warns when default designs changed since the last export, and requests a new one', async ({ page }, info) => {
  await chooseLocalService(page);
  const design = app.h.svc.store.state.projects[0]!.structures[0]!.designs[0]!;
  await app.h.svc.admin('POST', `/projects/${app.h.svc.info.projectId}/designs/${design.id}/touch`);
  await page.reload();
  const banner = page.getByRole('status').filter({ hasText: 'default capture designs changed' });
  await expect(banner).toContainText('the capture sheets were never exported from this computer');
  await shots(page, info, '09-designs-changed');
  await banner.getByRole('button', { name: 'Request a new export' }).click();
  await expect(
    page.getByText('Export requested: Project folder with default sheets is being generated.'),
  ).toBeVisible();
  await expect.poll(() => app.h.svc.store.state.emails.map((e) => e.to)).toContain(app.h.svc.info.account.email);
  await page.reload();
  await expect(page.getByText('default capture designs changed')).toHaveCount(0);

  // "Not now" hides the warning until the designs change again.
  await app.h.svc.admin('POST', `/projects/${app.h.svc.info.projectId}/designs/${design.id}/touch`);
  await page.reload();
  await banner.getByRole('button', { name: 'Not now' }).click();
  await expect(banner).toHaveCount(0);
  await page.reload();
  await expect(page.getByRole('heading', { name: 'Queue' })).toBeVisible();
  await expect(page.getByText('default capture designs changed')).toHaveCount(0);
  await new Promise((r) => setTimeout(r, 1100)); // the design's update time moves to a later second
  await app.h.svc.admin('POST', `/projects/${app.h.svc.info.projectId}/designs/${design.id}/touch`);
  await page.reload();
  await expect(banner).toContainText('after the capture sheets were last exported');
});

test('the queue stays responsive with 1,000 files: only the visible rows are rendered', async ({ page }, info) => {
  await chooseLocalService(page);
  const queue = app.h.queue();
  const db = queue.db;
  db.transaction(() => {
    const ids: number[] = [];
    for (let i = 0; i < 500; i++) {
      const name = (n: number) => `VID_20261122_${String(100000 + i).padStart(6, '0')}_${n}0_001.insv`;
      const id = queue.enqueueCapture(
        `recording ${i}`,
        {
          project: 'p',
          structure: 's',
          captureDateTime: '2026-11-22T10:00:00Z',
          type: 'interior',
          mode: '360 Video',
          sourceType: 'bot',
          files: [0, 1].map((n) => ({
            frameIndex: n + 1,
            fileName: name(n),
            contentType: 'video/insv',
            size: 1000 + i,
          })),
        },
        [0, 1].map((n) => ({
          path: `/card/${name(n)}`,
          fileName: name(n),
          contentType: 'video/insv',
          size: 1000 + i,
          mtimeMs: 1,
        })),
      );
      ids.push(id);
    }
    // Marked done once all are queued: one batch of 1,000 files (docs/progress-batch.md).
    for (const id of ids) {
      queue.setCaptureState(id, 'completed');
      for (const f of queue.filesOf(id)) setFileState(queue, f.id, 'completed');
    }
  })();
  await page.reload();
  await expect(page.getByTestId('queue-summary')).toContainText('1000 of 1000 files completed');
  const rendered = await page.getByTestId('file-row').count();
  expect(rendered).toBeLessThan(40);
  const started = Date.now();
  await shots(page, info, '10-thousand-files-top');
  await page.locator('.queue-list').evaluate((el) => (el.scrollTop = el.scrollHeight));
  await expect(row(page, 'VID_20261122_100499_10_001.insv')).toBeVisible();
  info.annotations.push({ type: 'scroll-to-end-ms', description: String(Date.now() - started) });
  await shots(page, info, '10-thousand-files', showQueue(page));
});

test('a passing failure reads "Retrying at … (attempt 2)" with a plain cause, not "Needs you"; Retry now carries on', async ({
  page,
}, info) => {
  await chooseLocalService(page);
  const file = join(app.work, 'walk-outage.mp4');
  writeFileSync(file, randomBytes(300_000));
  // Storage answers every part with 500: the attempt ends, and the file waits for its retry time.
  await app.h.svc.admin('POST', '/faults', {
    target: 'storage',
    operation: 'UploadPart',
    times: 0,
    action: { type: 'status', status: 500 },
  });
  await app.h.drop([file]);
  await registerAll(page, 'Tower A · Level 1', 1);
  const r = row(page, 'walk-outage.mp4');
  await expect(r).toHaveAttribute('data-retrying', 'true', { timeout: 30_000 });
  await expect(r).toContainText(/Retrying at \d\d:\d\d \(attempt 2\)/);
  await expect(r).toContainText('storage unavailable');
  await expect(r).not.toContainText('Needs you');
  await expect(page.getByTestId('queue-counts')).toContainText('1 waiting to retry · 0 need you');
  // The service's own words stay one click away.
  await r.getByText('storage unavailable').click();
  await expect(r).toContainText('InternalError');
  await shots(page, info, '10-retrying', showQueue(page));

  await app.h.svc.admin('DELETE', '/faults');
  await r.getByRole('button', { name: 'Retry now' }).click();
  await expect(r).toHaveAttribute('data-state', 'completed', { timeout: 30_000 });
  expect(await storedSha(app.h, 'walk-outage.mp4')).toBe(sha256(readFileSync(file)));
});
