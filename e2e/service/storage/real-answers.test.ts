import { GetObjectCommand, ListPartsCommand } from '@aws-sdk/client-s3';
import { createHash, randomBytes } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { FaultRuleInput, TestService } from '../testing.js';
import { putBytes, registerCapture, startTestService } from '../testing.js';

// The storage's answers as real S3 and what stands in front of it give them (and the 5xx after acting): contract tests of the local service itself, so the
// engine's tests against these settings and faults test what real servers do.

const MiB = 1024 * 1024;
const md5 = (b: Buffer) => createHash('md5').update(b).digest('hex');
const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

let svc: TestService;

beforeAll(async () => {
  svc = await startTestService();
});
afterEach(async () => {
  await svc.admin('DELETE', '/faults');
  await svc.admin('PUT', '/settings', {
    serverSideEncryption: null,
    storageRetryAfterSeconds: null,
    partStoreDelayMs: 0,
  });
});
afterAll(() => svc.stop());

const fault = async (rule: FaultRuleInput) => expect((await svc.admin('POST', '/faults', rule)).status).toBe(201);
const settings = async (body: unknown) => expect((await svc.admin('PUT', '/settings', body)).status).toBe(200);

/** Registers one file of `bytes` and presigns its parts: the URLs a client is given (§4.4, §4.5). */
async function presigned(name: string, bytes: Buffer) {
  const { manifest } = await registerCapture(svc, [{ name, size: bytes.length, contentType: 'video/mp4' }]);
  const { uploadId, partSize } = manifest[0]!;
  const res = await svc.gateway('POST', `/upload-service/uploads/${uploadId}/parts/presign-missing`);
  const { parts } = (await res.json()) as { parts: { partNumber: number; url: string }[] };
  const body = (n: number) => bytes.subarray((n - 1) * partSize, n * partSize);
  const u = svc.store.state.uploads[uploadId]!;
  return { uploadId: u.storageUploadId, parts, body, key: u.key, gatewayUploadId: uploadId };
}

const storedParts = async (key: string, uploadId: string) =>
  (await svc.s3().send(new ListPartsCommand({ Bucket: svc.info.s3.bucket, Key: key, UploadId: uploadId }))).Parts ?? [];

describe('server-side encryption', () => {
  it('SSE-KMS: part ETags are 32 hex digits but not the MD5, said in x-amz-server-side-encryption; complete-batch takes them and the object is byte for byte', async () => {
    await settings({ serverSideEncryption: 'aws:kms' });
    const bytes = randomBytes(11 * MiB);
    const { uploadId, parts, body, key, gatewayUploadId } = await presigned('kms.mp4', bytes);
    const reported = [];
    for (const p of parts) {
      const res = await putBytes(p.url, body(p.partNumber));
      const etag = res.headers.get('etag')!;
      expect(etag).toMatch(/^"[0-9a-f]{32}"$/);
      expect(etag).not.toBe(`"${md5(body(p.partNumber))}"`);
      expect(res.headers.get('x-amz-server-side-encryption')).toBe('aws:kms');
      expect(res.headers.get('x-amz-server-side-encryption-aws-kms-key-id')).toMatch(/^arn:aws:kms:/);
      reported.push({ partNumber: p.partNumber, etag, size: body(p.partNumber).length });
    }
    // Stable per stored copy: ListParts reports what the PUT answered.
    expect((await storedParts(key, uploadId)).map((p) => p.ETag)).toEqual(reported.map((p) => p.etag));
    const done = await svc.gateway('POST', `/upload-service/uploads/${gatewayUploadId}/parts/complete-batch`, {
      body: { parts: reported },
    });
    expect(((await done.json()) as { upload: { status: string } }).upload.status).toBe('completed');
    const obj = await svc.s3().send(new GetObjectCommand({ Bucket: svc.info.s3.bucket, Key: key }));
    expect(sha256(Buffer.from(await obj.Body!.transformToByteArray()))).toBe(sha256(bytes));
  });

  it('SSE-C: the ETag is not the MD5 and the answer names the customer algorithm; a part stored again gets another ETag', async () => {
    await settings({ serverSideEncryption: 'sse-c' });
    const bytes = randomBytes(2000);
    const { parts, body } = await presigned('ssec.mp4', bytes);
    const first = await putBytes(parts[0]!.url, body(1));
    const again = await putBytes(parts[0]!.url, body(1));
    expect(first.headers.get('x-amz-server-side-encryption-customer-algorithm')).toBe('AES256');
    expect(first.headers.get('x-amz-server-side-encryption')).toBeNull();
    for (const r of [first, again]) expect(r.headers.get('etag')).not.toBe(`"${md5(body(1))}"`);
    expect(again.headers.get('etag')).not.toBe(first.headers.get('etag'));
  });

  it('without it, the ETag is the MD5 and no encryption header is sent', async () => {
    const bytes = randomBytes(2000);
    const { parts, body } = await presigned('plain.mp4', bytes);
    const res = await putBytes(parts[0]!.url, body(1));
    expect(res.headers.get('etag')).toBe(`"${md5(body(1))}"`);
    expect(res.headers.get('x-amz-server-side-encryption')).toBeNull();
  });
});

describe('errors after acting, and in front of storage', () => {
  it('statusAfterActing: the part is stored, then storage answers 503 SlowDown with the Retry-After set', async () => {
    await settings({ storageRetryAfterSeconds: 2 });
    await fault({ target: 'storage', operation: 'UploadPart', action: { type: 'statusAfterActing', status: 503 } });
    const bytes = randomBytes(3000);
    const { uploadId, parts, body, key } = await presigned('acted.mp4', bytes);
    const before = svc.storage.stats.partsStored;
    const res = await putBytes(parts[0]!.url, body(1));
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toBe('2');
    expect(await res.text()).toMatch(/<Code>SlowDown<\/Code>/);
    expect(svc.storage.stats.partsStored - before).toBe(1);
    expect((await storedParts(key, uploadId)).map((p) => [p.PartNumber, p.ETag])).toEqual([[1, `"${md5(body(1))}"`]]);
  });

  it('partStoreDelayMs: a whole body is stored after the delay and then answered, even when the client has reset the connection', async () => {
    await settings({ partStoreDelayMs: 1500 });
    const { uploadId, parts, body, key } = await presigned('slow-store.mp4', randomBytes(3000));
    const before = { ...svc.storage.stats };
    const controller = new AbortController();
    const answered = putBytes(parts[0]!.url, body(1), controller.signal).catch((err: unknown) => err);
    while (svc.storage.stats.partBodiesReceived === before.partBodiesReceived)
      await new Promise((r) => setTimeout(r, 20));
    expect(svc.storage.stats.partsStored, 'stored before the delay').toBe(before.partsStored);
    controller.abort(); // the client goes away while storage is storing
    expect(await answered).toBeInstanceOf(Error);
    await new Promise((r) => setTimeout(r, 2000));
    expect(svc.storage.stats.partsStored - before.partsStored).toBe(1);
    expect((await storedParts(key, uploadId)).map((p) => [p.PartNumber, p.ETag])).toEqual([[1, `"${md5(body(1))}"`]]);
  });

  it('dropWhileStoring: the connection drops as the last byte arrives, unanswered; the part is listed only after partStoreDelayMs', async () => {
    await settings({ partStoreDelayMs: 1500 });
    await fault({ target: 'storage', operation: 'UploadPart', action: { type: 'dropWhileStoring' } });
    const { uploadId, parts, body, key } = await presigned('drop-storing.mp4', randomBytes(3000));
    const before = { ...svc.storage.stats };
    expect(await putBytes(parts[0]!.url, body(1)).catch((err: unknown) => err)).toBeInstanceOf(Error);
    expect(svc.storage.stats.partBodiesReceived - before.partBodiesReceived).toBe(1);
    expect(await storedParts(key, uploadId), 'listed while storage is still storing it').toHaveLength(0);
    await new Promise((r) => setTimeout(r, 2000));
    expect(svc.storage.stats.partsStored - before.partsStored).toBe(1);
    expect((await storedParts(key, uploadId)).map((p) => [p.PartNumber, p.ETag])).toEqual([[1, `"${md5(body(1))}"`]]);
  });

  it('statusAfterActing 500: stored, answered InternalError with no Retry-After', async () => {
    await fault({ target: 'storage', operation: 'UploadPart', action: { type: 'statusAfterActing', status: 500 } });
    const { uploadId, parts, body, key } = await presigned('acted500.mp4', randomBytes(3000));
    const res = await putBytes(parts[0]!.url, body(1));
    expect(res.status).toBe(500);
    expect(res.headers.get('retry-after')).toBeNull();
    expect(await res.text()).toMatch(/<Code>InternalError<\/Code>/);
    expect(await storedParts(key, uploadId)).toHaveLength(1);
  });

  it("html: a 403 HTML page answers in storage's place and nothing is stored; the next request reaches storage", async () => {
    await fault({ target: 'storage', operation: 'UploadPart', action: { type: 'html', status: 403 } });
    const { uploadId, parts, body, key } = await presigned('portal.mp4', randomBytes(3000));
    const before = svc.storage.stats.partsStored;
    const res = await putBytes(parts[0]!.url, body(1));
    expect(res.status).toBe(403);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    const page = await res.text();
    expect(page).toMatch(/^<!DOCTYPE html>/);
    expect(page).not.toMatch(/<Error>/);
    expect(svc.storage.stats.partsStored).toBe(before);
    expect(await storedParts(key, uploadId)).toHaveLength(0);
    expect((await putBytes(parts[0]!.url, body(1))).status).toBe(200);
  });

  it('counts every request it received, with its part number and key', async () => {
    const { parts, body } = await presigned('counted.mp4', randomBytes(3000));
    const from = svc.storage.received.length;
    await putBytes(parts[0]!.url, body(1));
    expect(svc.storage.received.slice(from)).toEqual([
      {
        operation: 'UploadPart',
        partNumber: 1,
        key: expect.stringContaining('counted.mp4') as string,
        at: expect.any(Number) as number,
      },
    ]);
  });
});
