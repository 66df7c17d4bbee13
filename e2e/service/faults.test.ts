import { CreateMultipartUploadCommand, ListPartsCommand, UploadPartCommand } from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { createHash, randomBytes } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { FaultRuleInput } from './faults.js';
import type { TestService } from './testing.js';
import { putBytes, registerCapture, startTestService } from './testing.js';

let svc: TestService;
beforeAll(async () => {
  svc = await startTestService();
});
afterEach(async () => {
  await svc.admin('DELETE', '/faults');
  await svc.admin('PUT', '/settings', { presignExpiresIn: 3600, bandwidthBytesPerSecond: null, latencyMs: 0 });
});
afterAll(() => svc.stop());

const addFault = async (rule: FaultRuleInput) => expect((await svc.admin('POST', '/faults', rule)).status).toBe(201);
/** A rule acting once on the next part PUT (UploadPart, of `scope` when given) with `action`. */
const partFault = (action: FaultRuleInput['action'], scope: Pick<FaultRuleInput, 'partNumber'> = {}) =>
  addFault({ target: 'storage', operation: 'UploadPart', ...scope, action });

/** A fresh multipart upload and a function giving presigned part URLs for it. */
async function upload() {
  const s3 = svc.s3();
  const Bucket = svc.info.s3.bucket;
  const Key = `faults/${randomBytes(4).toString('hex')}.bin`;
  const { UploadId } = await s3.send(new CreateMultipartUploadCommand({ Bucket, Key }));
  return {
    url: (PartNumber: number) => getSignedUrl(s3, new UploadPartCommand({ Bucket, Key, UploadId, PartNumber })),
    storedParts: async () =>
      ((await s3.send(new ListPartsCommand({ Bucket, Key, UploadId }))).Parts ?? []).map((p) => p.PartNumber),
  };
}
const put = putBytes;
const code = async (res: Response) => /<Code>([^<]*)<\/Code>/.exec(await res.text())?.[1];

describe('storage faults', () => {
  it.each([
    [500, 'InternalError'],
    [503, 'SlowDown'],
  ])('answers %i %s once, storing nothing, then works again', async (status, s3code) => {
    const u = await upload();
    await addFault({ target: 'storage', operation: 'UploadPart', action: { type: 'status', status } });
    const failed = await put(await u.url(1), randomBytes(1000));
    expect(failed.status).toBe(status);
    expect(await code(failed)).toBe(s3code);
    expect(await u.storedParts()).toEqual([]);
    expect((await put(await u.url(1), randomBytes(1000))).status).toBe(200);
    expect(await u.storedParts()).toEqual([1]);
  });

  it.each([
    [429, '3'],
    [503, '1'],
    [500, 'Wed, 25 Nov 2026 09:00:00 GMT'],
  ])("answers %i with the rule's Retry-After %s, storing nothing; without it, none", async (status, retryAfter) => {
    const u = await upload();
    await addFault({ target: 'storage', operation: 'UploadPart', action: { type: 'status', status, retryAfter } });
    await addFault({ target: 'storage', operation: 'UploadPart', action: { type: 'status', status } });
    const first = await put(await u.url(1), randomBytes(1000));
    expect([first.status, first.headers.get('retry-after')]).toEqual([status, retryAfter]);
    const second = await put(await u.url(1), randomBytes(1000));
    expect([second.status, second.headers.get('retry-after')]).toEqual([status, null]);
    expect(await u.storedParts()).toEqual([]);
  });

  it('answers 400 RequestTimeout after reading the body, storing nothing', async () => {
    const u = await upload();
    await addFault({ target: 'storage', operation: 'UploadPart', action: { type: 'requestTimeout' } });
    const res = await put(await u.url(1), randomBytes(1000));
    expect(res.status).toBe(400);
    expect(await code(res)).toBe('RequestTimeout');
    expect(await u.storedParts()).toEqual([]);
  });

  it('resets the connection in the middle of a part body, storing nothing', async () => {
    const u = await upload();
    await addFault({ target: 'storage', operation: 'UploadPart', action: { type: 'reset', afterBytes: 256 * 1024 } });
    await expect(put(await u.url(1), randomBytes(1024 * 1024))).rejects.toThrow();
    expect(await u.storedParts()).toEqual([]);
    expect((await put(await u.url(1), randomBytes(1000))).status).toBe(200);
  });

  it('resets the connection after the last body byte (resetAfterBody): the body arrived whole, nothing is stored', async () => {
    const u = await upload();
    await addFault({ target: 'storage', operation: 'UploadPart', action: { type: 'resetAfterBody' } });
    const before = svc.storage.stats.partBodiesReceived;
    await expect(put(await u.url(1), randomBytes(1024 * 1024))).rejects.toThrow();
    expect(svc.storage.stats.partBodiesReceived - before).toBe(1);
    expect(await u.storedParts()).toEqual([]);
    expect((await put(await u.url(1), randomBytes(1000))).status).toBe(200);
    expect(await u.storedParts()).toEqual([1]);
  });

  it('answers 200 without an ETag header but stores the part', async () => {
    const u = await upload();
    await addFault({ target: 'storage', operation: 'UploadPart', action: { type: 'noEtag' } });
    const res = await put(await u.url(1), randomBytes(1000));
    expect(res.status).toBe(200);
    expect(res.headers.get('etag')).toBeNull();
    expect(await u.storedParts()).toEqual([1]);
  });

  it('fires deterministically: skip, times and part number', async () => {
    const u = await upload();
    await addFault({
      target: 'storage',
      operation: 'UploadPart',
      partNumber: 2,
      skip: 1,
      times: 2,
      action: { type: 'status', status: 500 },
    });
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) statuses.push((await put(await u.url(2), randomBytes(100))).status);
    expect(statuses).toEqual([200, 500, 500, 200]);
    expect((await put(await u.url(3), randomBytes(100))).status).toBe(200);
  });

  it('fires only on the object key a rule names', async () => {
    const [a, b] = [await upload(), await upload()];
    const bKey = new URL(await b.url(1)).pathname.split('/').pop()!;
    await addFault({
      target: 'storage',
      operation: 'UploadPart',
      keyContains: bKey,
      action: { type: 'status', status: 500 },
    });
    expect((await put(await a.url(1), randomBytes(100))).status).toBe(200);
    expect((await put(await b.url(1), randomBytes(100))).status).toBe(500);
    expect((await put(await b.url(1), randomBytes(100))).status).toBe(200);
  });

  it('holds a request without answering until the client gives up', async () => {
    const u = await upload();
    await addFault({ target: 'storage', operation: 'UploadPart', action: { type: 'hang' } });
    await expect(put(await u.url(1), randomBytes(100), AbortSignal.timeout(300))).rejects.toThrow(/abort|timeout/i);
  });

  it('caps storage bandwidth for all bodies together', async () => {
    const u = await upload();
    await svc.admin('PUT', '/settings', { bandwidthBytesPerSecond: 256 * 1024 });
    const started = Date.now();
    await Promise.all([put(await u.url(1), randomBytes(256 * 1024)), put(await u.url(2), randomBytes(256 * 1024))]);
    // 512 KiB at 256 KiB/s is 2 s; the first chunk of each passes at once, so allow some slack below.
    expect(Date.now() - started).toBeGreaterThan(1500);
  });
});

it('lets a held request go on once the fault is cleared (the link is back): its body is read, stored and answered', async () => {
  const u = await upload();
  await addFault({ target: 'storage', operation: 'UploadPart', times: 0, action: { type: 'hang' } });
  const body = randomBytes(300 * 1024);
  const answer = put(await u.url(1), body);
  const heldBefore = svc.faults.held.length;
  await new Promise((r) => setTimeout(r, 500));
  expect(await u.storedParts()).toEqual([]);
  await svc.admin('DELETE', '/faults');
  const res = await answer;
  expect(res.status).toBe(200);
  expect(res.headers.get('etag')).toBe(`"${createHash('md5').update(body).digest('hex')}"`);
  expect(await u.storedParts()).toEqual([1]);
  const held = svc.faults.held.at(-1)!;
  expect(heldBefore).toBeGreaterThan(0);
  expect(held).toMatchObject({ target: 'storage', operation: 'UploadPart', partNumber: 1 });
  expect(held.releasedAt).toBeGreaterThan(held.at);
  expect(held.closedAt).toBeUndefined();
});

it('notes when the client gave up a held request', async () => {
  const u = await upload();
  await addFault({ target: 'storage', operation: 'UploadPart', action: { type: 'hang' } });
  await expect(put(await u.url(1), randomBytes(100), AbortSignal.timeout(300))).rejects.toThrow(/abort|timeout/i);
  const held = svc.faults.held.at(-1)!;
  for (let i = 0; i < 50 && held.closedAt === undefined; i++) await new Promise((r) => setTimeout(r, 20));
  expect(held.closedAt! - held.at).toBeGreaterThan(200);
  expect(held.releasedAt).toBeUndefined();
});

it('lifts the bandwidth cap at once for bodies already held back by it', async () => {
  const u = await upload();
  await svc.admin('PUT', '/settings', { bandwidthBytesPerSecond: 1024 });
  // 512 KiB at 1 KiB/s would take over 8 minutes.
  const answer = put(await u.url(1), randomBytes(512 * 1024));
  await new Promise((r) => setTimeout(r, 1000));
  const started = performance.now();
  await svc.admin('PUT', '/settings', { bandwidthBytesPerSecond: null });
  expect((await answer).status).toBe(200);
  expect(performance.now() - started).toBeLessThan(20_000);
});

describe('gateway and token faults', () => {
  const registeredUpload = async () =>
    (await registerCapture(svc, [{ name: 'walk.mp4', size: 4096, contentType: 'video/mp4' }], svc.info.structures[1]))
      .manifest[0]!.uploadId;

  it('hands out presigned URLs that expire after the configured seconds', async () => {
    const uploadId = await registeredUpload();
    await svc.admin('PUT', '/settings', { presignExpiresIn: 1 });
    const { parts } = (await (
      await svc.gateway('POST', `/upload-service/uploads/${uploadId}/parts/presign-missing`)
    ).json()) as {
      parts: { url: string; expiresIn: number }[];
    };
    expect(parts[0]!.expiresIn).toBe(1);
    await new Promise((r) => setTimeout(r, 2100));
    const res = await put(parts[0]!.url, randomBytes(4096));
    expect(res.status).toBe(403);
    expect(await res.text()).toMatch(/<Code>AccessDenied<\/Code><Message>Request has expired<\/Message>/);
  });

  it('answers a gateway 5xx once, then works', async () => {
    const uploadId = await registeredUpload();
    await addFault({ target: 'gateway', operation: 'presign-missing', action: { type: 'status', status: 503 } });
    const path = `/upload-service/uploads/${uploadId}/parts/presign-missing`;
    const failed = await svc.gateway('POST', path);
    expect(failed.status).toBe(503);
    expect(await failed.json()).toEqual({ success: false, message: 'Internal Server Error' });
    expect((await svc.gateway('POST', path)).status).toBe(200);
  });

  it('answers a gateway 429 with the Retry-After asked for', async () => {
    await addFault({
      target: 'gateway',
      operation: 'add-capture',
      action: { type: 'status', status: 429, retryAfter: '7' },
    });
    const before = Object.keys(svc.store.state.captures).length;
    await expect(registeredUpload()).rejects.toThrow(/answered 429/);
    expect(Object.keys(svc.store.state.captures).length).toBe(before);
    const uploadId = await registeredUpload();
    const path = `/upload-service/uploads/${uploadId}/parts/presign-missing`;
    await addFault({
      target: 'gateway',
      operation: 'presign-missing',
      action: { type: 'status', status: 503, retryAfter: 'Wed, 25 Nov 2026 09:00:00 GMT' },
    });
    const refused = await svc.gateway('POST', path);
    expect([refused.status, refused.headers.get('retry-after')]).toEqual([503, 'Wed, 25 Nov 2026 09:00:00 GMT']);
    const ok = await svc.gateway('POST', path);
    expect([ok.status, ok.headers.get('retry-after')]).toEqual([200, null]); // only with the fault's answer
  });

  it.each([500, 502])('registers the capture, then answers add-capture %i (statusAfterActing)', async (status) => {
    await addFault({ target: 'gateway', operation: 'add-capture', action: { type: 'statusAfterActing', status } });
    const before = Object.keys(svc.store.state.captures).length;
    await expect(registeredUpload()).rejects.toThrow(new RegExp(`answered ${status}: .*Internal Server Error`));
    expect(Object.keys(svc.store.state.captures).length).toBe(before + 1);
  });

  it('adds latency to a chosen call, and resets a gateway connection', async () => {
    const uploadId = await registeredUpload();
    await addFault({ target: 'gateway', operation: 'status', action: { type: 'latency', ms: 400 } });
    const started = Date.now();
    expect((await svc.gateway('GET', `/upload-service/uploads/${uploadId}/status`)).status).toBe(200);
    expect(Date.now() - started).toBeGreaterThanOrEqual(390);
    await addFault({ target: 'gateway', operation: 'status', action: { type: 'reset' } });
    await expect(svc.gateway('GET', `/upload-service/uploads/${uploadId}/status`)).rejects.toThrow();
  });

  it('trickles an answer: the status at once, then a space each tick for ever; clearing closes it', async () => {
    const uploadId = await registeredUpload();
    await addFault({ target: 'gateway', operation: 'status', action: { type: 'trickle', everyMs: 100 } });
    const res = await svc.gateway('GET', `/upload-service/uploads/${uploadId}/status`);
    expect(res.status).toBe(200);
    const reader = res.body!.getReader();
    let text = '';
    const started = Date.now();
    while (text.length < 5) text += new TextDecoder().decode((await reader.read()).value);
    expect(text.trim()).toBe('');
    expect(Date.now() - started).toBeGreaterThanOrEqual(300);
    await svc.admin('DELETE', '/faults');
    await expect(
      (async () => {
        for (;;) if ((await reader.read()).done) return;
      })(),
    ).rejects.toThrow();
  });

  it("trickles the handler's own answer a byte a tick, whole in the end", async () => {
    const uploadId = await registeredUpload();
    await addFault({
      target: 'gateway',
      operation: 'status',
      action: { type: 'trickle', everyMs: 1, body: 'answer' },
    });
    const res = await svc.gateway('GET', `/upload-service/uploads/${uploadId}/status`);
    expect(((await res.json()) as { upload: { uploadId: string } }).upload.uploadId).toBe(uploadId);
  });

  it('refuses malformed rules with 400', async () => {
    const res = await svc.admin('POST', '/faults', { target: 'storage', action: { type: 'explode' } });
    expect(res.status).toBe(400);
  });

  it('keeps ETags as MD5s of the bytes under faults (no corruption on retry)', async () => {
    const u = await upload();
    const body = randomBytes(10_000);
    await addFault({ target: 'storage', operation: 'UploadPart', action: { type: 'reset', afterBytes: 5000 } });
    await expect(put(await u.url(1), body)).rejects.toThrow();
    const ok = await put(await u.url(1), body);
    expect(ok.headers.get('etag')).toBe(`"${createHash('md5').update(body).digest('hex')}"`);
  });
});

describe('replies dropped after the work', () => {
  it('stores the part but never answers (dropResponse)', async () => {
    const u = await upload();
    await addFault({ target: 'storage', operation: 'UploadPart', action: { type: 'dropResponse' } });
    await expect(put(await u.url(1), randomBytes(1000))).rejects.toThrow();
    expect(await u.storedParts()).toEqual([1]);
  });
});

describe('slow bodies (slowBody): one connection on a slow path', () => {
  it("storage reads the body of a part at the rule's rate, and stores it whole", async () => {
    const u = await upload();
    await partFault({ type: 'slowBody', bytesPerSecond: 32 * 1024 });
    const body = randomBytes(64 * 1024);
    const started = performance.now();
    const res = await put(await u.url(1), body);
    expect(res.status).toBe(200);
    // 64 KiB at 32 KiB/s: 2 s (some slack below for the clock's grain).
    expect(performance.now() - started).toBeGreaterThan(1800);
    expect(res.headers.get('etag')).toBe(`"${createHash('md5').update(body).digest('hex')}"`);
    // The next part is not slowed: the rule fired once.
    const next = performance.now();
    expect((await put(await u.url(2), body)).status).toBe(200);
    expect(performance.now() - next).toBeLessThan(1000);
  });

  it('the gateway answers status and headers at once and trickles the body, even after the rules are cleared', async () => {
    const { manifest } = await registerCapture(svc, [{ name: 'slow.mp4', size: 4096, contentType: 'video/mp4' }]);
    const path = `/upload-service/uploads/${manifest[0]!.uploadId}/status`;
    const whole = await (await svc.gateway('GET', path)).text();
    await addFault({ target: 'gateway', operation: 'status', action: { type: 'slowBody', bytesPerSecond: 100 } });
    const started = performance.now();
    const res = await svc.gateway('GET', path);
    expect(res.status).toBe(200);
    expect(performance.now() - started).toBeLessThan(1000);
    await svc.admin('DELETE', '/faults');
    expect(await res.text()).toBe(whole);
    // 100-byte slices at 100 bytes/s: the last one leaves about (length - 100) / 100 s after the first.
    expect(performance.now() - started).toBeGreaterThan(((whole.length - 100) / 100) * 1000 - 200);
  });
});

describe('what the service notes for tests that time the client', () => {
  it('notes every request matched against the rules, fired or not, with its arrival', async () => {
    const u = await upload();
    await partFault({ type: 'status', status: 500 }, { partNumber: 2 });
    const from = svc.faults.requests.length;
    const before = performance.now();
    await put(await u.url(1), randomBytes(100));
    await put(await u.url(2), randomBytes(100));
    await registerCapture(svc, [{ name: 'noted.mp4', size: 4096, contentType: 'video/mp4' }]);
    const noted = svc.faults.requests.slice(from);
    expect(noted.map((r) => [r.target, r.operation, r.partNumber])).toEqual([
      ['storage', 'UploadPart', 1],
      ['storage', 'UploadPart', 2],
      ['auth', 'signin', undefined],
      ['gateway', 'add-capture', undefined],
      // The gateway's own calls to storage (through the SDK) are storage requests too.
      ['storage', 'CreateMultipartUpload', undefined],
    ]);
    expect(noted.every((r) => r.at >= before && r.at <= performance.now())).toBe(true);
  });

  it('notes every part stored, when its body arrived and whether it replaced a copy of the same size', async () => {
    const u = await upload();
    const from = svc.storage.partLog.length;
    await svc.admin('PUT', '/settings', { partStoreDelayMs: 300 });
    await put(await u.url(1), randomBytes(1000));
    await svc.admin('PUT', '/settings', { partStoreDelayMs: 0 });
    await put(await u.url(1), randomBytes(1000));
    await put(await u.url(2), randomBytes(1000));
    const log = svc.storage.partLog.slice(from);
    expect(log.map((p) => [p.partNumber, p.replaced])).toEqual([
      [1, false],
      [1, true],
      [2, false],
    ]);
    expect(new Set(log.map((p) => p.key)).size).toBe(1);
    // Stored 300 ms after its last byte arrived, as the setting said.
    expect(log[0]!.storedAt - log[0]!.bodyAt).toBeGreaterThanOrEqual(290);
    expect(log.every((p) => p.arrivedAt <= p.bodyAt && p.bodyAt <= p.storedAt)).toBe(true);
    await svc.admin('PUT', '/settings', { partStoreDelayMs: 0 });
  });
});

describe('answers that do not fit what the client knows', () => {
  const MiB = 1024 * 1024;
  type Listed = { partNumber: number; url: string }[];
  const presign = async (uploadId: string) =>
    (await (
      await svc.gateway('POST', `/upload-service/uploads/${encodeURIComponent(uploadId)}/parts/presign-missing`)
    ).json()) as { parts: Listed };
  const urlPart = (url: string) => Number(new URL(url).searchParams.get('partNumber'));

  it.each([
    ['beyond', [1, 2, 3, 10_001]],
    ['missing', [2, 3]],
    ['duplicate', [1, 1, 2, 2, 3, 3]],
    ['swap', [1, 2, 3]],
    ['zero', [0, 2, 3]],
    ['fileUrl', [1, 2, 3]],
  ] as const)('badParts %s: presign-missing lists %j for a 3-part file', async (mode, numbers) => {
    const { manifest } = await registerCapture(svc, [{ name: `bad-${mode}.mp4`, size: 10 * MiB + 1 }]);
    const uploadId = manifest[0]!.uploadId;
    await addFault({ target: 'gateway', operation: 'presign-missing', action: { type: 'badParts', mode } });
    const { parts } = await presign(uploadId);
    expect(parts.map((p) => p.partNumber)).toEqual(numbers);
    const urls = parts.map((p) => (p.url.startsWith('file:') ? p.url : urlPart(p.url)));
    expect(urls).toEqual(
      {
        beyond: [1, 2, 3, 10_001],
        missing: [2, 3],
        duplicate: [1, 1, 2, 2, 3, 3],
        swap: [2, 1, 3],
        zero: [1, 2, 3],
        fileUrl: ['file:///etc/passwd', 2, 3],
      }[mode],
    );
    // The rule fired once: the next answer is the true list.
    expect((await presign(uploadId)).parts.map((p) => p.partNumber)).toEqual([1, 2, 3]);
  });

  it.each([200, 204] as const)(
    'emptyAfterActing %i: complete-batch finalizes the upload and answers nothing',
    async (status) => {
      const body = randomBytes(1000);
      const { manifest } = await registerCapture(svc, [{ name: `empty-${status}.mp4`, size: body.length }]);
      const uploadId = manifest[0]!.uploadId;
      const put1 = await put((await presign(uploadId)).parts[0]!.url, body);
      await addFault({ target: 'gateway', operation: 'complete-batch', action: { type: 'emptyAfterActing', status } });
      const res = await svc.gateway('POST', `/upload-service/uploads/${uploadId}/parts/complete-batch`, {
        body: { parts: [{ partNumber: 1, etag: put1.headers.get('etag'), size: body.length }] },
      });
      expect([res.status, await res.text()]).toEqual([status, '']);
      expect(svc.store.state.uploads[uploadId]!.status).toBe('completed');
    },
  );

  it('hostileIds: add-capture answers ids holding controls and a climbing path, and later calls reach them percent-encoded', async () => {
    await addFault({ target: 'gateway', operation: 'add-capture', action: { type: 'hostileIds' } });
    const body = randomBytes(2000);
    const { captureId, manifest } = await registerCapture(svc, [{ name: 'hostile.mp4', size: body.length }]);
    expect(captureId.startsWith('cap-') && captureId.endsWith('\u001b[2J\u0007\r\n\u009b31m\u202e')).toBe(true);
    const uploadId = manifest[0]!.uploadId;
    expect(uploadId.startsWith('../../') && uploadId.endsWith('\u0007\u001b[0m')).toBe(true);
    expect(uploadId.slice('../../'.length, -'\u0007\u001b[0m'.length)).toMatch(/^[0-9a-f]{24}$/);
    const { parts } = await presign(uploadId);
    const etag = (await put(parts[0]!.url, body)).headers.get('etag');
    const done = await svc.gateway(
      'POST',
      `/upload-service/uploads/${encodeURIComponent(uploadId)}/parts/complete-batch`,
      {
        body: { parts: [{ partNumber: 1, etag, size: body.length }] },
      },
    );
    expect(done.status).toBe(200);
    const status = await svc.gateway(
      'GET',
      `/captures/api/v1/external-captures/${encodeURIComponent(captureId)}/upload-status`,
    );
    expect(((await status.json()) as { uploadStatus: string }).uploadStatus).toBe('complete');
    // Storage's key holds none of it.
    expect(svc.store.state.uploads[uploadId]!.key).toMatch(
      /^captures\/[0-9a-f]+\/cap-[0-9a-f]+[\w.-]*\/1-hostile\.mp4$/,
    );
  });
});

it('a client that goes away in the middle of a gateway request body is no unexpected error of the service', async () => {
  const { request } = await import('node:http');
  const errors = vi.spyOn(console, 'error').mockImplementation(() => {});
  try {
    const url = new URL(`${svc.info.baseUrl}/captures/api/v1/external-captures/add-capture`);
    const token = await svc.token();
    await new Promise<void>((resolve) => {
      const req = request(url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'content-length': 1000,
          authorization: `Bearer ${token}`,
          'x-api-key': svc.info.apiKey,
          'x-project-id': svc.info.projectId,
        },
      });
      req.on('error', () => resolve());
      req.write('{"captures": [');
      setTimeout(() => req.destroy(), 200);
      req.on('close', () => resolve());
    });
    await new Promise((r) => setTimeout(r, 300));
    expect(errors).not.toHaveBeenCalled();
  } finally {
    errors.mockRestore();
  }
});

it('bufferedBody: the part body is taken at once, and stored and answered only after its size at the rate, even after the client gave up', async () => {
  const u = await upload();
  await partFault({ type: 'bufferedBody', bytesPerSecond: 128 * 1024 });
  const body = randomBytes(128 * 1024);
  const from = svc.storage.partLog.length;
  const started = performance.now();
  const res = await put(await u.url(1), body);
  expect(res.status).toBe(200);
  // 128 KiB at 128 KiB/s: a second after the body was in.
  expect(performance.now() - started).toBeGreaterThan(950);
  const [stored] = svc.storage.partLog.slice(from);
  expect(stored!.storedAt - stored!.bodyAt).toBeGreaterThan(950);
  // The client gives up before the answer: the proxy delivers the part all the same.
  await partFault({ type: 'bufferedBody', bytesPerSecond: 128 * 1024 });
  await expect(put(await u.url(2), body, AbortSignal.timeout(300))).rejects.toThrow(/abort|timeout/i);
  expect(await u.storedParts()).toEqual([1]);
  expect(svc.storage.storesPending).toBe(1);
  await new Promise((r) => setTimeout(r, 1200));
  expect(await u.storedParts()).toEqual([1, 2]);
  expect(svc.storage.storesPending).toBe(0);
});
