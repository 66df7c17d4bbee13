import { CreateMultipartUploadCommand, ListPartsCommand, UploadPartCommand } from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { createHash, randomBytes } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
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
