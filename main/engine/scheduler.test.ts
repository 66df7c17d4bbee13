import { describe, expect, it } from 'vitest';
import { MiB, useServiceKit } from '../testing/kit.js';
import type { Uploader } from '../service/uploader.js';

// The scheduler (scheduler.ts): claims each due file before its task starts, commits how the task
// ended (retry time and attempt for a passing failure, failed for a refusal, the person's pause
// kept), starts nothing before its retry time, and runs at most limit + 1 file tasks at once.

const kit = useServiceKit('scheduler');

const once = { retries: 0, delayMs: () => 0 };
/** The durable schedule's wait before attempt n + 1: a minute times n + 1 (ms). */
const schedule = { delayMs: (n: number) => 60_000 * (n + 1) };
const lines = (u: Uploader, fileId: number) =>
  u.queue.activity
    .list()
    .filter((l) => l.fileId === fileId)
    .map((l) => l.kind);

describe('Scheduler', () => {
  it('a passing failure: pending with a retry time from the schedule, the attempt counted, one line each for start and retry', async () => {
    const file = kit.file('flaky.mp4', MiB);
    await kit.fault({ target: 'storage', operation: 'UploadPart', times: 0, action: { type: 'status', status: 500 } });
    const u = kit.uploader('flaky', { partRetry: once, retrySchedule: schedule });
    const { queued } = await u.add([file.path], { structure: kit.structure(), type: 'interior' });
    const id = u.queue.filesOf(queued[0]!)[0]!.id;

    const before = Date.now();
    const summary = await u.engine.drain();
    const after = Date.now();

    expect(summary.waiting.map((f) => f.id)).toEqual([id]);
    const row = u.queue.file(id)!;
    expect([row.state, row.transient, row.attempts]).toEqual(['pending', true, 1]);
    expect(row.nextAttemptAt).toBeGreaterThanOrEqual(before + 60_000);
    expect(row.nextAttemptAt).toBeLessThanOrEqual(after + 60_000);
    expect(lines(u, id)).toEqual(['started', 'retry-scheduled']);

    // Not due yet: a second drain starts nothing and sends no byte.
    const from = kit.svc.storage.received.length;
    expect((await u.engine.drain()).waiting.map((f) => f.id)).toEqual([id]);
    expect(kit.svc.storage.received.length).toBe(from);
    expect(u.queue.file(id)!.attempts).toBe(1);
  });

  it("a refusal fails the file for a person, with the service's reason and one line", async () => {
    const file = kit.file('refused.mp4', MiB);
    await kit.fault({
      target: 'gateway',
      operation: 'presign-missing',
      times: 0,
      action: { type: 'status', status: 400 },
    });
    const u = kit.uploader('refused', { retrySchedule: schedule });
    const { queued } = await u.add([file.path], { structure: kit.structure(), type: 'interior' });
    const id = u.queue.filesOf(queued[0]!)[0]!.id;

    const summary = await u.engine.drain();

    expect(summary.failed.map((f) => f.id)).toEqual([id]);
    const row = u.queue.file(id)!;
    expect([row.state, row.transient, row.nextAttemptAt, row.attempts]).toEqual(['failed', false, null, 0]);
    expect(row.error).toMatch(/HTTP 400/);
    expect(lines(u, id)).toEqual(['started', 'failed']);
  });

  it('a pause written while the task runs is kept: the unwinding task never overwrites it', async () => {
    const file = kit.file('paused.mp4', 11 * MiB);
    await kit.svc.admin('PUT', '/settings', { bandwidthBytesPerSecond: 8 * MiB });
    const u = kit.uploader('paused', { concurrency: 1 });
    const { queued } = await u.add([file.path], { structure: kit.structure(), type: 'interior' });
    const id = u.queue.filesOf(queued[0]!)[0]!.id;
    const off = u.engine.on((e) => {
      if (e.type === 'progress' && e.files.some((f) => f.bytesSent > 0)) {
        off();
        u.engine.pause(id);
      }
    });

    const summary = await u.engine.drain();

    expect(summary.paused.map((f) => f.id)).toEqual([id]);
    expect(u.queue.file(id)).toMatchObject({ state: 'paused', attempts: 0, nextAttemptAt: null });
  });

  it('with one request slot, at most two files are uploading at once, and every one completes', async () => {
    const files = [1, 2, 3, 4].map((n) => kit.file(`slot-${n}.mp4`, 256 * 1024));
    const u = kit.uploader('slots', { concurrency: 1 });
    await u.add(
      files.map((f) => f.path),
      { structure: kit.structure(), type: 'interior' },
    );
    const uploading = new Set<number>();
    let most = 0;
    const order: number[] = [];
    u.engine.on((e) => {
      if (e.type !== 'file') return;
      if (e.state === 'uploading') {
        uploading.add(e.fileId);
        order.push(e.fileId);
      } else uploading.delete(e.fileId);
      most = Math.max(most, uploading.size);
    });

    const summary = await u.engine.drain();

    expect(summary.completed).toHaveLength(4);
    expect(most).toBe(2);
    expect(new Set(order).size).toBe(4); // each claimed once
    for (const f of summary.completed)
      expect((await kit.stored(u, f.id)).sha256).toBe(files.find((d) => d.path === f.path)!.sha256);
  });
});
