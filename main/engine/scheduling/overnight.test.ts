import { truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { FaultRuleInput } from '../../../e2e/service/testing.js';
import type { Uploader, UploaderOptions } from '../../service/uploader.js';
import { MiB, sha256, useServiceKit } from '../../testing/kit.js';

// The failures, one test each: what an overnight queue meets, and must drain through.

/** Uploaders with a 3 s stall timeout and otherwise the engine's own timings; reset after each test. */
const kit = useServiceKit('overnight-test', {}, { timings: 'engine', uploader: { stallTimeoutMs: 3000 } });
const svc = () => kit.svc;
const unhandled: unknown[] = [];
const onUnhandled = (err: unknown) => unhandled.push(err);

beforeAll(() => {
  process.on('unhandledRejection', onUnhandled);
});
afterEach(() => {
  expect(unhandled).toEqual([]);
});
afterAll(() => {
  process.off('unhandledRejection', onUnhandled);
});

/** An uploader on its own queue folder: short retry delays, and a retry schedule of `retryMs`. */
const uploader = (name: string, extra: Partial<UploaderOptions> = {}, retryMs = 200): Uploader =>
  kit.uploader(name, { retrySchedule: { delayMs: () => retryMs }, ...extra });
const makeFile = (name: string, size: number) => kit.file(name, size);
const gatewayConfig = () => kit.gateway();

const fault = (rule: FaultRuleInput) => kit.fault(rule);
const allFiles = (u: Uploader) =>
  u.queue.files(['waiting', 'pending', 'uploading', 'paused', 'completed', 'failed', 'cancelled']);
const structure = () => svc().info.structures[0]!;
const capturesAtService = () => Object.keys(svc().store.state.captures).length;
const stats = () => ({ ...svc().storage.stats });
const since = (before: { partsStored: number; partsReplaced: number }) => ({
  partsStored: svc().storage.stats.partsStored - before.partsStored,
  partsReplaced: svc().storage.stats.partsReplaced - before.partsReplaced,
});
/**
 * Uploads the file at `path` on an uploader `name` with a 3 s stall timeout (and `extra`): it
 * completes, stored as `bytes`, and nothing the uploader logged speaks of a stall.
 */
async function completesWithoutStall(
  name: string,
  path: string,
  bytes: Buffer,
  extra: Partial<UploaderOptions> = {},
): Promise<void> {
  const lines: string[] = [];
  const u = uploader(name, {
    ...extra,
    stallTimeoutMs: 3000,
    log: { info: (m) => lines.push(m), warn: (m) => lines.push(m) },
  });
  await u.add([path], { structure: structure(), type: 'interior' });
  const summary = await u.engine.drain();
  expect(summary.completed).toHaveLength(1);
  expect(lines.filter((l) => /No progress|stall/i.test(l))).toEqual([]);
  expect((await kit.stored(u, summary.completed[0]!.id)).sha256).toBe(sha256(bytes));
}
/**
 * Adds the file at `path` to `u` (whose registration hangs), and quits once its capture has been
 * registering for 200 ms: the quit and the add end within 2 s.
 */
async function quitWhileRegistering(u: Uploader, path: string): Promise<void> {
  const adding = u.add([path], { structure: structure(), type: 'interior' });
  await vi.waitFor(() => expect(u.queue.captures(['registering'])).toHaveLength(1));
  await new Promise((r) => setTimeout(r, 200));
  const t0 = Date.now();
  await u.engine.stop();
  await adding;
  expect(Date.now() - t0).toBeLessThan(2000);
}
/**
 * Adds the file at `path` to `u` and drains: one file completes, storage counted `parts` (stored
 * and replaced since the add), and what it holds hashes as `bytes`.
 */
async function addAndDrainOne(
  u: Uploader,
  path: string,
  bytes: Buffer,
  parts: { partsStored: number; partsReplaced: number },
): Promise<void> {
  const before = stats();
  await u.add([path], { structure: structure(), type: 'interior' });
  const summary = await u.engine.drain();
  expect(summary.completed).toHaveLength(1);
  expect(since(before)).toEqual(parts);
  expect((await kit.stored(u, summary.completed[0]!.id)).sha256).toBe(sha256(bytes));
}

describe('registration through outages (#7.1, #7.2)', () => {
  it('a capture refused with 503 and Retry-After is registered again by itself at the time asked, once', async () => {
    const { path, bytes } = makeFile('VID_20261122_010101_00_001.insv', MiB + 5);
    await fault({
      target: 'gateway',
      operation: 'add-capture',
      times: 3,
      action: { type: 'status', status: 503, retryAfter: '1' },
    });
    const u = uploader('reg-503');
    const before = capturesAtService();
    const { queued } = await u.add([path], { structure: structure(), type: 'interior' });
    const c = u.queue.capture(queued[0]!)!;
    // Committed: not registered, an attempt counted, a retry time set.
    expect(c).toMatchObject({ state: 'queued', attempts: 1 });
    expect(c.nextAttemptAt).toEqual(expect.any(Number));
    const summary = await u.engine.drain({ wait: true });
    expect(summary.completed).toHaveLength(1);
    expect(capturesAtService()).toBe(before + 1);
    expect((await kit.stored(u, summary.completed[0]!.id)).sha256).toBe(sha256(bytes));
    expect(u.queue.activity.list().map((a) => a.kind)).toEqual(
      expect.arrayContaining(['registration-retry', 'registered', 'completed']),
    );
  });

  it('a 503 without Retry-After after the gateway acted leaves the capture for a person, registered once, and the rest wait', async () => {
    // A proxy whose connection to the gateway ended says 503 without Retry-After, maybe after the
    // gateway registered the capture (docs/decisions/0039-add-capture-503.md).
    const paths = [1, 2, 3, 4].map((i) => makeFile(`VID_20261122_03000${i}_00_00${i}.insv`, 1000 + i).path);
    await fault({
      target: 'gateway',
      operation: 'add-capture',
      times: 2,
      action: { type: 'statusAfterActing', status: 503 },
    });
    const u = uploader('reg-503-acted', {}, 60_000);
    const before = capturesAtService();
    const t0 = Date.now();
    await u.add(paths, { structure: structure(), type: 'interior' });
    // Both lanes' first sends were answered 503 after the service registered them: never sent again.
    expect(u.queue.captures(['registration_unknown'])).toHaveLength(2);
    const waiting = u.queue.captures(['queued']);
    expect(waiting).toHaveLength(2);
    for (const c of waiting) expect(c.nextAttemptAt).toBeGreaterThan(t0 + 30_000);
    expect(capturesAtService()).toBe(before + 2);
    await u.engine.drain();
    expect(capturesAtService()).toBe(before + 2);
    expect(u.queue.captures(['registration_unknown'])).toHaveLength(2);
  });

  it('after a registration left in doubt, nothing more is sent until a read of the capture service is answered', async () => {
    const paths = [1, 2, 3].map((i) => makeFile(`VID_20261122_04000${i}_00_00${i}.insv`, 2000 + i).path);
    // Both lanes' sends are answered 503 after acting; then the service is down for one read more.
    await fault({
      target: 'gateway',
      operation: 'add-capture',
      times: 2,
      action: { type: 'statusAfterActing', status: 503 },
    });
    await fault({
      target: 'gateway',
      operation: 'latest-default-design-update-time',
      times: 1,
      action: { type: 'status', status: 503 },
    });
    const u = uploader('reg-probe');
    const before = capturesAtService();
    const from = svc().faults.requests.length;
    await u.add(paths, { structure: structure(), type: 'interior' });
    const summary = await u.engine.drain({ wait: true });
    const asked = svc()
      .faults.requests.slice(from)
      .map((r) => r.operation)
      .filter((o) => o === 'add-capture' || o === 'latest-default-design-update-time');
    // Two sends in doubt, a read refused (the third capture waits, sent nothing), a read answered, then the third sent once.
    expect(asked).toEqual([
      'add-capture',
      'add-capture',
      'latest-default-design-update-time',
      'latest-default-design-update-time',
      'add-capture',
    ]);
    expect(capturesAtService()).toBe(before + 3);
    expect(summary.completed).toHaveLength(1);
    expect(u.queue.captures(['registration_unknown'])).toHaveLength(2);
  });

  it('drain --wait does not end when a retry time comes due between the claim and the next look (found in CI)', async () => {
    const { path } = makeFile('VID_20261122_012345_00_001.insv', 2000);
    await fault({ target: 'gateway', operation: 'add-capture', times: 1, action: { type: 'status', status: 429 } });
    const u = uploader('due-race', {}, 300);
    await u.add([path], { structure: structure(), type: 'interior' });
    expect(u.queue.captures(['queued'])).toHaveLength(1);
    // The first look after the retry time finds nothing to claim, as when the time passes in the
    // microseconds between the claim and the read of the next due time.
    const claim = u.queue.schedule.claimDueCapture.bind(u.queue.schedule);
    let missed = false;
    vi.spyOn(u.queue.schedule, 'claimDueCapture').mockImplementation((at) => {
      const due = u.queue.schedule.nextDueAt();
      if (!missed && due !== null && due <= at) {
        missed = true;
        return undefined;
      }
      return claim(at);
    });
    const summary = await u.engine.drain({ wait: true });
    expect(missed).toBe(true);
    expect(summary.queued).toEqual([]);
    expect(summary.completed).toHaveLength(1);
  });

  it('registration started from two places at once sends each capture once', async () => {
    const a = makeFile('VID_20261122_020202_00_001.insv', 1000);
    const b = makeFile('VID_20261122_030303_00_001.insv', 1000);
    // Held 300 ms at the gateway so the two callers overlap.
    await fault({ target: 'gateway', operation: 'add-capture', times: 2, action: { type: 'latency', ms: 300 } });
    const u = uploader('reg-twice');
    const before = capturesAtService();
    const adding = [
      u.add([a.path], { structure: structure(), type: 'interior' }),
      u.add([b.path], { structure: structure(), type: 'interior' }),
    ];
    const draining = u.engine.drain();
    await Promise.all([...adding, u.engine.registerQueued(), draining]);
    await u.engine.drain();
    expect(capturesAtService()).toBe(before + 2);
    expect(u.queue.captures().map((c) => c.state)).toEqual(['completed', 'completed']);
  });
});

describe('replies lost after the work was done (#7.3)', () => {
  it('a single-part file whose PUT reply is lost completes without sending the part again', async () => {
    const { path, bytes } = makeFile('walk-single.mp4', 700_000);
    await fault({ target: 'storage', operation: 'UploadPart', action: { type: 'dropResponse', afterMs: 0 } });
    const u = uploader('single-lost');
    await addAndDrainOne(u, path, bytes, { partsStored: 1, partsReplaced: 0 });
  });

  it('a 3-part file whose three replies are all lost completes, each part stored once', async () => {
    const { path, bytes } = makeFile('walk-three.mp4', 2 * 5 * MiB + 123);
    await fault({ target: 'storage', operation: 'UploadPart', times: 3, action: { type: 'dropResponse', afterMs: 0 } });
    const u = uploader('three-lost', { concurrency: 3 });
    await addAndDrainOne(u, path, bytes, { partsStored: 3, partsReplaced: 0 });
  });

  it('a part whose ETag the queue lost (a crash inside the ledger window) is reported by its MD5, not sent again', async () => {
    const { path, bytes } = makeFile('walk-ledger.mp4', 900_000);
    const u = uploader('ledger-lost');
    await u.add([path], { structure: structure(), type: 'interior' });
    const [file] = u.queue.files(['pending']);
    // Storage gets the part, then the app dies before the ledger writes its ETag: upload the part by hand.
    const presign = await u.gateway.presignMissing(file!.uploadId!);
    const put = await fetch(presign.parts[0]!.url, { method: 'PUT', body: new Uint8Array(bytes) });
    expect(put.status).toBe(200);
    const before = stats();
    const summary = await u.engine.drain();
    expect(summary.completed).toHaveLength(1);
    expect(since(before)).toEqual({ partsStored: 0, partsReplaced: 0 });
    expect((await kit.stored(u, file!.id)).sha256).toBe(sha256(bytes));
  });
});

describe('controls at any instant (#7.4, #7.6, #7.9)', () => {
  it('removing a capture while its file uploads removes the rows and leaves no unhandled rejection', async () => {
    const { path } = makeFile('walk-remove.mp4', 12 * MiB);
    await fault({ target: 'storage', operation: 'UploadPart', times: 0, action: { type: 'latency', ms: 200 } });
    const u = uploader('remove');
    const { queued } = await u.add([path], { structure: structure(), type: 'interior' });
    const draining = u.engine.drain();
    await vi.waitFor(() => expect(u.queue.files(['uploading'])).toHaveLength(1));
    await u.engine.removeCapture(queued[0]!);
    await draining;
    expect(u.queue.captures()).toEqual([]);
    expect(allFiles(u)).toEqual([]);
    // Added again, it is a new capture and uploads in full.
    await svc().admin('DELETE', '/faults');
    const again = await u.add([path], { structure: structure(), type: 'interior' });
    expect(again.queued).toHaveLength(1);
    expect((await u.engine.drain()).completed).toHaveLength(1);
  });

  it('resume right after pause is not lost', async () => {
    const { path, bytes } = makeFile('walk-pause.mp4', 12 * MiB);
    await fault({ target: 'storage', operation: 'UploadPart', times: 0, action: { type: 'latency', ms: 150 } });
    const u = uploader('pause-resume');
    await u.add([path], { structure: structure(), type: 'interior' });
    const draining = u.engine.drain();
    await vi.waitFor(() => expect(u.queue.files(['uploading'])).toHaveLength(1));
    const id = u.queue.files(['uploading'])[0]!.id;
    u.engine.pause(id);
    u.engine.resume(id);
    await draining;
    const summary = await u.engine.drain();
    expect(summary.completed.map((f) => f.id)).toEqual([id]);
    expect((await kit.stored(u, id)).sha256).toBe(sha256(bytes));
  });

  it('a file cancelled just before quitting stays cancelled at the next start', async () => {
    const { path } = makeFile('walk-cancel.mp4', 12 * MiB);
    await fault({ target: 'storage', operation: 'UploadPart', times: 0, action: { type: 'latency', ms: 150 } });
    const u = uploader('cancel-quit');
    await u.add([path], { structure: structure(), type: 'interior' });
    void u.engine.drain();
    await vi.waitFor(() => expect(u.queue.files(['uploading'])).toHaveLength(1));
    const id = u.queue.files(['uploading'])[0]!.id;
    u.engine.cancel(id);
    await u.close();
    const from = svc().storage.received.length;
    const partsStored = svc().storage.stats.partsStored;
    const again = uploader('cancel-quit');
    expect(again.queue.file(id)!.state).toBe('cancelled');
    const summary = await again.engine.drain();
    expect(summary.cancelled.map((f) => f.id)).toEqual([id]);
    // Not a byte more: the next start sends nothing of it and never completes its upload.
    expect(svc().storage.received.slice(from)).toEqual([]);
    expect(svc().storage.stats.partsStored).toBe(partsStored);
    expect(svc().store.state.uploads[again.queue.file(id)!.uploadId!]!.status).not.toBe('completed');
  });
});

describe('pause, cancel and quit stop within 2 s whatever the gateway does (#7.5)', () => {
  const hang = (operation: string, target: 'gateway' | 'auth' = 'gateway') =>
    fault({ target, operation, times: 0, action: { type: 'hang' } });

  it.each(['presign-missing', 'complete-batch'])('quit behind a hung %s', async (operation) => {
    const { path } = makeFile(`walk-hang-${operation}.mp4`, 600_000);
    const u = uploader(`hang-${operation}`);
    await u.add([path], { structure: structure(), type: 'interior' });
    await hang(operation);
    void u.engine.drain();
    await vi.waitFor(() => expect(u.queue.files(['uploading'])).toHaveLength(1));
    await new Promise((r) => setTimeout(r, 300)); // the call is out and hanging
    const t0 = Date.now();
    await u.engine.stop();
    expect(Date.now() - t0).toBeLessThan(2000);
    expect(allFiles(u)[0]!.state).toBe('pending'); // kept for next time
  });

  it('pause behind a hung upload status read (§4.9, after a lost part reply)', async () => {
    const { path } = makeFile('walk-hang-status.mp4', 600_000);
    const u = uploader('hang-status');
    await u.add([path], { structure: structure(), type: 'interior' });
    await fault({ target: 'storage', operation: 'UploadPart', action: { type: 'dropResponse', afterMs: 0 } });
    await hang('status');
    const draining = u.engine.drain();
    await vi.waitFor(() => expect(u.queue.files(['uploading'])).toHaveLength(1));
    await new Promise((r) => setTimeout(r, 1500));
    const id = allFiles(u)[0]!.id;
    const t0 = Date.now();
    u.engine.pause(id);
    await draining;
    expect(Date.now() - t0).toBeLessThan(2000);
    expect(u.queue.file(id)!.state).toBe('paused');
  });

  it('quit behind a hung sign-in: the capture stays queued, not sent', async () => {
    const { path } = makeFile('VID_20261122_040404_00_001.insv', 1000);
    const u = uploader('hang-signin');
    await hang('signin', 'auth');
    const before = capturesAtService();
    await quitWhileRegistering(u, path);
    expect(u.queue.captures()[0]!.state).toBe('queued');
    expect(capturesAtService()).toBe(before);
  });

  it('quit behind a hung add-capture: the capture may be registered, so a person decides', async () => {
    const { path } = makeFile('VID_20261122_050505_00_001.insv', 1000);
    const u = uploader('hang-add');
    await u.gateway.signIn();
    await hang('add-capture');
    await quitWhileRegistering(u, path);
    expect(u.queue.captures()[0]!.state).toBe('registration_unknown');
  });
});

describe('limits and slow links (#7.7, #7.8)', () => {
  it('says at intake that a file would need more than 10,000 parts at the sample part size, naming it and the limit', async () => {
    const path = join(kit.work, 'VID_20261122_060606_00_001.insv');
    writeFileSync(path, '');
    // Sparse: 10,000 parts of 5 MiB and one byte more, without using the disk.
    truncateSync(path, 10_000 * 5 * MiB + 1);
    const u = uploader('too-many-parts', { readFacts: async () => ({}) });
    // The part size is the registration's to give (docs/decisions/0010-whole-capture.md): queued, and said.
    const { queued, refused, warnings } = await u.enqueue([path], { structure: structure(), type: 'interior' });
    expect(queued).toHaveLength(1);
    expect(refused).toEqual([]);
    expect(warnings.filter((w) => /parts/.test(w.reason))).toEqual([
      { path, reason: expect.stringMatching(/VID_20261122_060606_00_001\.insv .*10,001 parts.*10,000/) },
    ]);
  });

  it('a file the service splits into more than 10,000 parts fails at registration, before a byte is sent', async () => {
    const path = join(kit.work, 'VID_20261122_070707_00_001.insv');
    writeFileSync(path, '');
    truncateSync(path, 10_000 * 5 * MiB + 1);
    const u = uploader('too-many-parts-late', { readFacts: async () => ({}) });
    // A previous registration said 10 MiB parts; this one says 5 MiB, and it alone decides.
    u.queue.meta.set('partSize', 10 * MiB);
    const before = stats();
    await u.add([path], { structure: structure(), type: 'interior' });
    const summary = await u.engine.drain();
    expect(summary.failed).toHaveLength(1);
    expect(summary.failed[0]!.error).toMatch(/10,001 parts.*10,000/);
    expect(since(before).partsStored).toBe(0);
  });

  it('storage at 32 KiB/s: the wait for its answer after the last byte is not a stall', async () => {
    const { path, bytes } = makeFile('walk-slow-link.mp4', 256 * 1024);
    await svc().admin('PUT', '/settings', { bandwidthBytesPerSecond: 32 * 1024 });
    await completesWithoutStall('slow-link', path, bytes);
  });

  it('a client limit of 8 KiB/s: time held back by the limit is not a stall', async () => {
    const { path, bytes } = makeFile('walk-client-limit.mp4', 64 * 1024);
    await completesWithoutStall('client-limit', path, bytes, { bandwidthBytesPerSecond: 8 * 1024 });
  });
});

describe('sharing and signing (#7.9, #7.10)', () => {
  it('a part in backoff gives its slot away: another file completes meanwhile', async () => {
    const a = makeFile('walk-backoff-a.mp4', 300_000);
    const b = makeFile('walk-backoff-b.mp4', 300_000);
    const u = uploader('backoff', { concurrency: 1, partRetry: { retries: 4, delayMs: () => 2000 } });
    await u.add([a.path], { structure: structure(), type: 'interior' });
    await u.add([b.path], { structure: structure(), type: 'interior' });
    const [fa, fb] = allFiles(u);
    // Only file A's part fails, once: A then waits 2 s in backoff.
    await fault({ target: 'storage', operation: 'UploadPart', times: 1, action: { type: 'status', status: 500 } });
    const summary = await u.engine.drain();
    expect(summary.completed.map((f) => f.id).sort()).toEqual([fa!.id, fb!.id].sort());
    const doneA = u.queue.file(fa!.id)!.completedAt!;
    const doneB = u.queue.file(fb!.id)!.completedAt!;
    // Whichever file met the 500, the other finished during its backoff, not after it.
    expect(Math.abs(Date.parse(doneA) - Date.parse(doneB))).toBeGreaterThan(1000);
  });

  it('a network error re-signs nothing: one presign-missing call for a 4-part file with a reset part', async () => {
    const { path, bytes } = makeFile('walk-reset.mp4', 3 * 5 * MiB + 10);
    await fault({
      target: 'storage',
      operation: 'UploadPart',
      partNumber: 2,
      action: { type: 'reset', afterBytes: 1000 },
    });
    const u = uploader('no-resign');
    await u.add([path], { structure: structure(), type: 'interior' });
    const presign = vi.spyOn(u.gateway, 'presignMissing');
    const summary = await u.engine.drain();
    expect(summary.completed).toHaveLength(1);
    expect(presign).toHaveBeenCalledTimes(1);
    expect((await kit.stored(u, summary.completed[0]!.id)).sha256).toBe(sha256(bytes));
  });
});

describe('the retry schedule lives in the queue (#7.11)', () => {
  it('survives a restart: the waiting file keeps its attempt and retry time, and completes after', async () => {
    const { path, bytes } = makeFile('walk-durable.mp4', 700_000);
    await fault({ target: 'storage', operation: 'UploadPart', times: 0, action: { type: 'status', status: 503 } });
    const first = uploader('durable', {}, 1500);
    await first.add([path], { structure: structure(), type: 'interior' });
    const s1 = await first.engine.drain();
    expect(s1.waiting).toHaveLength(1);
    const { id, nextAttemptAt, attempts } = s1.waiting[0]!;
    expect(attempts).toBe(1);
    await first.close();
    await svc().admin('DELETE', '/faults');

    const second = uploader('durable', {}, 1500);
    expect(second.queue.file(id)).toMatchObject({ state: 'pending', attempts: 1, nextAttemptAt, transient: true });
    // Not due yet: a plain drain leaves it waiting; drain --wait sleeps until its time.
    expect((await second.engine.drain()).waiting.map((f) => f.id)).toEqual([id]);
    const s2 = await second.engine.drain({ wait: true });
    expect(s2.completed.map((f) => f.id)).toEqual([id]);
    expect(Date.now()).toBeGreaterThanOrEqual(nextAttemptAt!);
    expect((await kit.stored(second, id)).sha256).toBe(sha256(bytes));
  });
});

describe('a refusal of the credentials stops the queue, not each capture (#8.6)', () => {
  it('a wrong API key: one message, captures stay queued; corrected, they register with no person deciding', async () => {
    const a = makeFile('VID_20261122_090909_00_001.insv', 2000);
    const b = makeFile('VID_20261122_091010_00_001.insv', 3000);
    const wrong = uploader('wrong-key', { gateway: { ...gatewayConfig(), apiKey: 'not-the-key' } });
    const blocked: (string | null)[] = [];
    wrong.engine.on((e) => e.type === 'blocked' && blocked.push(e.message));
    const before = capturesAtService();
    await wrong.add([a.path, b.path], { structure: structure(), type: 'interior' });
    const summary = await wrong.engine.drain();
    expect(blocked).toHaveLength(1);
    expect(summary.blocked).toMatch(/refuses the API key .*fix the API key in the settings; 2 capture\(s\)/);
    expect(wrong.queue.captures().map((c) => c.state)).toEqual(['queued', 'queued']);
    expect(summary.needsAttention).toEqual([]);
    await wrong.close();

    const right = uploader('wrong-key');
    const done = await right.engine.drain();
    expect(done.completed).toHaveLength(2);
    expect(capturesAtService()).toBe(before + 2);
  });
});
