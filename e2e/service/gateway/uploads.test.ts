import { GetObjectCommand } from '@aws-sdk/client-s3';
import { createHash, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestService } from '../testing.js';
import { putBytes, registerCapture, startTestService } from '../testing.js';

const MiB = 1024 * 1024;
const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');
const md5 = (b: Buffer) => createHash('md5').update(b).digest('hex');
const fixture = (name: string) => fileURLToPath(new URL(`../../../../shared/fixtures/${name}`, import.meta.url));

interface Presigned {
  ok: boolean;
  uploadId: string;
  partSize: number;
  totalParts: number;
  parts: { partNumber: number; url: string; expiresIn: number }[];
}
interface UploadRecord {
  uploadId: string;
  status: string;
  fileName: string;
  size: number;
  totalParts: number;
  uploadedPartsCount: number;
  percentage: number;
  missingParts: number[];
}

let svc: TestService;
beforeAll(async () => {
  svc = await startTestService();
});
afterAll(() => svc.stop());

const register = (files: { name: string; bytes: Buffer }[]) =>
  registerCapture(
    svc,
    files.map((f) => ({ name: f.name, size: f.bytes.length })),
  );

const presign = async (uploadId: string) => {
  const res = await svc.gateway('POST', `/upload-service/uploads/${uploadId}/parts/presign-missing`, {
    headers: { 'content-type': undefined },
  });
  expect(res.status).toBe(200);
  return (await res.json()) as Presigned;
};
const report = (uploadId: string, parts: { partNumber: number; etag: string; size: number }[]) =>
  svc.gateway('POST', `/upload-service/uploads/${uploadId}/parts/complete-batch`, { body: { parts } });
const status = async (uploadId: string, sync: boolean) => {
  const res = await svc.gateway('GET', `/upload-service/uploads/${uploadId}/status${sync ? '?syncFromS3=true' : ''}`);
  expect(res.status).toBe(200);
  return ((await res.json()) as { ok: boolean; upload: UploadRecord }).upload;
};
const captureStatus = async (captureId: string) =>
  (await (await svc.gateway('GET', `/captures/api/v1/external-captures/${captureId}/upload-status`)).json()) as Record<
    string,
    unknown
  >;

const partBytes = (file: Buffer, partSize: number, n: number) => file.subarray((n - 1) * partSize, n * partSize);

/** PUTs a part with no headers (§4.6) and returns the ETag header exactly as storage sent it. */
async function putPart(url: string, body: Buffer): Promise<string> {
  const res = await putBytes(url, body);
  expect(res.status).toBe(200);
  return res.headers.get('etag')!;
}

async function storedObject(uploadId: string): Promise<Buffer> {
  const key = svc.store.state.uploads[uploadId]!.key;
  const got = await svc.s3().send(new GetObjectCommand({ Bucket: svc.info.s3.bucket, Key: key }));
  return Buffer.from(await got.Body!.transformToByteArray());
}

describe('the multipart flow of §4.5–§4.8 and the §3 state machine', () => {
  it('moves a 3-part file initiated → uploading → completed, presigning only what is missing', async () => {
    const file = randomBytes(12 * MiB + 4321);
    const { captureId, manifest } = await register([{ name: 'VID_20261120_150405_00_001.insv', bytes: file }]);
    const { uploadId, partSize, totalParts } = manifest[0]!;
    expect([partSize, totalParts]).toEqual([5242880, 3]);
    expect(await status(uploadId, false)).toMatchObject({
      status: 'initiated',
      uploadedPartsCount: 0,
      missingParts: [1, 2, 3],
    });

    const first = await presign(uploadId);
    expect(first).toMatchObject({ ok: true, uploadId, partSize, totalParts });
    expect(first.parts.map((p) => [p.partNumber, p.expiresIn])).toEqual([
      [1, 3600],
      [2, 3600],
      [3, 3600],
    ]);
    const etag1 = await putPart(first.parts[0]!.url, partBytes(file, partSize, 1));
    expect(etag1).toBe(`"${md5(partBytes(file, partSize, 1))}"`);

    const partial = await report(uploadId, [{ partNumber: 1, etag: etag1, size: partSize }]);
    expect(partial.status).toBe(200);
    expect(((await partial.json()) as { upload: UploadRecord }).upload).toEqual({
      uploadId,
      status: 'uploading',
      fileName: 'VID_20261120_150405_00_001.insv',
      size: file.length,
      totalParts: 3,
      uploadedPartsCount: 1,
      percentage: 33.33,
      missingParts: [2, 3],
    });
    expect(await captureStatus(captureId)).toMatchObject({
      success: true,
      uploadStatus: 'uploading',
      expectedFiles: 1,
      completedFiles: 0,
    });

    const second = await presign(uploadId);
    expect(second.parts.map((p) => p.partNumber)).toEqual([2, 3]);
    const etags = [etag1];
    for (const p of second.parts) etags.push(await putPart(p.url, partBytes(file, partSize, p.partNumber)));

    const full = await report(
      uploadId,
      etags.map((etag, i) => ({ partNumber: i + 1, etag, size: partBytes(file, partSize, i + 1).length })),
    );
    expect(((await full.json()) as { upload: UploadRecord }).upload).toMatchObject({
      status: 'completed',
      uploadedPartsCount: 3,
      percentage: 100,
      missingParts: [],
    });
    expect(sha256(await storedObject(uploadId))).toBe(sha256(file));
    expect((await presign(uploadId)).parts).toEqual([]);
    expect(await captureStatus(captureId)).toEqual({
      success: true,
      captureId,
      uploadStatus: 'complete',
      expectedFiles: 1,
      completedFiles: 1,
      percentage: 100,
    });
  });

  it('uploads the real Insta360 and MP4 fixtures as single-part files, byte for byte', async () => {
    const insv = readFileSync(fixture('sample.insv'));
    const mp4 = readFileSync(fixture('walkthrough.mp4'));
    const { captureId, manifest } = await register([
      { name: 'VID_20231121_201609_00_001.insv', bytes: insv },
      { name: 'walkthrough.mp4', bytes: mp4 },
    ]);
    for (const [i, bytes] of [insv, mp4].entries()) {
      const { uploadId } = manifest[i]!;
      const { parts } = await presign(uploadId);
      expect(parts).toHaveLength(1);
      const etag = await putPart(parts[0]!.url, bytes);
      const res = await report(uploadId, [{ partNumber: 1, etag, size: bytes.length }]);
      expect(((await res.json()) as { upload: UploadRecord }).upload.status).toBe('completed');
      expect(sha256(await storedObject(uploadId))).toBe(sha256(bytes));
    }
    expect(sha256(insv)).toBe('1a70a32deedc8af4cba94e3b70ce07858a16acda8ec8d45b52822ca33d7cbda7');
    expect(await captureStatus(captureId)).toMatchObject({
      uploadStatus: 'complete',
      completedFiles: 2,
      expectedFiles: 2,
    });
  });

  it('counts parts found in storage as uploaded on a syncFromS3 read, but finalizes only on complete-batch', async () => {
    const file = randomBytes(6 * MiB);
    const { manifest } = await register([{ name: 'sync.mp4', bytes: file }]);
    const { uploadId, partSize } = manifest[0]!;
    const { parts } = await presign(uploadId);
    const etags: string[] = [];
    for (const p of parts) etags.push(await putPart(p.url, partBytes(file, partSize, p.partNumber)));
    expect((await status(uploadId, false)).missingParts).toEqual([1, 2]);
    expect(await status(uploadId, true)).toMatchObject({
      status: 'initiated',
      uploadedPartsCount: 2,
      missingParts: [],
      percentage: 100,
    });
    const res = await report(
      uploadId,
      etags.map((etag, i) => ({ partNumber: i + 1, etag, size: partBytes(file, partSize, i + 1).length })),
    );
    expect(((await res.json()) as { upload: UploadRecord }).upload.status).toBe('completed');
    expect(sha256(await storedObject(uploadId))).toBe(sha256(file));
  });

  it('refuses reports that do not match storage, and unknown uploads', async () => {
    const file = randomBytes(2000);
    const { manifest } = await register([{ name: 'strict.insv', bytes: file }]);
    const { uploadId } = manifest[0]!;
    const error = async (parts: { partNumber: number; etag: string; size: number }[]) => {
      const res = await report(uploadId, parts);
      return [res.status, ((await res.json()) as { message: string }).message] as const;
    };
    const [, notStored] = await error([{ partNumber: 1, etag: `"${md5(file)}"`, size: 2000 }]);
    expect(notStored).toMatch(/not in storage/);
    const etag = await putPart((await presign(uploadId)).parts[0]!.url, file);
    expect(await error([{ partNumber: 1, etag: etag.slice(1, -1), size: 2000 }])).toEqual([
      400,
      'Part 1 ETag does not match the stored part; send the ETag header exactly as storage returned it, quotes included',
    ]);
    expect((await error([{ partNumber: 1, etag, size: 1999 }]))[1]).toMatch(/must be 2000 bytes/);
    expect((await error([{ partNumber: 2, etag, size: 2000 }]))[1]).toMatch(/beyond totalParts/);
    expect((await error([]))[0]).toBe(400);
    expect(await status(uploadId, false)).toMatchObject({ uploadedPartsCount: 0 });
    const unknown = await svc.gateway('POST', '/upload-service/uploads/ffffffffffffffffffffffff/parts/presign-missing');
    expect(unknown.status).toBe(404);
    expect(
      (await svc.gateway('GET', '/captures/api/v1/external-captures/ffffffffffffffffffffffff/upload-status')).status,
    ).toBe(404);
  });

  it('re-presigns a part whose stored copy is short, so a cut-off upload is sent again', async () => {
    const file = randomBytes(3000);
    const { manifest } = await register([{ name: 'short.mp4', bytes: file }]);
    const { uploadId } = manifest[0]!;
    await putPart((await presign(uploadId)).parts[0]!.url, file.subarray(0, 1000));
    expect((await presign(uploadId)).parts.map((p) => p.partNumber)).toEqual([1]);
  });
});
