import { GetObjectCommand } from '@aws-sdk/client-s3';
import { createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestService } from '../testing.js';
import { putBytes, registerCapture, startTestService } from '../testing.js';

// Deliverable 1: S3 implementations that do not serve ListParts (s3rver answers 405).
// Here the built-in storage answers ListParts 405 through a fault rule, while it still checks the
// ETags at CompleteMultipartUpload as S3 does, so both halves of the gateway's fallback are seen:
// it goes by the parts reported to it, and a completion storage refuses forgets those parts.
const MiB = 1024 * 1024;
const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

let svc: TestService;
beforeAll(async () => {
  svc = await startTestService();
  const rule = await svc.admin('POST', '/faults', {
    target: 'storage',
    operation: 'ListParts',
    times: 0,
    action: { type: 'status', status: 405 },
  });
  expect(rule.status).toBe(201);
});
afterAll(() => svc.stop());

const presigned = async (uploadId: string) => {
  const res = await svc.gateway('POST', `/upload-service/uploads/${uploadId}/parts/presign-missing`, {
    headers: { 'content-type': undefined },
  });
  expect(res.status).toBe(200);
  return ((await res.json()) as { parts: { partNumber: number; url: string }[] }).parts;
};
const report = (uploadId: string, parts: { partNumber: number; etag: string; size: number }[]) =>
  svc.gateway('POST', `/upload-service/uploads/${uploadId}/parts/complete-batch`, { body: { parts } });

describe('the gateway over a storage without ListParts', () => {
  it('presigns only the parts not yet reported, forgets parts storage refused at completion, and completes the object', async () => {
    const file = randomBytes(11 * MiB);
    const { manifest } = await registerCapture(svc, [{ name: 'VID_20261124_070000_00_001.insv', size: file.length }]);
    const { uploadId, partSize } = manifest[0]!;
    const bytes = (n: number) => file.subarray((n - 1) * partSize, n * partSize);
    const put = async (url: string, n: number) => {
      const res = await putBytes(url, bytes(n));
      expect(res.status).toBe(200);
      return { partNumber: n, etag: res.headers.get('etag')!, size: bytes(n).length };
    };

    const urls = new Map((await presigned(uploadId)).map((p) => [p.partNumber, p.url]));
    expect([...urls.keys()]).toEqual([1, 2, 3]);
    const first = await report(uploadId, [await put(urls.get(1)!, 1)]);
    expect(first.status).toBe(200);
    // Storage cannot say which parts it holds: the gateway's record of reported parts decides.
    expect((await presigned(uploadId)).map((p) => p.partNumber)).toEqual([2, 3]);

    const second = await put(urls.get(2)!, 2);
    const third = await put(urls.get(3)!, 3);
    const refused = await report(uploadId, [second, { ...third, etag: `"${'0'.repeat(32)}"` }]);
    expect(refused.status).toBe(400);
    expect(((await refused.json()) as { message: string }).message).toMatch(
      /Storage refused to assemble the object from the reported parts \(InvalidPart\)/,
    );
    expect(svc.store.state.uploads[uploadId]!.status).not.toBe('completed');
    expect((await presigned(uploadId)).map((p) => p.partNumber)).toEqual([2, 3]);

    const done = await report(uploadId, [second, third]);
    expect(done.status).toBe(200);
    expect(((await done.json()) as { upload: { status: string } }).upload.status).toBe('completed');
    const got = await svc
      .s3()
      .send(new GetObjectCommand({ Bucket: svc.info.s3.bucket, Key: svc.store.state.uploads[uploadId]!.key }));
    expect(sha256(Buffer.from(await got.Body!.transformToByteArray()))).toBe(sha256(file));
  });
});
