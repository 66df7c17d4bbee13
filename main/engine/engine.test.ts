import { appendFileSync, copyFileSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { FaultRuleInput } from '../../e2e/service/testing.js';
import { MiB, sha256, useServiceKit } from '../testing/kit.js';
import type { Uploader, UploaderOptions } from '../service/uploader.js';
import type { EngineEvent } from './engine.js';
import { overnightRetrySchedule } from './scheduling/retry-schedule.js';

const fixtures = fileURLToPath(new URL('../../../shared/fixtures/', import.meta.url));

// The local service, queue folders and files on disk come from the shared kit (main/testing/kit.ts).
const kit = useServiceKit('engine-test');

/** An uploader on its own queue folder, with short retry delays so fault tests run in seconds (the engine's own durable schedule). */
const uploader = (name: string, extra: Partial<UploaderOptions> = {}): Uploader =>
  kit.uploader(name, { stallTimeoutMs: 1500, retrySchedule: overnightRetrySchedule(), ...extra });
/** A file of random bytes in the kit.work folder. */
const makeFile = (name: string, size: number) => kit.file(name, size);
/** What storage holds for a queued file, read back through the S3 API. */
const stored = async (u: Uploader, fileId: number): Promise<Buffer> => (await kit.stored(u, fileId)).bytes;
const fault = (rule: FaultRuleInput) => kit.fault(rule);
/** A fault on storage's UploadPart of part `partNumber`, acting `times` times (once when not given; 0: always). */
const partFault = (partNumber: number, action: FaultRuleInput['action'], times?: number) =>
  fault({ target: 'storage', operation: 'UploadPart', partNumber, action, ...(times === undefined ? {} : { times }) });
const structure = () => kit.structure();

/**
 * Resumes file `fileId` of `u` and drains: that file alone completes and storage holds `bytes` for
 * it. Returns how many parts storage stored and replaced from the resume on.
 */
async function resumeToEnd(
  u: Uploader,
  fileId: number,
  bytes: Buffer,
): Promise<{ partsStored: number; partsReplaced: number }> {
  const before = { ...kit.svc.storage.stats };
  u.engine.resume(fileId);
  expect((await u.engine.drain()).completed.map((f) => f.id)).toEqual([fileId]);
  const { partsStored, partsReplaced } = kit.svc.storage.stats;
  expect(sha256(await stored(u, fileId))).toBe(sha256(bytes));
  return { partsStored: partsStored - before.partsStored, partsReplaced: partsReplaced - before.partsReplaced };
}

describe('uploads real files end to end', () => {
  it('groups a dual-lens pair and an MP4, registers them, and stores every byte', async () => {
    const dir = mkdtempSync(join(kit.work, 'card-'));
    const lens0 = join(dir, 'VID_20231121_201609_00_007.insv');
    const lens1 = join(dir, 'VID_20231121_201609_10_007.insv');
    copyFileSync(join(fixtures, 'sample.insv'), lens0);
    copyFileSync(join(fixtures, 'sample.insv'), lens1);
    copyFileSync(join(fixtures, 'walkthrough.mp4'), join(dir, 'walkthrough.mp4'));
    writeFileSync(join(dir, 'LRV_20231121_201609_11_007.insv'), 'preview');

    // Storage at 4 MiB/s: the 3.3 MB card takes most of a second, so progress is sampled (every
    // 100 ms) while it moves; at loopback speed it could finish between two samples.
    await kit.svc.admin('PUT', '/settings', { bandwidthBytesPerSecond: 4 * MiB });
    const u = uploader('real');
    const events: EngineEvent[] = [];
    u.engine.on((e) => events.push(e));
    const { queued, refused } = await u.add([dir], { structure: structure(), type: 'interior' });
    expect(refused.map((r) => r.reason)).toEqual([expect.stringMatching(/Low-resolution preview/)]);
    expect(queued).toHaveLength(2);
    const summary = await u.engine.drain();
    expect(summary.failed).toEqual([]);
    expect(summary.completed.map((f) => f.fileName).sort()).toEqual([
      'VID_20231121_201609_00_007.insv',
      'VID_20231121_201609_10_007.insv',
      'walkthrough.mp4',
    ]);

    const insv = u.queue.captures().find((c) => c.request.files.length === 2)!;
    expect(insv.request.captureDateTime).toBe('2023-11-21T20:16:09.000Z');
    expect(insv.request.metaDetails).toMatchObject({
      frameRate: 29.97,
      cameraName: 'Insta360 OneR',
      deviceID: 'IAEAN00000XXXX',
    });
    for (const f of summary.completed) expect(sha256(await stored(u, f.id))).toBe(sha256(readFileSync(f.path)));
    expect(u.queue.captures().map((c) => c.state)).toEqual(['completed', 'completed']);
    // Progress as the screens read it: sampled while uploading, each file's bytes and parts never
    // past its size, never going back, and no sample of a file after its 'completed' event.
    const samples = events.flatMap((e, at) => (e.type === 'progress' ? e.files.map((p) => ({ at, p })) : []));
    expect(samples).not.toEqual([]);
    for (const f of summary.completed) {
      const mine = samples.filter((s) => s.p.fileId === f.id);
      const completedAt = events.findIndex((e) => e.type === 'file' && e.fileId === f.id && e.state === 'completed');
      for (const { at, p } of mine) {
        expect([p.bytesTotal, p.bytesSent <= f.size, p.partsDone <= p.partsTotal, at < completedAt]).toEqual([
          f.size,
          true,
          true,
          true,
        ]);
      }
      const sent = mine.map((s) => s.p.bytesSent);
      expect(sent).toEqual([...sent].sort((a, b) => a - b));
    }
  });

  it('uploads a 23 MiB file in five parts, reporting them in ascending order', async () => {
    const { path, bytes } = makeFile('VID_20261120_101010_00_001.insv', 23 * MiB + 17);
    const u = uploader('multipart', { concurrency: 3 });
    const { queued } = await u.add([path], { structure: structure(), type: 'exterior' });
    const summary = await u.engine.drain();
    const [file] = u.queue.filesOf(queued[0]!);
    expect(summary.completed.map((f) => f.id)).toEqual([file!.id]);
    expect(u.queue.parts(file!.id).map((p) => [p.partNumber, p.etag !== null])).toEqual(
      [1, 2, 3, 4, 5].map((n) => [n, true]),
    );
    expect(sha256(await stored(u, file!.id))).toBe(sha256(bytes));
  });
});

describe('survives every fault the service can inject', () => {
  it('storage 500, SlowDown, RequestTimeout, a reset mid-part and a missing ETag', async () => {
    const { path, bytes } = makeFile('faulty.mp4', 23 * MiB);
    await partFault(1, { type: 'reset', afterBytes: MiB });
    await partFault(2, { type: 'status', status: 500 });
    await partFault(3, { type: 'status', status: 503 });
    await partFault(4, { type: 'requestTimeout' });
    await partFault(5, { type: 'noEtag' });
    const u = uploader('faults');
    const { queued } = await u.add([path], { structure: structure(), type: 'interior' });
    const summary = await u.engine.drain();
    expect(summary.failed).toEqual([]);
    const rules = ((await (await kit.svc.admin('GET', '/faults')).json()) as { rules: { fired: number }[] }).rules;
    expect(rules.map((r) => r.fired)).toEqual([1, 1, 1, 1, 1]);
    expect(sha256(await stored(u, u.queue.filesOf(queued[0]!)[0]!.id))).toBe(sha256(bytes));
  });

  it('gateway 5xx on presign and complete-batch, and added latency', async () => {
    const { path, bytes } = makeFile('gateway-faults.mp4', 6 * MiB);
    await fault({ target: 'gateway', operation: 'presign-missing', times: 2, action: { type: 'status', status: 503 } });
    await fault({ target: 'gateway', operation: 'complete-batch', action: { type: 'status', status: 502 } });
    await fault({ target: 'gateway', operation: 'status', action: { type: 'latency', ms: 300 } });
    const u = uploader('gateway-faults');
    const { queued } = await u.add([path], { structure: structure(), type: 'interior' });
    expect((await u.engine.drain()).failed).toEqual([]);
    expect(sha256(await stored(u, u.queue.filesOf(queued[0]!)[0]!.id))).toBe(sha256(bytes));
  });

  it('a stalled part is aborted after the stall timeout and sent again', async () => {
    const { path, bytes } = makeFile('stall.mp4', 2 * MiB);
    await fault({ target: 'storage', operation: 'UploadPart', action: { type: 'hang' } });
    // Nothing answered yet and the part smaller than the buffers: its own bytes at the slowest link
    // assumed, 1 MiB/s here, bound the wait for its answer: 0.4 s + 2 MiB / 1 MiB/s.
    const u = uploader('stall', { stallTimeoutMs: 400, minLinkRate: MiB });
    const { queued } = await u.add([path], { structure: structure(), type: 'interior' });
    expect((await u.engine.drain()).failed).toEqual([]);
    expect(sha256(await stored(u, u.queue.filesOf(queued[0]!)[0]!.id))).toBe(sha256(bytes));
  });

  it('presigned URLs that expire mid-upload are presigned again, and storage never saw a duplicate part', async () => {
    const { path, bytes } = makeFile('expiring.mp4', 16 * MiB);
    await kit.svc.admin('PUT', '/settings', { presignExpiresIn: 1 });
    // Part 3 is held 2.5 s before storage checks its signature: its URL has expired by then.
    await partFault(3, { type: 'latency', ms: 2500 });
    const before = { ...kit.svc.storage.stats };
    const lines: string[] = [];
    // A long stall timeout, so the held part meets its expired URL rather than the stall watchdog.
    const u = uploader('expiring', {
      concurrency: 2,
      stallTimeoutMs: 10_000,
      log: { info: (m) => lines.push(m), warn: (m) => lines.push(m) },
    });
    const { queued } = await u.add([path], { structure: structure(), type: 'interior' });
    expect((await u.engine.drain()).failed).toEqual([]);
    expect(sha256(await stored(u, u.queue.filesOf(queued[0]!)[0]!.id))).toBe(sha256(bytes));
    expect(kit.svc.storage.stats.partsReplaced - before.partsReplaced).toBe(0);
    expect(lines.join('\n')).toMatch(
      /Part 3 of expiring\.mp4: the presigned URL was refused \(AccessDenied: Request has expired \(HTTP 403 on PUT [^?]*\)\); presigning again/,
    );
  });

  it('a token that expires mid-upload: signs in again and carries on', async () => {
    const { path, bytes } = makeFile('token.mp4', 11 * MiB);
    // Storage at 8 MiB/s: on a quiet loopback the three parts could all finish inside one
    // progress interval, before the token is expired, and the test would prove nothing.
    await kit.svc.admin('PUT', '/settings', { bandwidthBytesPerSecond: 8 * MiB });
    const u = uploader('token', { concurrency: 1 });
    let expired = false;
    u.engine.on((e) => {
      if (!expired && e.type === 'progress' && e.files.some((f) => f.partsDone >= 1)) {
        expired = true;
        void kit.svc.admin('POST', '/tokens/expire');
      }
    });
    const { queued } = await u.add([path], { structure: structure(), type: 'interior' });
    expect((await u.engine.drain()).failed).toEqual([]);
    expect(expired).toBe(true);
    expect(sha256(await stored(u, u.queue.filesOf(queued[0]!)[0]!.id))).toBe(sha256(bytes));
  });

  it('retries exhausted: the file waits for its scheduled retry with the reason; resumed, it sends only the missing part', async () => {
    const { path, bytes } = makeFile('exhausted.mp4', 12 * MiB);
    await partFault(3, { type: 'status', status: 500 }, 0);
    const u = uploader('exhausted', { concurrency: 1 });
    const { queued } = await u.add([path], { structure: structure(), type: 'interior' });
    const t0 = Date.now();
    const first = await u.engine.drain();
    expect(first.failed).toEqual([]);
    expect(first.waiting).toHaveLength(1);
    expect(first.waiting[0]!.error).toMatch(/InternalError.*HTTP 500 on PUT/);
    expect(first.waiting[0]!.error).not.toMatch(/X-Amz-Signature|\?/);
    const file = u.queue.filesOf(queued[0]!)[0]!;
    // Committed to the queue: a passing failure, its attempt counted, its retry time on the schedule.
    expect(file).toMatchObject({ state: 'pending', transient: true, attempts: 1 });
    expect(file.nextAttemptAt).toBeGreaterThan(t0 + 10_000);
    expect(u.queue.parts(file.id).map((p) => p.etag !== null)).toEqual([true, true, false]);

    await kit.svc.admin('DELETE', '/faults');
    expect((await resumeToEnd(u, file.id, bytes)).partsStored).toBe(1);
  });

  it('a validation 4xx is not retried: the capture is rejected with the service message', async () => {
    const { path } = makeFile('rejected.mp4', 1000);
    const u = uploader('rejected');
    const { queued } = await u.add([path], { structure: 'f'.repeat(24), type: 'interior' });
    const c = u.queue.capture(queued[0]!)!;
    expect(c.state).toBe('rejected');
    expect(c.error).toMatch(/structure ffffffffffffffffffffffff is not a structure of this project/);
  });
});

describe('pause, resume, cancel, changed files, limits', () => {
  it('pauses a file mid-upload and resumes it from the parts already stored', async () => {
    const { path, bytes } = makeFile('pause.mp4', 21 * MiB);
    await kit.svc.admin('PUT', '/settings', { bandwidthBytesPerSecond: 20 * MiB });
    const u = uploader('pause', { concurrency: 1 });
    const { queued } = await u.add([path], { structure: structure(), type: 'interior' });
    const file = u.queue.filesOf(queued[0]!)[0]!;
    const off = u.engine.on((e) => {
      if (e.type === 'progress' && e.files.some((f) => f.partsDone >= 2)) {
        u.engine.pause(file.id);
        off();
      }
    });
    const first = await u.engine.drain();
    expect(first.paused.map((f) => f.id)).toEqual([file.id]);
    const done = u.queue.parts(file.id).filter((p) => p.etag).length;
    expect(done).toBeGreaterThanOrEqual(2);
    expect(done).toBeLessThan(5);

    expect((await resumeToEnd(u, file.id, bytes)).partsReplaced).toBe(0);
  });

  it('cancels a file: nothing more is sent', async () => {
    const { path } = makeFile('cancel.mp4', 11 * MiB);
    await kit.svc.admin('PUT', '/settings', { bandwidthBytesPerSecond: 8 * MiB });
    const u = uploader('cancel', { concurrency: 1 });
    const { queued } = await u.add([path], { structure: structure(), type: 'interior' });
    const file = u.queue.filesOf(queued[0]!)[0]!;
    let cancelledAt: number | undefined;
    u.engine.on((e) => {
      // Mid-part: over 1 MiB of the first part on the wire, none of it acknowledged yet (bytesSent
      // counts only what storage acknowledged).
      if (
        cancelledAt === undefined &&
        e.type === 'progress' &&
        e.files.some((f) => f.bytesSent + f.bytesInFlight > MiB)
      ) {
        cancelledAt = Date.now();
        u.engine.cancel(file.id);
      }
    });
    const from = kit.svc.storage.received.length;
    const summary = await u.engine.drain();
    expect(u.queue.file(file.id)!.state).toBe('cancelled');
    expect(summary.completed).toEqual([]);
    // Nothing more reached storage: no part request began after the cancel, at most the one part in
    // flight then was stored, the upload was never completed, and a while later storage has no more.
    const puts = kit.svc.storage.received.slice(from).filter((r) => r.operation === 'UploadPart');
    expect(puts.filter((r) => r.at > cancelledAt!)).toEqual([]);
    expect(puts.map((r) => r.partNumber)).toEqual([1]);
    const partsStored = kit.svc.storage.stats.partsStored;
    await new Promise((r) => setTimeout(r, 1000));
    expect(kit.svc.storage.stats.partsStored).toBe(partsStored);
    expect(kit.svc.storage.received.slice(from).map((r) => r.operation)).not.toContain('CompleteMultipartUpload');
    expect(kit.svc.store.state.uploads[file.uploadId!]!.status).not.toBe('completed');
  });

  it('fails a file that changed on disk after it was queued, naming it', async () => {
    const { path } = makeFile('changed.mp4', 6 * MiB);
    const u = uploader('changed');
    const { queued } = await u.add([path], { structure: structure(), type: 'interior' });
    appendFileSync(path, 'more bytes from a camera still writing');
    const summary = await u.engine.drain();
    expect(summary.failed).toHaveLength(1);
    expect(summary.failed[0]!.error).toBe(
      `${path} changed while uploading (size ${6 * MiB + 38} bytes, queued with ${6 * MiB}): nothing more of it is sent and none of it was finalized. Adding it again, with the other files of its recording, registers a new capture for the whole recording at the platform, and this one is then shown as replaced.`,
    );
    expect(u.queue.file(u.queue.filesOf(queued[0]!)[0]!.id)!.state).toBe('failed');
  });

  it('refuses bad input by name, losing nothing already queued', async () => {
    const u = uploader('bad-input');
    const good = makeFile('good.mp4', 1000);
    await u.add([good.path], { structure: structure(), type: 'interior' });
    const empty = makeFile('empty.insv', 0);
    const csv = makeFile('alone.csv', 10);
    const mov = makeFile('clip.mov', 10);
    const { queued, refused } = await u.add([empty.path, csv.path, mov.path, join(kit.work, 'missing.mp4')], {
      structure: structure(),
      type: 'interior',
    });
    expect(queued).toEqual([]);
    expect(refused.map((r) => [r.path, r.reason])).toEqual([
      [join(kit.work, 'missing.mp4'), expect.stringMatching(/Cannot be read \(ENOENT\)/)],
      [empty.path, expect.stringMatching(/empty \(0 bytes\)/)],
      [mov.path, expect.stringMatching(/^Only INSV, MP4, and CSV files are allowed/)],
      [csv.path, expect.stringMatching(/^At least one INSV or MP4 file is required, CSV is optional/)],
    ]);
    expect(u.queue.captures()).toHaveLength(1);
  });

  it('never opens a media file for writing: its bytes and modification time stay as they were', async () => {
    const { path, bytes } = makeFile('VID_20261121_080000_00_002.insv', 6 * MiB);
    const { mtimeMs } = (await import('node:fs')).statSync(path);
    const u = uploader('read-only');
    await u.add([path], { structure: structure(), type: 'interior' });
    await u.engine.drain();
    expect(sha256(readFileSync(path))).toBe(sha256(bytes));
    expect((await import('node:fs')).statSync(path).mtimeMs).toBe(mtimeMs);
  });
});

describe('field safety', () => {
  it('does not queue the same recording twice when the card is dropped again', async () => {
    const { path } = makeFile('twice.mp4', 1000);
    const u = uploader('twice');
    expect((await u.add([path], { structure: structure(), type: 'interior' })).queued).toHaveLength(1);
    const second = await u.add([path], { structure: structure(), type: 'interior' });
    expect(second.queued).toEqual([]);
    expect(second.refused).toEqual([
      { path, reason: expect.stringMatching(/^Already in the queue as capture 1 \(.+\); it is not added twice\.$/) },
    ]);
  });

  it('keeps secrets out of every log line, event and stored error, even when things fail', async () => {
    const lines: string[] = [];
    const log = { info: (m: string) => lines.push(m), warn: (m: string) => lines.push(m) };
    const { path } = makeFile('secrets.mp4', 11 * MiB);
    await kit.svc.admin('PUT', '/settings', { presignExpiresIn: 1 });
    // Held 1.2 s before the signature check: the 1 s URL has expired by then.
    await partFault(1, { type: 'latency', ms: 1200 });
    await partFault(2, { type: 'reset', afterBytes: 1000 });
    await partFault(3, { type: 'status', status: 500 }, 0);
    const u = uploader('secrets', { log, concurrency: 1, stallTimeoutMs: 10_000 });
    const events: EngineEvent[] = [];
    u.engine.on((e) => events.push(e));
    await u.add([path], { structure: structure(), type: 'interior' });
    await kit.svc.admin('POST', '/tokens/expire');
    const summary = await u.engine.drain();
    expect(summary.waiting).toHaveLength(1); // part 3 never gets through: retried later
    const token = await kit.svc.token();
    const text = [...lines, JSON.stringify(events), JSON.stringify(u.queue.captures()), JSON.stringify(summary)].join(
      '\n',
    );
    expect(lines.join('\n')).toMatch(/presigning again/);
    for (const secret of [
      kit.svc.info.apiKey,
      kit.svc.info.account.password,
      kit.svc.info.s3.secretAccessKey,
      token.split('.')[0]!,
      'X-Amz-Signature',
      'X-Amz-Credential',
      'Bearer',
    ]) {
      expect(text).not.toContain(secret);
    }
  });
});

describe('replies lost after the kit.work was done', () => {
  it('a part stored but its answer lost is not sent again: the service counts it from storage', async () => {
    const { path, bytes } = makeFile('lost-reply.mp4', 16 * MiB);
    await partFault(2, { type: 'dropResponse' });
    const before = { ...kit.svc.storage.stats };
    const u = uploader('lost-reply', { concurrency: 2 });
    const { queued } = await u.add([path], { structure: structure(), type: 'interior' });
    expect((await u.engine.drain()).failed).toEqual([]);
    expect(kit.svc.storage.stats.partsReplaced - before.partsReplaced).toBe(0);
    expect(kit.svc.storage.stats.partsStored - before.partsStored).toBe(4);
    expect(sha256(await stored(u, u.queue.filesOf(queued[0]!)[0]!.id))).toBe(sha256(bytes));
  });

  it('an add-capture whose reply is lost is flagged registration_unknown, not sent again', async () => {
    const { path } = makeFile('lost-registration.mp4', 1000);
    await fault({ target: 'gateway', operation: 'add-capture', action: { type: 'dropResponse' } });
    const before = Object.keys(kit.svc.store.state.captures).length;
    const u = uploader('lost-registration');
    const { queued } = await u.add([path], { structure: structure(), type: 'interior' });
    expect(u.queue.capture(queued[0]!)!.state).toBe('registration_unknown');
    const summary = await u.engine.drain();
    expect(summary.needsAttention.map((c) => c.state)).toEqual(['registration_unknown']);
    expect(Object.keys(kit.svc.store.state.captures).length).toBe(before + 1);
  });
});
