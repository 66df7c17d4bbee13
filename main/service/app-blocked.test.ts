import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { queueState } from '../../shared/queue-state.js';
import { recommendedRetryPolicy } from '../api/errors.js';
import { printStatus } from '../cli/status.js';
import { AppCore } from './app-core.js';
import { useTestService, stdoutOf } from '../testing/kit.js';
import { registerOnFirstStructure } from '../testing/app-register.js';

// While the app's engine is stopped because the service refuses its credentials,
// `capture-uploader status` (its own read-only connection to the queue) says "Needs you" as the
// app's headline does; once the app is given credentials that work (a new uploader: the settings
// saved, or the local service chosen again), it stops saying it.

const t = useTestService('app-blocked');

/** `status`'s first line for the app's queue folder. */
function statusLine(dataDir: string): string {
  return stdoutOf(() => printStatus(join(dataDir, 'queue'), false, 'en-GB')).split('\n')[0]!;
}

describe('the app stopped by refused credentials, seen by status', () => {
  it('"Needs you" while the app\'s engine is stopped, and not once the app opens the queue again with credentials that t.work', async () => {
    const dataDir = join(t.work, 'app');
    const notified: string[] = [];
    const map = new Map<string, unknown>();
    const c = new AppCore({
      dataDir,
      store: { get: (k) => map.get(k), set: (k, v) => map.set(k, v) },
      secrets: { available: () => true, encrypt: (s) => s, decrypt: (s) => s },
      emit: () => {},
      pickFiles: async () => [],
      startLocalService: async () => ({ ...t.svc, close: async () => {} }),
      notify: (title, body) => notified.push(`${title}: ${body}`),
      engine: {
        partRetry: recommendedRetryPolicy(10, 10),
        stallTimeoutMs: 5000,
        retrySchedule: { delayMs: () => 300 },
      },
    });
    const account = t.svc.store.state.accounts.find((a) => a.email === t.svc.info.account.email)!;
    const password = account.password;
    try {
      await c.start();
      const h = c.handlers();
      await h['capture:settings.useLocalService']();
      // The password is changed at the service after the app was set up: its sign-in is refused.
      account.password = 'changed-elsewhere';
      const file = join(t.work, 'walk.mp4');
      writeFileSync(file, randomBytes(100_000));
      await registerOnFirstStructure(c, [file], '2026-11-25T08:00:00Z');
      await vi.waitFor(
        () =>
          expect(notified).toContainEqual(
            expect.stringMatching(/^Uploads stopped: The sign-in service refuses the account/),
          ),
        { timeout: 15_000 },
      );

      const view = c.queueView();
      const app = queueState(view.totals, { blocked: view.blocked });
      expect(app.headline).toBe('Needs you');
      expect(statusLine(dataDir)).toMatch(
        new RegExp(`^Needs you — ${app.detail!.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} · 0% · `),
      );
      expect(statusLine(dataDir)).not.toContain(t.svc.info.account.password);

      // Put right at the service, the app is opened on it again (as saving the settings does): a new uploader.
      account.password = password;
      await h['capture:settings.useLocalService']();
      expect(statusLine(dataDir)).not.toMatch(/Needs you/);
      await vi.waitFor(() => expect(statusLine(dataDir)).toMatch(/^All 1 file uploaded/), { timeout: 15_000 });
    } finally {
      account.password = password;
      await c.close();
    }
  });
});
