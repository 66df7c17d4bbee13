import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import type { ServiceStatus } from '../../shared/ipc.js';
import { recommendedRetryPolicy } from '../api/errors.js';
import { lockQueue } from '../queue/lock.js';
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
});
