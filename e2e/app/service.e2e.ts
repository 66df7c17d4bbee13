import type { Page } from '@playwright/test';
import { expect, test } from '@playwright/test';
import { Database } from '../../main/testing/queue-backdoors.js';
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { LATEST_VERSION } from '../../main/queue/db.js';
import { HUNG, RESTARTED } from '../../main/service-host/host.js';
import { useApp } from './harness.js';

// The upload service in its own process, as the window sees it: a queue that cannot open, a
// service that dies mid-upload, and one that stops answering (its heartbeat's deadline shortened
// from the app's 30 s: still far above a live service's answer on a loaded machine).
const row = (page: Page, fileName: string) => page.locator(`[data-testid="file-row"][data-file="${fileName}"]`);

const app = useApp('app-service', { heartbeat: { intervalMs: 1000, deadlineMs: 8000 } });

test('a queue the app cannot open: the window opens and says what is wrong and what to do', async ({ page }) => {
  await app.h.host.close();
  const raw = new Database(join(app.h.dataDir, 'queue', 'queue.db'));
  raw.pragma(`user_version = ${LATEST_VERSION + 1}`);
  raw.close();
  await app.h.restart();
  const alert = page.getByRole('alert').filter({ hasText: 'Uploads cannot start.' });
  await expect(alert).toContainText('was written by a newer version of Capture Uploader');
  await expect(alert).toContainText(`move that folder aside`);
  await expect(alert).toContainText(join(app.h.dataDir, 'queue'));
  // Settings stay reachable.
  await page.getByRole('tab', { name: 'Settings' }).click();
  await expect(alert).toBeVisible();
});

test('a service that dies mid-upload is restarted, the window is told, and the file completes', async ({ page }) => {
  await app.h.svc.admin('PUT', '/settings', { bandwidthBytesPerSecond: 4 * 1024 * 1024 });
  const file = join(app.work, 'walk.mp4');
  writeFileSync(file, randomBytes(12 * 1024 * 1024));
  const structure = app.h.settings.view().structures[0]!.id;
  await app.h.invoke('capture:captures.register', [
    { paths: [file], structure, type: 'interior', capturedAt: '2026-11-22T08:00:00Z' },
  ]);
  const r = row(page, 'walk.mp4');
  await expect(r).toHaveAttribute('data-state', 'uploading', { timeout: 20_000 });
  app.h.host.child!.kill('SIGKILL');
  await expect(page.getByText(RESTARTED)).toBeVisible();
  await app.h.svc.admin('PUT', '/settings', { bandwidthBytesPerSecond: null });
  await expect(r).toHaveAttribute('data-state', 'completed', { timeout: 30_000 });
  expect(app.h.svc.storage.stats.partsReplaced).toBe(0);
});

test('a service that stops answering mid-upload (SIGSTOP) is noticed: the window says so once, and the file completes', async ({
  page,
}) => {
  await app.h.svc.admin('PUT', '/settings', { bandwidthBytesPerSecond: 4 * 1024 * 1024 });
  const file = join(app.work, 'stalled.mp4');
  writeFileSync(file, randomBytes(12 * 1024 * 1024));
  const structure = app.h.settings.view().structures[0]!.id;
  await app.h.invoke('capture:captures.register', [
    { paths: [file], structure, type: 'interior', capturedAt: '2026-11-22T08:00:00Z' },
  ]);
  const r = row(page, 'stalled.mp4');
  await expect(r).toHaveAttribute('data-state', 'uploading', { timeout: 20_000 });
  const pid = app.h.host.child!.pid!;
  // What a read of a pulled card or a dead network share looks like from outside: no answer at all.
  process.kill(pid, 'SIGSTOP');
  try {
    await expect(page.getByText(HUNG)).toBeVisible({ timeout: 30_000 });
    await expect.poll(() => app.h.host.child?.pid, { timeout: 20_000 }).not.toBe(pid);
  } finally {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // Killed by the host already.
    }
  }
  await app.h.svc.admin('PUT', '/settings', { bandwidthBytesPerSecond: null });
  await expect(r).toHaveAttribute('data-state', 'completed', { timeout: 30_000 });
  // Said once, and not as a crash.
  await expect(page.getByText(HUNG)).toHaveCount(1);
  await expect(page.getByText(RESTARTED)).toHaveCount(0);
  expect(app.h.svc.storage.stats.partsReplaced).toBe(0);
});
