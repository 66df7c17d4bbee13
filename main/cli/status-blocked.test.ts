import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { queueState, queueStateLine } from '../../shared/queue-state.js';
import { openQueueDatabase } from '../queue/db.js';
import { UploadQueue } from '../queue/queue.js';
import { committedTotals } from '../queue/totals.js';
import type { Uploader } from '../service/uploader.js';
import { useServiceKit, stdoutOf } from '../testing/kit.js';
import { drainExitCode, summaryLines } from './render.js';
import { printStatus } from './status.js';

// ("the screen, the CLI and the exit code say only what is true"): when the service
// refuses the stored credentials the running engine stops the whole queue and the app's headline
// says "Needs you". `capture-uploader status` reads the queue on its own read-only connection
// (read-queue.ts), in another process: it must say the same while that engine is blocked, and
// stop saying it once no engine is.

const kit = useServiceKit('status-blocked', {}, { timings: 'engine' });

/** An uploader on `name`'s queue folder with the service's account, or with `password` instead. Closed by the test. */
const uploader = (name: string, password?: string): Uploader =>
  kit.uploader(name, password ? { gateway: { ...kit.gateway(), password } } : {});

/** What `status` (or `status --json`) prints for the queue in `name`'s folder. */
function status(name: string, json = false): string {
  return stdoutOf(() => printStatus(join(kit.work, name), json, 'en-GB'));
}

describe('status while the running engine is stopped by refused credentials', () => {
  it('says "Needs you" with the app\'s words while that engine runs, no secret in them; not once it closes', async () => {
    const password = 'not-the-password-4711';
    const wrong = uploader('wrong', password);
    const file = kit.file('VID_20261125_101010_00_001.insv', 4000);
    await wrong.add([file.path], { structure: kit.structure(), type: 'interior' });
    const summary = await wrong.engine.drain({ wait: true });
    expect(summary.blocked).toMatch(
      /^The sign-in service refuses the account \(.+\): fix the email or password in the settings; 1 capture\(s\) and 0 file\(s\) wait\.$/,
    );

    // The app's headline: the same totals and the engine's `blocked` (main/service/live-queue.ts).
    const app = queueState(committedTotals(wrong.queue.totals()), { blocked: wrong.engine.blocked });
    expect([app.kind, app.headline]).toEqual(['needs-you', 'Needs you']);
    const text = status('wrong');
    expect(text.split('\n')[0]).toBe(`${queueStateLine(app)} · 0% · 0 B of 3.9 KiB stored`);
    const json = JSON.parse(status('wrong', true)) as { state: { kind: string; headline: string; detail: string } };
    expect(json.state).toMatchObject({ kind: 'needs-you', headline: 'Needs you', detail: app.detail });
    for (const secret of [password, kit.svc.info.apiKey]) expect(text + JSON.stringify(json)).not.toContain(secret);

    // `drain` says the same: a stop, exit 3 (documented: fix the credentials and run again), and a last
    // line that does not promise `drain --wait` would carry on by itself.
    expect(drainExitCode(summary)).toBe(1);
    const lines = summaryLines(summary);
    expect(lines).toContain(`STOPPED ${summary.blocked}`);
    expect(lines.at(-1)).toBe(
      'Needs you: correct the settings named above and run drain again; nothing queued is lost.',
    );

    // Closed (the app quits, or its settings change and the uploader is built again): no engine is stopped.
    await wrong.close();
    expect(status('wrong').split('\n')[0]).toBe('Waiting · 0% · 0 B of 3.9 KiB stored');
  });

  it('a stop left by a process that ended without closing is forgotten when an engine opens the queue', async () => {
    const name = 'left';
    const first = uploader(name);
    await first.close();
    // As a killed app leaves it: its engine's record still in the queue.
    const { db } = openQueueDatabase(join(kit.work, name, 'queue.db'));
    const q = new UploadQueue(db);
    q.enqueueCapture(
      'walk',
      {
        project: kit.svc.info.projectId,
        structure: kit.structure(),
        captureDateTime: '2026-11-25T10:00:00.000Z',
        type: 'interior',
        mode: '360 Video',
        sourceType: 'bot',
        files: [{ frameIndex: 1, fileName: 'walk.mp4', contentType: 'video/mp4', size: 1000 }],
      },
      [{ path: '/card/walk.mp4', fileName: 'walk.mp4', contentType: 'video/mp4', size: 1000, mtimeMs: 1 }],
    );
    q.meta.setBlocked(
      'The sign-in service refuses the account (Unauthorized): fix the email or password in the settings; 1 capture(s) and 0 file(s) wait.',
    );
    db.close();
    expect(status(name).split('\n')[0]).toMatch(/^Needs you — The sign-in service refuses the account/);

    const next = uploader(name);
    try {
      expect(status(name).split('\n')[0]).toBe('Waiting · 0% · 0 B of 1000 B stored');
    } finally {
      await next.close();
    }
  });

  it('"Needs you" comes before a hold, as in the app\'s headline; the hold is still said on the next line', () => {
    const name = 'left';
    const { db } = openQueueDatabase(join(kit.work, name, 'queue.db'));
    const q = new UploadQueue(db);
    const why =
      'The service refuses the API key (Forbidden: invalid api key): fix the API key in the settings; 1 capture(s) and 0 file(s) wait.';
    q.meta.setBlocked(why);
    q.meta.setHold('person', null);
    db.close();
    expect(status(name).split('\n').slice(0, 2)).toEqual([
      `Needs you — ${why} Nothing queued is lost. · 0% · 0 B of 1000 B stored`,
      'Paused until resumed: no upload starts until the queue is resumed (files paused one by one stay paused after it).',
    ]);
    expect(JSON.parse(status(name, true))).toMatchObject({
      state: { kind: 'needs-you', headline: 'Needs you' },
      hold: { until: null, by: 'person' },
    });
  });
});
