import { createHash, randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useRealClient } from './real-client.js';

// Debian's rclone (aws-sdk-go underneath) is a second real S3 client: it writes the ETags of
// CompleteMultipartUpload as XML character references (&#34;) and lists with encoding-type=url,
// two things our own client never does. .ci/run installs it.
const MiB = 1024 * 1024;
const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

// A remote named "local" from the environment alone. AWS_CA_BUNDLE is left out on purpose: rclone
// stops with LoadCustomCABundleError when it is set, and the storage is plain HTTP anyway.
const client = useRealClient('/usr/bin/rclone', 'rclone', 'rclone', ({ info: { s3 } }, work) => {
  const config = join(work, 'rclone.conf');
  writeFileSync(config, '');
  return {
    RCLONE_CONFIG: config,
    RCLONE_CONFIG_LOCAL_TYPE: 's3',
    RCLONE_CONFIG_LOCAL_PROVIDER: 'Other',
    RCLONE_CONFIG_LOCAL_ACCESS_KEY_ID: s3.accessKeyId,
    RCLONE_CONFIG_LOCAL_SECRET_ACCESS_KEY: s3.secretAccessKey,
    RCLONE_CONFIG_LOCAL_ENDPOINT: s3.endpoint,
    RCLONE_CONFIG_LOCAL_REGION: s3.region,
    RCLONE_CONFIG_LOCAL_FORCE_PATH_STYLE: 'true',
  };
});
const rclone = (...args: string[]) =>
  client.run([
    '--s3-upload-cutoff',
    '5M',
    '--s3-chunk-size',
    '5M',
    '--retries',
    '1',
    '--low-level-retries',
    '1',
    ...args,
  ]);

describe('Debian rclone against the local storage', () => {
  it('uploads a 12 MiB file in parts, lists it, and reads it back byte for byte', async () => {
    const bucket = client.svc.info.s3.bucket;
    const src = join(client.work, 'walk one.bin'); // a space: listing with encoding-type=url must round-trip it
    const bytes = randomBytes(12 * MiB + 5);
    writeFileSync(src, bytes);
    await rclone('copyto', src, `local:${bucket}/rclone/walk one.bin`);
    expect(client.svc.storage.stats.partsStored).toBeGreaterThanOrEqual(3); // a multipart upload of 5 MiB parts

    const lsf = (await rclone('lsf', `local:${bucket}/rclone/`)).stdout;
    expect(lsf.split('\n')).toContain('walk one.bin');
    const ls = (await rclone('ls', `local:${bucket}/rclone`)).stdout;
    expect(ls).toMatch(new RegExp(`^\\s*${bytes.length} walk one\\.bin$`, 'm'));
    const dirs = (await rclone('lsd', `local:${bucket}`)).stdout;
    expect(dirs).toMatch(/ rclone$/m);

    const out = join(client.work, 'back.bin');
    await rclone('copyto', `local:${bucket}/rclone/walk one.bin`, out);
    expect(sha256(readFileSync(out))).toBe(sha256(bytes));
  });
});
