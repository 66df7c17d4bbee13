import { appendFileSync } from 'node:fs';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { MiB, useServiceKit } from '../../testing/kit.js';
import type { Uploader } from '../../service/uploader.js';

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

/** Every presign-missing call (§4.5) after the first `skip` is answered with HTTP `status`. */
const presignAlwaysAnswers = (status: number, skip = 0) =>
  kit.fault({ target: 'gateway', operation: 'presign-missing', skip, times: 0, action: { type: 'status', status } });

/**
 * Uploads an 11 MiB file `<name>.mp4` at 8 MiB/s on a one-part-at-a-time uploader `name`, and runs
 * `act` once, as soon as a progress event shows a byte of it sent; resolves once the drain ends,
 * with the uploader, the file's id and the drain's summary.
 */
async function drainActingMidUpload(name: string, act: (u: Uploader, id: number, path: string) => void) {
  const file = kit.file(`${name}.mp4`, 11 * MiB);
  await kit.svc.admin('PUT', '/settings', { bandwidthBytesPerSecond: 8 * MiB });
  const u = kit.uploader(name, { concurrency: 1 });
  const { queued } = await u.add([file.path], { structure: kit.structure(), type: 'interior' });
  const id = u.queue.filesOf(queued[0]!)[0]!.id;
  const off = u.engine.on((e) => {
    if (e.type === 'progress' && e.files.some((f) => f.bytesSent > 0)) {
      off();
      act(u, id, file.path);
    }
  });
  const summary = await u.engine.drain();
  return { u, id, summary };
}

describe('Scheduler', () => {
  it('a passing failure: pending with a retry time from the schedule, the attempt counted, one line each for start and retry', async () => {
    const file = kit.file('flaky.mp4', MiB);
    await kit.fault({ target: 'storage', operation: 'UploadPart', times: 0, action: { type: 'status', status: 500 } });
    const warned: string[] = [];
    const u = kit.uploader('flaky', {
      partRetry: once,
      retrySchedule: schedule,
      log: { info: () => {}, warn: (m) => warned.push(m) },
    });
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
    expect(warned.filter((m) => m.includes('flaky.mp4'))).toEqual([]); // waits, never "failed"

    // Not due yet: a second drain starts nothing and sends no byte.
    const from = kit.svc.storage.received.length;
    expect((await u.engine.drain()).waiting.map((f) => f.id)).toEqual([id]);
    expect(kit.svc.storage.received.length).toBe(from);
    expect(u.queue.file(id)!.attempts).toBe(1);
  });

  it("a refusal fails the file for a person, with the service's reason and one line", async () => {
    const file = kit.file('refused.mp4', MiB);
    await presignAlwaysAnswers(400);
    const warned: string[] = [];
    const u = kit.uploader('refused', {
      retrySchedule: schedule,
      log: { info: () => {}, warn: (m) => warned.push(m) },
    });
    const { queued } = await u.add([file.path], { structure: kit.structure(), type: 'interior' });
    const id = u.queue.filesOf(queued[0]!)[0]!.id;

    const summary = await u.engine.drain();

    expect(summary.failed.map((f) => f.id)).toEqual([id]);
    const row = u.queue.file(id)!;
    expect([row.state, row.transient, row.nextAttemptAt, row.attempts]).toEqual(['failed', false, null, 0]);
    expect(row.error).toMatch(/HTTP 400/);
    expect(lines(u, id)).toEqual(['started', 'failed']);
    expect(warned).toEqual([`refused.mp4 failed: ${row.error}`]);
  });

  it('a pause written while the task runs is kept: the unwinding task never overwrites it', async () => {
    const { u, id, summary } = await drainActingMidUpload('paused', (uploader, file) => uploader.engine.pause(file));

    expect(summary.paused.map((f) => f.id)).toEqual([id]);
    expect(u.queue.file(id)).toMatchObject({ state: 'paused', attempts: 0, nextAttemptAt: null });
  });

  it("a part task's own refusal of the credentials mid-upload: the row back to pending with the reason, the queue stopped for every file", async () => {
    const file = kit.file('refused-mid.mp4', 11 * MiB);
    // Part 2's URL is refused by storage, so the task presigns again (§7) after part 1 is stored;
    // that second presign-missing (§4.5) is refused for the account, also after signing in again.
    await kit.fault({
      target: 'storage',
      operation: 'UploadPart',
      partNumber: 2,
      action: { type: 'status', status: 403 },
    });
    await presignAlwaysAnswers(401, 1);
    const warned: string[] = [];
    const u = kit.uploader('refused-mid', {
      concurrency: 1,
      retrySchedule: schedule,
      log: { info: () => {}, warn: (m) => warned.push(m) },
    });
    const { queued } = await u.add([file.path], { structure: kit.structure(), type: 'interior' });
    const id = u.queue.filesOf(queued[0]!)[0]!.id;
    const blocked: (string | null)[] = [];
    u.engine.on((e) => {
      if (e.type === 'blocked') blocked.push(e.message);
    });

    // A deadline, so a queue that does not stop (the file claimed and refused over and over) ends the drain.
    const summary = await u.engine.drain({ deadline: Date.now() + 15_000 });

    const row = u.queue.file(id)!;
    expect([row.state, row.transient, row.nextAttemptAt, row.attempts]).toEqual(['pending', false, null, 0]);
    expect(row.error).toMatch(/^The service refuses the account even after signing in again \(.*\): check the account/);
    const stored = u.queue
      .parts(id)
      .filter((p) => p.etag)
      .map((p) => p.partNumber);
    expect(stored).toContain(1); // mid-upload: part 1 was in storage before the refusal
    expect(stored).not.toContain(2);
    expect(summary.waiting.map((f) => f.id)).toEqual([id]);
    expect(lines(u, id)).toEqual(['started']);
    expect(warned.filter((m) => m.includes('refused-mid.mp4'))).toEqual([]); // waits, never "failed"
    // The whole queue stops (engine.ts BlockRecord): one message, held for `status`, told once.
    expect(blocked).toEqual([
      expect.stringMatching(/^The service refuses the account .*; 0 capture\(s\) and 1 file\(s\) wait\.$/),
    ]);
    expect(u.engine.blocked).toBe(blocked[0]);
    expect(u.queue.meta.blocked()).toBe(blocked[0]);
    const refusals = (await kit.fired())[1]!;
    // Stopped, a drain starts nothing: no claim, no presign, no byte.
    const from = kit.svc.storage.received.length;
    await u.engine.drain({ deadline: Date.now() + 15_000 });
    expect((await kit.fired())[1]).toBe(refusals);
    expect(kit.svc.storage.received.length).toBe(from);
    expect(lines(u, id)).toEqual(['started']);
    expect(u.queue.file(id)!.state).toBe('pending');
  });

  it('a task stopped mid-part by the queue-wide hold: its row back to pending with no error, no attempt counted, nothing failed', async () => {
    const file = kit.file('held.mp4', 11 * MiB);
    await kit.svc.admin('PUT', '/settings', { bandwidthBytesPerSecond: 8 * MiB });
    const warned: string[] = [];
    const u = kit.uploader('held', { concurrency: 1, log: { info: () => {}, warn: (m) => warned.push(m) } });
    const { queued } = await u.add([file.path], { structure: kit.structure(), type: 'interior' });
    const id = u.queue.filesOf(queued[0]!)[0]!.id;
    // The hold writes nothing to the file's row (unlike a person's pause of the file): the task's
    // own end must move it from `uploading`.
    const off = u.engine.on((e) => {
      if (e.type === 'progress' && e.files.some((f) => f.bytesSent > 0)) {
        off();
        u.engine.holds.holdUntil(null);
      }
    });

    const summary = await u.engine.drain();

    expect(summary.waiting.map((f) => f.id)).toEqual([id]);
    expect(u.queue.file(id)).toMatchObject({
      state: 'pending',
      error: null,
      attempts: 0,
      nextAttemptAt: null,
      transient: false,
    });
    expect(lines(u, id)).toEqual(['started']);
    expect(warned.filter((m) => m.includes('held.mp4'))).toEqual([]);
  });

  it('a registered file whose gateway cannot be reached waits for its retry, with one notice naming the address', async () => {
    const file = kit.file('unreachable.mp4', MiB);
    await kit.fault({ target: 'gateway', operation: 'presign-missing', action: { type: 'status', status: 503 } });
    const first = kit.uploader('unreachable', { apiRetry: once, retrySchedule: schedule });
    const { queued } = await first.add([file.path], { structure: kit.structure(), type: 'interior' });
    const id = first.queue.filesOf(queued[0]!)[0]!.id;
    await first.engine.drain(); // registered; its presign refused once (503): waits for its retry
    await first.close();
    // A loopback port nothing listens on: taken from the system, then let go.
    const closed = await new Promise<number>((resolve) => {
      const s = createServer().listen(0, '127.0.0.1', () => {
        const { port } = s.address() as AddressInfo;
        s.close(() => resolve(port));
      });
    });
    const { info } = kit.svc;
    const u = kit.uploader('unreachable', {
      apiRetry: once,
      retrySchedule: schedule,
      gateway: {
        baseUrl: `http://127.0.0.1:${closed}`,
        authUrl: info.authUrl,
        apiKey: info.apiKey,
        projectId: info.projectId,
        ...info.account,
      },
    });
    const warnings: string[] = [];
    u.engine.on((e) => void (e.type === 'warning' && warnings.push(e.message)));
    u.engine.retryAll();

    const summary = await u.engine.drain();

    expect(summary.waiting.map((f) => f.id)).toEqual([id]);
    expect(u.queue.file(id)).toMatchObject({ state: 'pending', transient: true, attempts: 2 });
    expect(warnings).toEqual([
      expect.stringMatching(
        new RegExp(`^Cannot reach the capture gateway at http://127\\.0\\.0\\.1:${closed}: .*Nothing was sent`),
      ),
    ]);
  });

  it('a file changed on disk mid-upload fails for a person and is marked changed, so its recording may be added again', async () => {
    // The test's own file, one byte longer than queued.
    const { u, id, summary } = await drainActingMidUpload('changing', (_u, _id, path) => appendFileSync(path, 'x'));

    expect(summary.failed.map((f) => f.id)).toEqual([id]);
    const row = u.queue.file(id)!;
    expect([row.state, row.changed]).toEqual(['failed', true]);
    expect(row.error).toMatch(/changing\.mp4 changed/);
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
