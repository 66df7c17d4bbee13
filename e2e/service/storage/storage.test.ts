import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  ListPartsCommand,
  PutObjectCommand,
  S3Client,
  S3ServiceException,
  UploadPartCommand,
} from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { createHash, randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestService } from '../testing.js';
import { putBytes, startTestService } from '../testing.js';

const MiB = 1024 * 1024;
const md5 = (b: Buffer) => createHash('md5').update(b).digest('hex');
const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

let svc: TestService;
let s3: S3Client;
let bucket: string;

beforeAll(async () => {
  svc = await startTestService();
  s3 = svc.s3();
  bucket = svc.info.s3.bucket;
});
afterAll(() => svc.stop());

async function s3Code(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (err) {
    if (err instanceof S3ServiceException) return err.name;
    throw err;
  }
  throw new Error('expected the call to fail');
}

async function createUpload(key: string): Promise<string> {
  return (await s3.send(new CreateMultipartUploadCommand({ Bucket: bucket, Key: key }))).UploadId!;
}

async function presignPart(
  key: string,
  uploadId: string,
  partNumber: number,
  opts: { expiresIn?: number; signingDate?: Date } = {},
) {
  return getSignedUrl(
    s3,
    new UploadPartCommand({ Bucket: bucket, Key: key, UploadId: uploadId, PartNumber: partNumber }),
    {
      expiresIn: opts.expiresIn ?? 3600,
      signingDate: opts.signingDate,
    },
  );
}

const put = putBytes;

async function errorCode(res: Response): Promise<{ code: string; message: string }> {
  const xml = await res.text();
  return {
    code: /<Code>([^<]*)<\/Code>/.exec(xml)?.[1] ?? '',
    message: /<Message>([^<]*)<\/Message>/.exec(xml)?.[1] ?? '',
  };
}

describe('UploadPart through presigned URLs', () => {
  it('stores the part and answers its quoted MD5 as the ETag', async () => {
    const key = 'parts/etag.bin';
    const id = await createUpload(key);
    const body = randomBytes(300_000);
    const res = await put(await presignPart(key, id, 1), body);
    expect(res.status).toBe(200);
    expect(res.headers.get('etag')).toBe(`"${md5(body)}"`);
    const listed = await s3.send(new ListPartsCommand({ Bucket: bucket, Key: key, UploadId: id }));
    expect(listed.Parts?.map((p) => [p.PartNumber, p.ETag, p.Size])).toEqual([[1, `"${md5(body)}"`, body.length]]);
  });

  it('refuses an expired URL with 403 AccessDenied "Request has expired" and stores nothing', async () => {
    const key = 'parts/expired.bin';
    const id = await createUpload(key);
    const url = await presignPart(key, id, 1, { expiresIn: 60, signingDate: new Date(Date.now() - 61_000) });
    const res = await put(url, randomBytes(1000));
    expect(res.status).toBe(403);
    expect(await errorCode(res)).toEqual({ code: 'AccessDenied', message: 'Request has expired' });
    expect((await s3.send(new ListPartsCommand({ Bucket: bucket, Key: key, UploadId: id }))).Parts ?? []).toEqual([]);
  });

  it('refuses a tampered URL with SignatureDoesNotMatch', async () => {
    const key = 'parts/tampered.bin';
    const id = await createUpload(key);
    const url = new URL(await presignPart(key, id, 1));
    url.searchParams.set('partNumber', '2');
    const res = await put(url.toString(), randomBytes(1000));
    expect(res.status).toBe(403);
    expect((await errorCode(res)).code).toBe('SignatureDoesNotMatch');
  });

  it('refuses a URL signed with the wrong secret, an unknown key, or none', async () => {
    const key = 'parts/wrong-secret.bin';
    const id = await createUpload(key);
    const s = svc.info.s3;
    const forger = new S3Client({
      endpoint: s.endpoint,
      region: s.region,
      forcePathStyle: true,
      credentials: { accessKeyId: s.accessKeyId, secretAccessKey: 'not-the-secret' },
      requestChecksumCalculation: 'WHEN_REQUIRED',
    });
    const stranger = new S3Client({
      endpoint: s.endpoint,
      region: s.region,
      forcePathStyle: true,
      credentials: { accessKeyId: 'AKIAUNKNOWN', secretAccessKey: s.secretAccessKey },
      requestChecksumCalculation: 'WHEN_REQUIRED',
    });
    const cmd = new UploadPartCommand({ Bucket: bucket, Key: key, UploadId: id, PartNumber: 1 });
    expect((await errorCode(await put(await getSignedUrl(forger, cmd), randomBytes(10)))).code).toBe(
      'SignatureDoesNotMatch',
    );
    expect((await errorCode(await put(await getSignedUrl(stranger, cmd), randomBytes(10)))).code).toBe(
      'InvalidAccessKeyId',
    );
    const bare = await put(`${s.endpoint}/${bucket}/${key}?partNumber=1&uploadId=${id}`, randomBytes(10));
    expect(bare.status).toBe(403);
    expect((await errorCode(bare)).code).toBe('AccessDenied');
    forger.destroy();
    stranger.destroy();
  });

  it('answers NoSuchUpload for an unknown upload id', async () => {
    const url = await presignPart('parts/none.bin', 'no-such-upload', 1);
    const res = await put(url, randomBytes(10));
    expect(res.status).toBe(404);
    expect((await errorCode(res)).code).toBe('NoSuchUpload');
  });
});

describe('ListParts', () => {
  it('pages with max-parts and part-number-marker', async () => {
    const key = 'parts/paged.bin';
    const id = await createUpload(key);
    for (let n = 1; n <= 5; n++)
      expect((await put(await presignPart(key, id, n), randomBytes(100 + n))).status).toBe(200);
    const first = await s3.send(new ListPartsCommand({ Bucket: bucket, Key: key, UploadId: id, MaxParts: 2 }));
    expect(first.Parts?.map((p) => p.PartNumber)).toEqual([1, 2]);
    expect(first.IsTruncated).toBe(true);
    expect(first.NextPartNumberMarker).toBe('2');
    const second = await s3.send(
      new ListPartsCommand({ Bucket: bucket, Key: key, UploadId: id, MaxParts: 2, PartNumberMarker: '2' }),
    );
    expect(second.Parts?.map((p) => p.PartNumber)).toEqual([3, 4]);
    const last = await s3.send(
      new ListPartsCommand({ Bucket: bucket, Key: key, UploadId: id, MaxParts: 2, PartNumberMarker: '4' }),
    );
    expect(last.Parts?.map((p) => [p.PartNumber, p.Size])).toEqual([[5, 105]]);
    expect(last.IsTruncated).toBe(false);
  });
});

describe('CompleteMultipartUpload', () => {
  async function uploadParts(key: string, sizes: number[]) {
    const id = await createUpload(key);
    const bodies = sizes.map((n) => randomBytes(n));
    const etags: string[] = [];
    for (const [i, b] of bodies.entries()) {
      const res = await put(await presignPart(key, id, i + 1), b);
      etags.push(res.headers.get('etag')!);
    }
    return { id, bodies, etags };
  }

  it('assembles the parts in order, with the -N ETag, readable byte for byte', async () => {
    const key = 'complete/ok.bin';
    const { id, bodies, etags } = await uploadParts(key, [5 * MiB, 5 * MiB, 123_457]);
    const done = await s3.send(
      new CompleteMultipartUploadCommand({
        Bucket: bucket,
        Key: key,
        UploadId: id,
        MultipartUpload: { Parts: etags.map((ETag, i) => ({ ETag, PartNumber: i + 1 })) },
      }),
    );
    const expectedEtag = `"${createHash('md5')
      .update(Buffer.concat(bodies.map((b) => createHash('md5').update(b).digest())))
      .digest('hex')}-3"`;
    expect(done.ETag).toBe(expectedEtag);
    const got = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
    const bytes = Buffer.from(await got.Body!.transformToByteArray());
    expect(sha256(bytes)).toBe(sha256(Buffer.concat(bodies)));
    expect(got.ETag).toBe(expectedEtag);
    const head = await s3.send(new HeadObjectCommand({ Bucket: bucket, Key: key }));
    expect(head.ContentLength).toBe(10 * MiB + 123_457);
    expect(await s3Code(s3.send(new ListPartsCommand({ Bucket: bucket, Key: key, UploadId: id })))).toBe(
      'NoSuchUpload',
    );
  });

  it('refuses parts out of order (InvalidPartOrder), a wrong ETag (InvalidPart) and a small non-last part (EntityTooSmall)', async () => {
    const key = 'complete/bad.bin';
    const { id, etags } = await uploadParts(key, [5 * MiB, 1000, 1000]);
    const complete = (parts: { ETag: string; PartNumber: number }[]) =>
      s3.send(
        new CompleteMultipartUploadCommand({
          Bucket: bucket,
          Key: key,
          UploadId: id,
          MultipartUpload: { Parts: parts },
        }),
      );
    // Each refused list with the code storage answers it with; none of them consumes the upload.
    const refused: [string, { ETag: string; PartNumber: number }[], string][] = [
      [
        'parts out of order',
        [
          { ETag: etags[1]!, PartNumber: 2 },
          { ETag: etags[0]!, PartNumber: 1 },
        ],
        'InvalidPartOrder',
      ],
      ['an ETag storage never gave', [{ ETag: `"${'0'.repeat(32)}"`, PartNumber: 1 }], 'InvalidPart'],
      [
        "part 1's ETag for part 2",
        [
          { ETag: etags[0]!, PartNumber: 1 },
          { ETag: etags[0]!, PartNumber: 2 },
        ],
        'InvalidPart',
      ],
      ['a small part not last', etags.map((ETag, i) => ({ ETag, PartNumber: i + 1 })), 'EntityTooSmall'],
    ];
    for (const [what, parts, code] of refused) expect(await s3Code(complete(parts)), what).toBe(code);
    // Nothing above consumed the upload: the first two parts still complete it (last part may be small).
    const ok = await complete(etags.slice(0, 2).map((ETag, i) => ({ ETag, PartNumber: i + 1 })));
    expect(ok.ETag).toMatch(/^"[0-9a-f]{32}-2"$/);
  });
});

describe('AbortMultipartUpload, PutObject, GetObject ranges', () => {
  it('aborts an upload so that it no longer exists', async () => {
    const key = 'abort/me.bin';
    const id = await createUpload(key);
    await put(await presignPart(key, id, 1), randomBytes(100));
    await s3.send(new AbortMultipartUploadCommand({ Bucket: bucket, Key: key, UploadId: id }));
    expect(await s3Code(s3.send(new ListPartsCommand({ Bucket: bucket, Key: key, UploadId: id })))).toBe(
      'NoSuchUpload',
    );
  });

  it('serves byte ranges with 206 and refuses unsatisfiable ones', async () => {
    const key = 'objects/ranged.bin';
    const body = randomBytes(10_000);
    await s3.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: body }));
    const part = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: key, Range: 'bytes=100-199' }));
    expect(part.ContentRange).toBe('bytes 100-199/10000');
    expect(Buffer.from(await part.Body!.transformToByteArray()).equals(body.subarray(100, 200))).toBe(true);
    const tail = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: key, Range: 'bytes=-10' }));
    expect(Buffer.from(await tail.Body!.transformToByteArray()).equals(body.subarray(-10))).toBe(true);
    expect(await s3Code(s3.send(new GetObjectCommand({ Bucket: bucket, Key: key, Range: 'bytes=20000-' })))).toBe(
      'InvalidRange',
    );
    expect(await s3Code(s3.send(new GetObjectCommand({ Bucket: bucket, Key: 'objects/missing.bin' })))).toBe(
      'NoSuchKey',
    );
    expect(await s3Code(s3.send(new GetObjectCommand({ Bucket: 'no-such-bucket', Key: key })))).toBe('NoSuchBucket');
  });

  it('checks a signed payload hash and Content-MD5 on header-signed uploads', async () => {
    const key = 'objects/digest.bin';
    const body = randomBytes(1000);
    const wrongMd5 = createHash('md5').update('other').digest('base64');
    expect(
      await s3Code(s3.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: body, ContentMD5: wrongMd5 }))),
    ).toBe('BadDigest');
    const ok = await s3.send(
      new PutObjectCommand({
        Bucket: bucket,
        Key: key,
        Body: body,
        ContentMD5: createHash('md5').update(body).digest('base64'),
      }),
    );
    expect(ok.ETag).toBe(`"${md5(body)}"`);
  });
});

describe('ListObjectsV2', () => {
  it('pages with continuation tokens and rolls keys up under a delimiter', async () => {
    const keys = ['list/a.bin', 'list/b.bin', 'list/dir1/x.bin', 'list/dir1/y.bin', 'list/dir2/z.bin', 'list/e.bin'];
    for (const Key of keys) await s3.send(new PutObjectCommand({ Bucket: bucket, Key, Body: Key }));
    const seen: string[] = [];
    let token: string | undefined;
    do {
      const page = await s3.send(
        new ListObjectsV2Command({
          Bucket: bucket,
          Prefix: 'list/',
          Delimiter: '/',
          MaxKeys: 2,
          ContinuationToken: token,
        }),
      );
      expect((page.Contents?.length ?? 0) + (page.CommonPrefixes?.length ?? 0)).toBeLessThanOrEqual(2);
      seen.push(...(page.Contents ?? []).map((c) => c.Key!), ...(page.CommonPrefixes ?? []).map((p) => p.Prefix!));
      token = page.NextContinuationToken;
    } while (token);
    expect(seen.sort()).toEqual(['list/a.bin', 'list/b.bin', 'list/dir1/', 'list/dir2/', 'list/e.bin']);
    const all = await s3.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: 'list/dir1/' }));
    expect(all.Contents!.map((c) => [c.Key, c.Size])).toEqual([
      ['list/dir1/x.bin', 15],
      ['list/dir1/y.bin', 15],
    ]);
  });
});

describe('persistence', () => {
  it('keeps objects and unfinished uploads across a restart on the same data folder', async () => {
    const first = await startTestService();
    const client = first.s3();
    const b = first.info.s3.bucket;
    const body = randomBytes(2000);
    await client.send(new PutObjectCommand({ Bucket: b, Key: 'kept.bin', Body: body }));
    const id = (await client.send(new CreateMultipartUploadCommand({ Bucket: b, Key: 'pending.bin' }))).UploadId!;
    const partUrl = await getSignedUrl(
      client,
      new UploadPartCommand({ Bucket: b, Key: 'pending.bin', UploadId: id, PartNumber: 1 }),
    );
    await put(partUrl, randomBytes(500));
    client.destroy();
    await first.close();

    const second = await startTestService({ dataDir: first.dataDir });
    try {
      const c2 = second.s3();
      const got = await c2.send(new GetObjectCommand({ Bucket: b, Key: 'kept.bin' }));
      expect(Buffer.from(await got.Body!.transformToByteArray()).equals(body)).toBe(true);
      const parts = await c2.send(new ListPartsCommand({ Bucket: b, Key: 'pending.bin', UploadId: id }));
      expect(parts.Parts?.map((p) => p.Size)).toEqual([500]);
      expect(second.info.s3.secretAccessKey).toBe(first.info.s3.secretAccessKey);
    } finally {
      await second.stop();
      rmSync(first.dataDir, { recursive: true, force: true });
    }
  });
});
