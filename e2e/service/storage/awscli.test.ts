import { createHash, randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { putBytes, registerCapture } from '../testing.js';
import { useRealClient } from './real-client.js';

// Debian's awscli is a real S3 client written by another team: if it can write and read objects
// here, the storage speaks S3 and not just what our own code expects. .ci/run installs it.
const MiB = 1024 * 1024;
const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

const client = useRealClient('/usr/bin/aws', 'awscli', 'awscli', (svc, work) => {
  const config = join(work, 'config');
  // Path-style addressing: the storage serves /bucket/key on a loopback address.
  writeFileSync(config, '[default]\nregion = us-east-1\ns3 =\n    addressing_style = path\n');
  return {
    AWS_CONFIG_FILE: config,
    AWS_SHARED_CREDENTIALS_FILE: join(work, 'none'),
    AWS_ACCESS_KEY_ID: svc.info.s3.accessKeyId,
    AWS_SECRET_ACCESS_KEY: svc.info.s3.secretAccessKey,
    AWS_DEFAULT_REGION: svc.info.s3.region,
    AWS_EC2_METADATA_DISABLED: 'true',
    AWS_PAGER: '',
  };
});
const aws = (...args: string[]) => client.run([...args, '--endpoint-url', client.svc.info.s3.endpoint]);

describe('Debian awscli against the local storage', () => {
  it('uploads a 20 MiB file in parts with `aws s3 cp` and reads it back with `aws s3api get-object`', async () => {
    const src = join(client.work, 'big.bin');
    const bytes = randomBytes(20 * MiB);
    writeFileSync(src, bytes);
    await aws('s3', 'cp', src, `s3://${client.svc.info.s3.bucket}/awscli/big.bin`);
    const head = JSON.parse(
      (await aws('s3api', 'head-object', '--bucket', client.svc.info.s3.bucket, '--key', 'awscli/big.bin')).stdout,
    ) as {
      ETag: string;
      ContentLength: number;
    };
    expect(head.ContentLength).toBe(20 * MiB);
    expect(head.ETag).toMatch(/-\d+"$/); // awscli chose a multipart upload (8 MiB chunks by default)
    const out = join(client.work, 'big.out');
    await aws('s3api', 'get-object', '--bucket', client.svc.info.s3.bucket, '--key', 'awscli/big.bin', out);
    expect(sha256(readFileSync(out))).toBe(sha256(bytes));
    // Listing, as `aws s3 ls` does it (ListObjectsV2 with a delimiter, then ListBuckets).
    const listed = (await aws('s3', 'ls', `s3://${client.svc.info.s3.bucket}/awscli/`)).stdout;
    expect(listed).toMatch(new RegExp(`\\s${20 * MiB} big\\.bin$`, 'm'));
    expect((await aws('s3', 'ls', `s3://${client.svc.info.s3.bucket}/`)).stdout).toMatch(/PRE awscli\/$/m);
    expect((await aws('s3', 'ls')).stdout).toMatch(new RegExp(` ${client.svc.info.s3.bucket}$`, 'm'));
    const copy = join(client.work, 'big.copy');
    await aws('s3', 'cp', `s3://${client.svc.info.s3.bucket}/awscli/big.bin`, copy);
    expect(sha256(readFileSync(copy))).toBe(sha256(bytes));
  });

  it('reads back, byte for byte, a file uploaded through the gateway in presigned parts', async () => {
    const bytes = randomBytes(11 * MiB + 77);
    const { manifest } = await registerCapture(
      client.svc,
      [{ name: 'garage.mp4', size: bytes.length, contentType: 'video/mp4' }],
      client.svc.info.structures[2],
    );
    const { uploadId, partSize } = manifest[0]!;
    const presigned = (await (
      await client.svc.gateway('POST', `/upload-service/uploads/${uploadId}/parts/presign-missing`)
    ).json()) as {
      parts: { partNumber: number; url: string }[];
    };
    const parts = [];
    for (const p of presigned.parts) {
      const body = bytes.subarray((p.partNumber - 1) * partSize, p.partNumber * partSize);
      const res = await putBytes(p.url, body);
      parts.push({ partNumber: p.partNumber, etag: res.headers.get('etag')!, size: body.length });
    }
    expect(parts).toHaveLength(3);
    const done = await client.svc.gateway('POST', `/upload-service/uploads/${uploadId}/parts/complete-batch`, {
      body: { parts },
    });
    expect(((await done.json()) as { upload: { status: string } }).upload.status).toBe('completed');

    const out = join(client.work, 'garage.out');
    await aws(
      's3api',
      'get-object',
      '--bucket',
      client.svc.info.s3.bucket,
      '--key',
      client.svc.store.state.uploads[uploadId]!.key,
      out,
    );
    expect(sha256(readFileSync(out))).toBe(sha256(bytes));
  });
});
