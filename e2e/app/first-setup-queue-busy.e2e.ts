import { expect, test } from '@playwright/test';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { openQueueDatabase } from '../../main/queue/db.js';
import { lockQueue } from '../../main/queue/lock.js';
import { UploadQueue } from '../../main/queue/queue.js';
import { fillQueue } from '../../main/testing/fill-queue.js';
import { setEveryCaptureState, setEveryFileState } from '../../main/testing/queue-backdoors.js';
import { useApp } from './harness.js';

// A first set-up while a `capture-uploader drain` holds the queue folder (here this test process
// holds its lock, as the drain would): the window says what it waits for, never that something is
// broken, and shows the queue the drain left once the drain has ended.
const app = useApp('app-first-busy', { setUp: 'none' });

test('set up while a CLI drain holds the queue: the window says it waits for it, then shows its files once it ends', async ({
  page,
}) => {
  const queueDir = join(app.h.dataDir, 'queue');
  mkdirSync(queueDir, { recursive: true });
  const seeded = openQueueDatabase(join(queueDir, 'queue.db')).db;
  const queue = new UploadQueue(seeded);
  fillQueue(queue, 2, 'DRAIN');
  setEveryFileState(queue, 'completed');
  setEveryCaptureState(queue, 'completed');
  seeded.close();
  const release = lockQueue(queueDir);
  try {
    await page.goto('/');
    await page.getByRole('button', { name: 'Use the local test service' }).click();
    const waiting = page.getByRole('alert').filter({ hasText: 'Uploads wait for the queue.' });
    await expect(waiting).toContainText(`is in use by process ${process.pid}; waiting.`);
    await expect(waiting).toContainText('opens by itself once that process ends');
    // Set up: no error on the Settings form, and the upload screen is there.
    await expect(page.getByText('Drop Insta360 recordings here')).toBeVisible();
    await expect(page.getByText(/in use by another Capture Uploader/)).toHaveCount(0);
    release();
    await expect(waiting).toHaveCount(0, { timeout: 20_000 });
    // The drain's 4 files, in the app's queue now.
    await expect(page.locator('[data-testid="file-row"]')).toHaveCount(4, { timeout: 20_000 });
  } finally {
    release();
  }
});
