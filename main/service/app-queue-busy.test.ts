import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import type { ServiceStatus } from '../../shared/ipc.js';
import { recommendedRetryPolicy } from '../api/errors.js';
import { lockQueue } from '../queue/lock.js';
import { openQueueDatabase } from '../queue/db.js';
import { UploadQueue } from '../queue/queue.js';
import { fillQueue } from '../testing/fill-queue.js';
import { AppCore } from './app-core.js';
import { useTestService } from '../testing/kit.js';

// The app started while another process (a `capture-uploader drain`, an `import`) holds its queue
// waits for it: "in use by process N; waiting", tried again every few seconds, and opens by itself
// once that process ends. It never advises moving the queue folder aside: that would lose the
// record of the captures the queue registered.

const t = useTestService('app-queue-busy');

describe('the app started while another process holds the queue', () => {
  it('says "in use by process N; waiting", tries again, and opens the queue once it is free', async () => {
    const dataDir = join(t.work, 'app');
    const statuses: ServiceStatus[] = [];
    const map = new Map<string, unknown>();
    const options = {
      dataDir,
      store: { get: (k: string) => map.get(k), set: (k: string, v: unknown) => map.set(k, v) },
      secrets: { available: () => true, encrypt: (s: string) => s, decrypt: (s: string) => s },
      pickFiles: async () => [],
      startLocalService: async () => ({ ...t.svc, close: async () => {} }),
      engine: { partRetry: recommendedRetryPolicy(10, 10) },
      queueRetryMs: 200,
    };
    // Set up once on the local service, then closed: the stored settings open the queue at start.
    const first = new AppCore({ ...options, emit: () => {} });
    await first.start();
    await first.handlers()['capture:settings.useLocalService']();
    await first.close();

    // A drain in another process holds it now (the same OS lock a second process meets).
    mkdirSync(join(dataDir, 'queue'), { recursive: true });
    const release = lockQueue(join(dataDir, 'queue'));
    const c = new AppCore({
      ...options,
      emit: (event, payload) => event === 'capture:event.service' && statuses.push(payload as ServiceStatus),
    });
    try {
      await c.start(); // does not fail
      expect(c.queueWait).toMatch(
        new RegExp(`^The upload queue in .* is in use by process ${process.pid}; waiting\\.`),
      );
      expect(c.queueWait).not.toMatch(/aside|move|rename/i);
      // Tried again, and still waiting: the status says so each time, and the screens say why nothing opens.
      await vi.waitFor(() => expect(statuses.length).toBeGreaterThanOrEqual(3), { timeout: 10_000 });
      expect(statuses.every((s) => /in use by process \d+; waiting/.test(s.queueError ?? ''))).toBe(true);
      await expect(c.handlers()['capture:queue.clearCompleted']()).rejects.toThrow(/in use by process \d+; waiting/);

      release();
      await vi.waitFor(() => expect(statuses.at(-1)).toEqual({ queueError: null }), { timeout: 10_000 });
      expect(c.queueWait).toBeNull();
      expect(c.queueView().captures).toEqual([]);
    } finally {
      release();
      await c.close();
    }
  });

  // The first set-up (no settings stored yet) while a drain in another process holds the queue
  // folder: the settings are kept, the status says what the app waits for, and the queue opens by
  // itself once that process ends, as for an app set up before, showing what the drain queued.
  it.each(['local test service', 'capture service'] as const)(
    'set up for the first time (%s) while another process holds the queue: waits, says so, and opens once it is free',
    async (how) => {
      const dataDir = join(t.work, `first-${how.replace(/ /g, '-')}`);
      const queueDir = join(dataDir, 'queue');
      // What a `capture-uploader drain` on this folder queued: 3 captures of 2 files.
      mkdirSync(queueDir, { recursive: true });
      const seeded = openQueueDatabase(join(queueDir, 'queue.db')).db;
      fillQueue(new UploadQueue(seeded), 3);
      seeded.close();
      const release = lockQueue(queueDir);
      const statuses: ServiceStatus[] = [];
      const map = new Map<string, unknown>();
      const c = new AppCore({
        dataDir,
        store: { get: (k: string) => map.get(k), set: (k: string, v: unknown) => map.set(k, v) },
        secrets: { available: () => true, encrypt: (s: string) => s, decrypt: (s: string) => s },
        emit: (event, payload) => event === 'capture:event.service' && statuses.push(payload as ServiceStatus),
        pickFiles: async () => [],
        startLocalService: async () => ({ ...t.svc, close: async () => {} }),
        engine: { partRetry: recommendedRetryPolicy(10, 10) },
        queueRetryMs: 200,
      });
      try {
        await c.start();
        expect(c.queueWait).toBeNull();
        const h = c.handlers();
        const { info } = t.svc;
        const view =
          how === 'local test service'
            ? await h['capture:settings.useLocalService']()
            : await h['capture:settings.save']({
                baseUrl: info.baseUrl,
                authUrl: info.authUrl,
                progressBaseUrl: '',
                projectId: info.projectId,
                email: info.account.email,
                password: info.account.password,
                apiKey: info.apiKey,
                concurrency: 2,
                structures: [],
              });
        // Set up, and the settings kept: the wait is for the queue, not for the person.
        expect(view.configured).toBe(true);
        expect(map.get('settings')).toBeDefined();
        expect(c.queueWait).toMatch(new RegExp(`in use by process ${process.pid}; waiting\\.`));
        expect(statuses.at(-1)!.queueError).toMatch(
          /in use by process \d+; waiting\..*opens by itself once that process ends/,
        );
        await expect(h['capture:queue.clearCompleted']()).rejects.toThrow(/in use by process \d+; waiting/);

        release();
        await vi.waitFor(() => expect(statuses.at(-1)).toEqual({ queueError: null }), { timeout: 10_000 });
        expect(c.queueWait).toBeNull();
        // The queue the drain left is the app's now: its 6 files, and it answers the screens.
        expect(c.queueView().files).toHaveLength(6);
        expect(await h['capture:queue.clearCompleted']()).toEqual({ captures: 0 });
      } finally {
        release();
        await c.close();
      }
    },
  );
});
