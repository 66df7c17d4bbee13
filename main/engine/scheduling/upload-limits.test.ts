import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import type { EventPayload } from '../../../shared/ipc.js';
import { recommendedRetryPolicy } from '../../api/errors.js';
import { AppCore } from '../../service/app-core.js';
import { useTestService, localSettings } from '../../testing/kit.js';

// "Pause until 07:00" as a queue-wide hold, through the app's own handlers.

const t = useTestService('upload-limits');

/** A core on `name`'s data folder and settings `store` (pass the same store to open it again after a restart). */
async function core(name: string, store = new Map<string, unknown>()) {
  const rows: EventPayload<'capture:event.rows'>[] = [];
  const c = new AppCore({
    dataDir: join(t.work, name),
    store: { get: (k) => store.get(k), set: (k, v) => store.set(k, v) },
    secrets: { available: () => true, encrypt: (s) => s, decrypt: (s) => s },
    emit: (event, payload) => {
      if (event === 'capture:event.rows') rows.push(payload as EventPayload<'capture:event.rows'>);
    },
    pickFiles: async () => [],
    startLocalService: async () => ({ ...t.svc, close: async () => {} }),
    engine: { partRetry: recommendedRetryPolicy(10, 10), stallTimeoutMs: 5000, retrySchedule: { delayMs: () => 300 } },
  });
  t.keep(c);
  await c.start();
  const h = c.handlers();
  if (!c.settings.view().configured) await h['capture:settings.useLocalService']();
  const register = async (file: string, bytes: number) => {
    writeFileSync(file, randomBytes(bytes));
    const structure = c.settings.view().structures[0]!;
    const r = await h['capture:captures.register']([
      { paths: [file], structure: structure.id, type: 'interior', capturedAt: '2026-11-22T08:00:00Z' },
    ]);
    expect(r.queued).toHaveLength(1);
    return r.queued[0]!;
  };
  return { c, h, rows, store, register };
}

const inAnHour = () => new Date(Date.now() + 3600_000).toISOString();
const stateOf = (c: AppCore, name: string) => c.queueView().files.find((f) => f.fileName === name)!;
const settle = () => new Promise((r) => setTimeout(r, 1500));

describe("pause until a time: a hold of the whole queue, apart from each file's own pause", () => {
  it('leaves a file paused by hand paused when the hold ends', async () => {
    const { c, h, register } = await core('hand-paused');
    // Every part of mine.mp4 slow, and only its: a rule for the next part alone could fall on
    // other.mp4's, in the second registration lane, and mine.mp4 finish before it is paused.
    await t.svc.admin('POST', '/faults', {
      target: 'storage',
      operation: 'UploadPart',
      keyContains: 'mine.mp4',
      times: 0,
      action: { type: 'latency', ms: 400 },
    });
    try {
      await register(join(t.work, 'mine.mp4'), 6 * 1024 * 1024);
      await register(join(t.work, 'other.mp4'), 256 * 1024);
      await vi.waitFor(() => expect(stateOf(c, 'mine.mp4').state).not.toBe('waiting'), { timeout: 10_000 });
      // A person pauses one file, then the whole queue until a time, then ends the hold.
      await h['capture:queue.pause']({ fileId: stateOf(c, 'mine.mp4').id });
      await h['capture:queue.pauseUntil']({ until: inAnHour() });
      await h['capture:queue.pauseUntil']({ until: null });
    } finally {
      await t.svc.admin('DELETE', '/faults');
    }
    await vi.waitFor(() => expect(stateOf(c, 'other.mp4').state).toBe('completed'), { timeout: 15_000 });
    await settle();
    expect(stateOf(c, 'mine.mp4').state).toBe('paused');
  });

  it('uploads nothing of a capture added during the hold until the hold ends, then all of it', async () => {
    const { c, h, rows, register } = await core('added-during');
    await h['capture:queue.pauseUntil']({ until: inAnHour() });
    await register(join(t.work, 'late.mp4'), 6 * 1024 * 1024);
    // Registration goes on during the hold; the file waits, registered, without a byte stored.
    await vi.waitFor(() => expect(c.queueView().captures[0]!.state).toBe('registered'), { timeout: 10_000 });
    await settle();
    const held = stateOf(c, 'late.mp4');
    expect([held.state, held.bytesSent, held.partsDone]).toEqual(['pending', 0, 0]);
    expect(c.queueView().hold).toEqual({ until: expect.any(String), by: 'person' });
    expect(rows.at(-1)!.hold).toMatchObject({ by: 'person' });
    await h['capture:queue.pauseUntil']({ until: null });
    await vi.waitFor(() => expect(stateOf(c, 'late.mp4').state).toBe('completed'), { timeout: 15_000 });
    expect(c.queueView().hold).toBeNull();
  });

  it('holds across a restart of the engine on the same queue', async () => {
    const first = await core('restart');
    await first.h['capture:queue.pauseUntil']({ until: inAnHour() });
    await first.c.close();
    const { c, h, register } = await core('restart', first.store);
    await register(join(t.work, 'after-restart.mp4'), 256 * 1024);
    await vi.waitFor(() => expect(c.queueView().captures[0]!.state).not.toMatch(/queued|registering/), {
      timeout: 10_000,
    });
    await settle();
    expect(stateOf(c, 'after-restart.mp4')).toMatchObject({ state: 'pending', bytesSent: 0 });
    expect(c.queueView().hold).toEqual({ until: expect.any(String), by: 'person' });
    await h['capture:queue.pauseUntil']({ until: null });
    await vi.waitFor(() => expect(stateOf(c, 'after-restart.mp4').state).toBe('completed'), { timeout: 15_000 });
  });

  it('carries a "pause until" kept in settings by an earlier version into the queue, once', async () => {
    const until = inAnHour();
    const store = new Map<string, unknown>([['settings', localSettings({ concurrency: 4, pausedUntil: until })]]);
    const { c } = await core('legacy', store);
    expect(c.queueView().hold).toEqual({ until, by: 'person' });
    expect((store.get('settings') as { pausedUntil: string | null }).pausedUntil).toBeNull();
  });
});
