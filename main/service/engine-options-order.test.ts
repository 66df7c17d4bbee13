import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import type { UploaderOptions } from './uploader.js';
import { useTestService } from '../testing/kit.js';

// The engine's options come in one order (docs/engine.md, "Where the engine's options come from"):
// the settings table's defaults, then the stored settings, then the host's own options (a test's
// short timeouts) over both. What AppCore hands openUploader is recorded on its way through.
const handed = vi.hoisted(() => [] as unknown[]);
vi.mock('./uploader.js', async (original) => {
  const real = await original<typeof import('./uploader.js')>();
  return {
    ...real,
    openUploader: (opts: Parameters<typeof real.openUploader>[0]) => {
      handed.push(opts);
      return real.openUploader(opts);
    },
  };
});
const { AppCore } = await import('./app-core.js');

const t = useTestService('engine-options-order', { clearFaults: true });

/** A core over the local service whose store holds `stored` as its settings, with the host's `engine` options. */
async function opened(name: string, stored: Record<string, unknown>, engine: Record<string, unknown>) {
  const map = new Map<string, unknown>([['settings', { mode: 'local', structures: [], ...stored }]]);
  const c = t.keep(
    new AppCore({
      dataDir: join(t.work, name),
      store: { get: (k) => map.get(k), set: (k, v) => map.set(k, v) },
      secrets: { available: () => true, encrypt: (s) => s, decrypt: (s) => s },
      emit: () => {},
      pickFiles: async () => [],
      startLocalService: async () => ({ ...t.svc, close: async () => {} }),
      engine,
    }),
  );
  handed.length = 0;
  await c.start();
  expect(handed).toHaveLength(1);
  return handed[0] as Partial<UploaderOptions>;
}

describe("the engine's options", () => {
  it("a stored setting, even one saved at its default, does not override the host's option", async () => {
    const opts = await opened('stored-default', { concurrency: 4 }, { concurrency: 1, stallTimeoutMs: 5000 });
    expect(opts).toMatchObject({ concurrency: 1, stallTimeoutMs: 5000 });
  });

  it("a stored setting holds over the table's default where the host gives none", async () => {
    expect(await opened('stored', { concurrency: 7 }, {})).toMatchObject({ concurrency: 7 });
    expect(await opened('none-stored', {}, {})).toMatchObject({ concurrency: 4 });
  });
});
