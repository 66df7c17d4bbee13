import { describe, expect, it } from 'vitest';
import type { FaultRuleInput } from '../../../e2e/service/testing.js';
import { MiB, sha256, useServiceKit } from '../../testing/kit.js';
import { recommendedRetryPolicy } from '../../api/errors.js';
import type { Uploader, UploaderOptions } from '../../service/uploader.js';

// The engine against storage's answers as real S3 (and what stands in front of it) gives them:
// SSE-KMS ETags, resets after the last byte, 403 from storage (HTML or not; a gateway 403 on one
// file) and SlowDown (pauses the whole queue).

// The local service, queue folders and files on disk come from the shared kit (main/testing/kit.ts).
const kit = useServiceKit('storage-answers');

/** An uploader on its own queue folder, with short retry delays; the durable schedule's first wait is a minute, so a waiting file stays waiting. */
const uploader = (name: string, extra: Partial<UploaderOptions> = {}): Uploader => kit.uploader(name, extra);
const makeFile = (name: string, size: number) => kit.file(name, size);
const stored = async (u: Uploader, fileId: number): Promise<Buffer> => (await kit.stored(u, fileId)).bytes;
const fault = (rule: FaultRuleInput) => kit.fault(rule);
const settings = async (body: unknown) => expect((await kit.svc.admin('PUT', '/settings', body)).status).toBe(200);
const structure = () => kit.svc.info.structures[0]!;
/** UploadPart requests storage received since `from` (an index into its request log). */
const partPuts = (from: number) => kit.svc.storage.received.slice(from).filter((r) => r.operation === 'UploadPart');

describe('server-side encryption', () => {
  it('an 11 MiB file under SSE-KMS: each part sent exactly once, the object byte for byte', async () => {
    await settings({ serverSideEncryption: 'aws:kms' });
    const { path, bytes } = makeFile('kms.mp4', 11 * MiB);
    const u = uploader('kms', { concurrency: 3 });
    const { queued } = await u.add([path], { structure: structure(), type: 'interior' });
    const from = kit.svc.storage.received.length;
    const summary = await u.engine.drain();
    const file = u.queue.filesOf(queued[0]!)[0]!;
    expect(summary.completed.map((f) => f.id)).toEqual([file.id]);
    expect(
      partPuts(from)
        .map((r) => r.partNumber)
        .sort(),
    ).toEqual([1, 2, 3]);
    expect(sha256(await stored(u, file.id))).toBe(sha256(bytes));
  });

  it('SSE-C too: each part sent once', async () => {
    await settings({ serverSideEncryption: 'sse-c' });
    const { path, bytes } = makeFile('ssec.mp4', 6 * MiB);
    const u = uploader('ssec');
    const { queued } = await u.add([path], { structure: structure(), type: 'interior' });
    const from = kit.svc.storage.received.length;
    expect((await u.engine.drain()).completed).toHaveLength(1);
    expect(
      partPuts(from)
        .map((r) => r.partNumber)
        .sort(),
    ).toEqual([1, 2]);
    expect(sha256(await stored(u, u.queue.filesOf(queued[0]!)[0]!.id))).toBe(sha256(bytes));
  });
});

describe('a reset after the last byte, again and again', () => {
  it('is a passing failure: the file waits on the durable schedule, then completes', async () => {
    const { path, bytes } = makeFile('reset.mp4', MiB);
    await fault({ target: 'storage', operation: 'UploadPart', times: 0, action: { type: 'reset', afterBytes: MiB } });
    const u = uploader('reset');
    const { queued } = await u.add([path], { structure: structure(), type: 'interior' });
    const t0 = Date.now();
    const first = await u.engine.drain();
    expect(first.failed).toEqual([]);
    const file = u.queue.filesOf(queued[0]!)[0]!;
    expect(first.waiting.map((f) => f.id)).toEqual([file.id]);
    expect(file).toMatchObject({ state: 'pending', transient: true, attempts: 1 });
    expect(file.nextAttemptAt).toBeGreaterThan(t0 + 30_000);
    expect(file.error).toMatch(/reset\.mp4/);
    expect(file.error).toMatch(/no answer|ECONNRESET|connection/i);
    expect(file.error).not.toMatch(/X-Amz-Signature|\?/);

    await kit.svc.admin('DELETE', '/faults');
    u.engine.resume(file.id);
    expect((await u.engine.drain()).completed.map((f) => f.id)).toEqual([file.id]);
    expect(sha256(await stored(u, file.id))).toBe(sha256(bytes));
  });
});

describe('403 from storage, and from the gateway on one file', () => {
  it('storage answering 403 with an HTML page: presigned again, then the file waits with the cause shown; the queue is never blocked', async () => {
    const { path, bytes } = makeFile('portal.mp4', MiB);
    await fault({ target: 'storage', operation: 'UploadPart', times: 0, action: { type: 'html', status: 403 } });
    const u = uploader('portal');
    const blocked: (string | null)[] = [];
    u.engine.on((e) => e.type === 'blocked' && blocked.push(e.message));
    const { queued } = await u.add([path], { structure: structure(), type: 'interior' });
    const from = kit.svc.storage.received.length;
    const first = await u.engine.drain();
    expect(first.blocked).toBeNull();
    expect(blocked).toEqual([]);
    expect(first.failed).toEqual([]);
    const file = u.queue.filesOf(queued[0]!)[0]!;
    expect(first.waiting.map((f) => f.id)).toEqual([file.id]);
    expect(file).toMatchObject({ state: 'pending', transient: true });
    expect(file.error).toMatch(/storage/i);
    expect(file.error).toMatch(/403/);
    expect(file.error).toMatch(/portal\.mp4/);
    expect(file.error).toMatch(/web page|HTML/i);
    expect(file.error).toMatch(/proxy or network sign-in/); // what to do
    expect(file.error).not.toMatch(/API key|X-Amz-Signature|\?/i);
    expect(partPuts(from).length).toBeGreaterThan(1); // presigned again and retried before waiting

    await kit.svc.admin('DELETE', '/faults');
    u.engine.resume(file.id);
    expect((await u.engine.drain()).completed.map((f) => f.id)).toEqual([file.id]);
    expect(sha256(await stored(u, file.id))).toBe(sha256(bytes));
  });

  it('storage answering 403 AccessDenied again and again: the file waits, the queue is not blocked', async () => {
    const { path } = makeFile('denied.mp4', MiB);
    await fault({ target: 'storage', operation: 'UploadPart', times: 0, action: { type: 'status', status: 403 } });
    const u = uploader('denied');
    await u.add([path], { structure: structure(), type: 'interior' });
    const summary = await u.engine.drain();
    expect(summary.blocked).toBeNull();
    expect(summary.failed).toEqual([]);
    expect(summary.waiting).toHaveLength(1);
    expect(summary.waiting[0]!.error).toMatch(/403/);
  });

  it("a gateway 403 on one file fails that file with the service's message; the other file completes and the queue goes on", async () => {
    const a = makeFile('VID_20261124_101010_00_001.insv', 3000);
    const b = makeFile('VID_20261124_111111_00_001.insv', 4000);
    const u = uploader('gateway-403', { concurrency: 1 });
    const blocked: (string | null)[] = [];
    u.engine.on((e) => e.type === 'blocked' && blocked.push(e.message));
    await u.add([a.path, b.path], { structure: structure(), type: 'interior' });
    expect(u.queue.captures().map((c) => c.state)).toEqual(['registered', 'registered']);
    await fault({ target: 'gateway', operation: 'presign-missing', times: 1, action: { type: 'status', status: 403 } });
    const summary = await u.engine.drain();
    expect(summary.blocked).toBeNull();
    expect(blocked).toEqual([]);
    expect(summary.completed).toHaveLength(1);
    expect(summary.failed).toHaveLength(1);
    expect(summary.failed[0]!.error).toMatch(/403/);
    expect(summary.failed[0]!.error).not.toMatch(/API key/i);
  });

  it("a gateway 403 on one capture's add-capture refuses that capture with the service's message; the next one registers and uploads", async () => {
    const a = makeFile('VID_20261124_121212_00_001.insv', 3000);
    const b = makeFile('VID_20261124_131313_00_001.insv', 4000);
    await fault({ target: 'gateway', operation: 'add-capture', times: 1, action: { type: 'status', status: 403 } });
    const u = uploader('gateway-403-capture');
    const blocked: (string | null)[] = [];
    u.engine.on((e) => e.type === 'blocked' && blocked.push(e.message));
    await u.add([a.path, b.path], { structure: structure(), type: 'interior' });
    const summary = await u.engine.drain();
    expect(summary.blocked).toBeNull();
    expect(blocked).toEqual([]);
    expect(
      u.queue
        .captures()
        .map((c) => c.state)
        .sort(),
    ).toEqual(['completed', 'rejected']);
    expect(u.queue.captures().find((c) => c.state === 'rejected')!.error).toMatch(
      /refused this capture: Internal Server Error/,
    ); // the service's message (the fault's body)
    expect(summary.completed).toHaveLength(1);
  });
});

describe('SlowDown pauses the whole queue', () => {
  it('503 SlowDown with Retry-After: 2: no new part request reaches storage until the advised time has passed', async () => {
    await settings({ storageRetryAfterSeconds: 2 });
    const a = makeFile('slow-a.mp4', 10 * MiB);
    const b = makeFile('slow-b.mp4', 10 * MiB);
    // Storage answers the first UploadPart SlowDown, whichever file it is of.
    await fault({ target: 'storage', operation: 'UploadPart', times: 1, action: { type: 'status', status: 503 } });
    let slowDownAt: number | undefined;
    const u = uploader('slowdown', {
      concurrency: 2,
      log: { info: (m) => void (/SlowDown/.test(m) && (slowDownAt ??= Date.now())), warn: () => {} },
    });
    const { queued } = await u.add([a.path, b.path], { structure: structure(), type: 'interior' });
    const from = kit.svc.storage.received.length;
    const summary = await u.engine.drain();
    expect(summary.completed).toHaveLength(2);
    expect(slowDownAt).toBeDefined();
    // Requests already on the wire when the answer came are not new (they reached storage first);
    // from 250 ms after it, nothing until 2 s have passed. The client and storage share one event
    // loop here: on a loaded machine a PUT sent just before the answer is handled that much later.
    const during = partPuts(from).filter((r) => r.at > slowDownAt! + 250 && r.at < slowDownAt! + 1900);
    expect(during).toEqual([]);
    expect(partPuts(from).length).toBe(5); // four parts, one of them twice
    for (const c of queued) {
      const f = u.queue.filesOf(c)[0]!;
      expect(sha256(await stored(u, f.id))).toBe(sha256(f.path === a.path ? a.bytes : b.bytes));
    }
  });
});

describe('complete-batch still "uploading" with nothing missing (§4.7)', () => {
  it('rounds back off as §8 retries do, then the file fails naming it, never a burst', async () => {
    const { path } = makeFile('lagging.mp4', MiB);
    // The service keeps answering "uploading" with no part missing: it is still at work.
    await fault({
      target: 'gateway',
      operation: 'complete-batch',
      times: 0,
      action: { type: 'json', status: 200, body: { ok: true, upload: { status: 'uploading', missingParts: [] } } },
    });
    const u = uploader('lagging', { partRetry: recommendedRetryPolicy(1000, 0), maxRounds: 3 });
    const { queued } = await u.add([path], { structure: structure(), type: 'interior' });
    const started = performance.now();
    const summary = await u.engine.drain();
    const took = performance.now() - started;
    const file = u.queue.filesOf(queued[0]!)[0]!;
    expect(summary.completed).toEqual([]);
    expect(u.queue.file(file.id)!.error).toMatch(/still lists 0 part\(s\) of lagging\.mp4 as missing after 4 rounds/);
    // The first answer sets the best figure, three more without progress end it; between the four
    // rounds 1 s, 2 s and 4 s (base 1 s, doubled each time), where there were none.
    expect(took).toBeGreaterThanOrEqual(7000);
  });
});
