import { GetObjectCommand } from '@aws-sdk/client-s3';
import { expect } from '@playwright/test';
import { createHash } from 'node:crypto';
import type { AppHarness } from './harness.js';

/**
 * What the local service's storage holds after the browser tests' uploads, read back through its
 * S3 endpoint: the bytes of each completed upload, compared by their SHA-256.
 */

/** The SHA-256 of `bytes`, as lowercase hex. */
export const sha256 = (bytes: Buffer): string => createHash('sha256').update(bytes).digest('hex');

/**
 * The SHA-256 (hex) of the object stored for the completed upload of `fileName` (its name as
 * registered, §4.4), read back from the test service's bucket. Throws when no completed upload
 * has that name.
 */
export async function storedSha(h: AppHarness, fileName: string): Promise<string> {
  const upload = Object.values(h.svc.store.state.uploads).find(
    (u) => u.fileName === fileName && u.status === 'completed',
  );
  if (!upload) throw new Error(`no completed upload of ${fileName}`);
  const res = await h.svc.s3().send(new GetObjectCommand({ Bucket: h.svc.info.s3.bucket, Key: upload.key }));
  return sha256(Buffer.from(await res.Body!.transformToByteArray()));
}

/**
 * Expects exactly `count` completed uploads in the test service, and for each entry of `hashes`
 * (file name → SHA-256 hex of the file as it was on disk) the stored object byte for byte equal.
 */
export async function expectStoredByteIdentical(
  h: AppHarness,
  hashes: Map<string, string>,
  count: number,
): Promise<void> {
  expect(Object.values(h.svc.store.state.uploads).filter((u) => u.status === 'completed')).toHaveLength(count);
  for (const [name, hash] of hashes) expect(await storedSha(h, name), name).toBe(hash);
}
