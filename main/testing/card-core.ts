import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { recommendedRetryPolicy } from '../api/errors.js';
import type { CardImportOptions } from '../offload/card-import.js';
import { AppCore } from '../service/app-core.js';
import type { TestServiceFile } from './kit.js';

/**
 * An AppCore for the card-imports tests (copy holds, restarts): its own data folder
 * `<work>/<name>/data`, a mount folder `<work>/<name>/media` it watches every 50 ms, a library
 * `<work>/<name>/library` kept 7 days (unless `map` already holds a `library` setting), the local
 * service of `t` chosen, short engine delays (10 ms retries, 5 s stall, 300 ms schedule), and
 * `afterWrite` as the copy's seam. The core is kept by `t` (closed after the test); pass the same
 * `map` to open it again as after a restart. Test code only.
 */
export async function startCardCore(
  t: TestServiceFile,
  name: string,
  afterWrite?: CardImportOptions['afterWrite'],
  map = new Map<string, unknown>(),
) {
  const mounts = join(t.work, name, 'media');
  mkdirSync(mounts, { recursive: true });
  if (!map.has('library'))
    map.set('library', { library: join(t.work, name, 'library'), keepDays: 7, uploadFromCard: false });
  const c = new AppCore({
    dataDir: join(t.work, name, 'data'),
    store: { get: (k) => map.get(k), set: (k, v) => map.set(k, v) },
    secrets: { available: () => true, encrypt: (s) => s, decrypt: (s) => s },
    emit: () => undefined,
    pickFiles: async () => [],
    startLocalService: async () => ({ ...t.svc, close: async () => {} }),
    engine: { partRetry: recommendedRetryPolicy(10, 10), stallTimeoutMs: 5000, retrySchedule: { delayMs: () => 300 } },
    cards: { roots: [mounts], pollMs: 50, ...(afterWrite ? { copySeams: { afterWrite } } : {}) },
  });
  t.keep(c);
  await c.start();
  const h = c.handlers();
  await h['capture:settings.useLocalService']();
  return { c, h, mounts, map, queueFile: join(t.work, name, 'data', 'queue', 'queue.db') };
}
