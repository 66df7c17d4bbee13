import { copyFileSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it, vi } from 'vitest';
import { NO_TRAILER, vanishedLens } from '../../shared/capture-warnings.js';
import { queueState } from '../../shared/queue-state.js';
import { recommendedRetryPolicy } from '../api/errors.js';
import { AppCore } from './app-core.js';
import { useTestService } from '../testing/kit.js';

// A damaged recording and a lens that vanished before Register are said at
// registration, kept with the capture in the queue, and counted at the finish: never plain green.
const fixtures = fileURLToPath(new URL('../../../shared/fixtures/', import.meta.url));
const t = useTestService('warnings');

describe('warnings travel to the finish line', () => {
  it('a missing trailer and a vanished lens are shown before Register, kept with the capture, and the finish says so', async () => {
    const map = new Map<string, unknown>();
    const c = new AppCore({
      dataDir: join(t.work, 'data'),
      store: { get: (k) => map.get(k), set: (k, v) => map.set(k, v) },
      secrets: { available: () => true, encrypt: (s) => s, decrypt: (s) => s },
      emit: () => {},
      pickFiles: async () => [],
      startLocalService: async () => ({ ...t.svc, close: async () => {} }),
      engine: {
        partRetry: recommendedRetryPolicy(10, 10),
        stallTimeoutMs: 5000,
        retrySchedule: { delayMs: () => 300 },
      },
    });
    try {
      await c.start();
      const h = c.handlers();
      await h['capture:settings.useLocalService']();
      // A recording cut short: its last byte, and with it the Insta360 trailer's signature, is gone.
      const damaged = join(t.work, 'VID_20231121_201609_00_012.insv');
      const whole = readFileSync(join(fixtures, 'sample.insv'));
      writeFileSync(damaged, whole.subarray(0, whole.length - 1));
      // At the header's time (the fixture's 20:16:09): a name at another time would bring a warning of its own.
      const lens0 = join(t.work, 'VID_20231121_201609_00_013.insv');
      const lens1 = join(t.work, 'VID_20231121_201609_10_013.insv');
      copyFileSync(join(fixtures, 'sample.insv'), lens0);
      copyFileSync(join(fixtures, 'sample.insv'), lens1);

      const inspected = await h['capture:files.inspect']([damaged, lens0, lens1]);
      const byName = Object.fromEntries(inspected.captures.map((p) => [p.files[0]!.name, p.warnings ?? []]));
      expect(byName).toEqual({
        'VID_20231121_201609_00_012.insv': expect.arrayContaining([NO_TRAILER]),
        'VID_20231121_201609_00_013.insv': [],
      });

      // The second lens vanishes between reading the card and Register.
      unlinkSync(lens1);
      const s = c.settings.view().structures[0]!;
      const place = {
        structure: s.id,
        design: s.designs[0]!.id,
        type: 'interior' as const,
        capturedAt: '2023-11-21T20:16:09+01:00',
      };
      const forms = inspected.captures.map((p) => ({
        ...place,
        paths: p.files.map((f) => f.path),
        warnings: p.warnings,
      }));
      const { queued } = await h['capture:captures.register'](forms);
      expect(queued).toHaveLength(2);
      await vi.waitFor(() => expect(c.queueView().totals.completed).toBe(2), { timeout: 20_000 });

      const view = c.queueView();
      const warnings = view.captures.map((q) => q.warnings ?? []);
      expect(warnings).toEqual(
        expect.arrayContaining([
          expect.arrayContaining([NO_TRAILER]),
          [vanishedLens('VID_20231121_201609_10_013.insv')],
        ]),
      );
      expect(view.totals.capturesWarned).toBe(2);
      expect(queueState(view.totals).headline).toBe('All 2 files uploaded, 2 captures with warnings');
    } finally {
      await c.close();
    }
  });
});
