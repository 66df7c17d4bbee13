import type { Hash } from 'node:crypto';
import { createHash } from 'node:crypto';
import type { FileFacts } from '../intake/file-identity.js';
import type { QueueDatabase } from '../queue/db.js';
import type { QueuedFile } from '../queue/queue.js';
import { latestPartSize, partMd5sOf } from '../queue/reader.js';
import { deletePartMd5s, insertPartMd5s } from '../queue/writer.js';

// The MD5 of each upload part, computed from the card's bytes while the
// offload copies them, kept in the queue (migration 11, `part_md5s`), so the upload of the copy
// neither hashes its bytes again nor reads the file to rebuild a lost part's ETag.

/** Bytes of one MD5 digest: the stored digests are 16 bytes each, in part order. */
const MD5_BYTES = 16;

/**
 * The part size the offload hashes for when the queue has never been told one: the manifest's
 * sample in capture-upload-interface.md §4.4 (and §8 Limits), which is what the gateway answers.
 */
export const DEFAULT_PART_SIZE = 5 * 1024 * 1024;

/**
 * MD5s of consecutive parts of `partSize` bytes of a stream fed in order (§4.6: part N covers
 * bytes (N-1)·partSize up to N·partSize). Chunks may straddle parts.
 */
export class PartMd5s {
  private readonly digests: Buffer[] = [];
  private md5: Hash = createHash('md5');
  private filled = 0;

  /** `partSize` in bytes, a positive integer. */
  constructor(private readonly partSize: number) {
    if (!Number.isSafeInteger(partSize) || partSize <= 0)
      throw new RangeError(`partSize must be a positive integer, not ${partSize}`);
  }

  /** Feeds the next bytes of the file. */
  update(chunk: Uint8Array): void {
    let at = 0;
    while (at < chunk.length) {
      const take = Math.min(this.partSize - this.filled, chunk.length - at);
      this.md5.update(chunk.subarray(at, at + take));
      at += take;
      this.filled += take;
      if (this.filled === this.partSize) {
        this.digests.push(this.md5.digest());
        this.md5 = createHash('md5');
        this.filled = 0;
      }
    }
  }

  /** The digests, 16 bytes each in part order: the last part may be short; an empty file is one empty part (§4.4: totalParts ≥ 1). */
  finish(): Buffer {
    if (this.filled > 0 || this.digests.length === 0) this.digests.push(this.md5.digest());
    return Buffer.concat(this.digests);
  }
}

/**
 * The part size to hash for during an offload: the one the gateway gave the file registered last
 * (`files.part_size`), else DEFAULT_PART_SIZE. Only a guess: the engine uses stored MD5s only
 * for a file registered with exactly this part size (storedPartMd5s).
 */
export function expectedPartSize(db: QueueDatabase): number {
  return latestPartSize(db) ?? DEFAULT_PART_SIZE;
}

/** One verified copy's part MD5s: where it is, what stat said of it once in place, and the digests (16 bytes each). */
export interface CopyPartMd5s {
  path: string;
  facts: FileFacts;
  partSize: number;
  md5s: Buffer;
}

/** Keeps a copy's part MD5s in the queue (migration 11); times ISO 8601. */
export function recordPartMd5s(db: QueueDatabase, c: CopyPartMd5s, at: Date = new Date()): void {
  insertPartMd5s(db, { path: c.path, ...c.facts, partSize: c.partSize, md5s: c.md5s }, at.toISOString());
}

/** Forgets the part MD5s kept for a path (its copy was removed). */
export function forgetPartMd5s(db: QueueDatabase, path: string): void {
  deletePartMd5s(db, path);
}

/**
 * The quoted part MD5s (`"hex"`, S3's ETag of an unencrypted part), indexed by part number - 1,
 * kept for a registered file, or undefined when none may be used: only when the file was queued
 * with the very identity the offload saw once its copy was in place (path, size, modification
 * time, device, inode and status-change time, which no write can leave unchanged), the file on
 * disk still has that identity (`now`), and the gateway gave it the part size they were computed
 * for, with as many parts. Otherwise the engine hashes the bytes as it sends them.
 */
export function storedPartMd5s(db: QueueDatabase, f: QueuedFile, now: FileFacts): string[] | undefined {
  if (!f.partSize || !f.totalParts || !f.dev || !f.ino || !f.ctimeNs) return undefined;
  if (
    now.dev !== f.dev ||
    now.ino !== f.ino ||
    now.ctimeNs !== f.ctimeNs ||
    now.size !== f.size ||
    Math.trunc(now.mtimeMs) !== Math.trunc(f.mtimeMs)
  )
    return undefined;
  const md5s = partMd5sOf(db, {
    path: f.path,
    size: f.size,
    mtimeMs: f.mtimeMs,
    dev: f.dev,
    ino: f.ino,
    ctimeNs: f.ctimeNs,
    partSize: f.partSize,
  });
  if (!md5s || md5s.length !== f.totalParts * MD5_BYTES) return undefined;
  return Array.from(
    { length: f.totalParts },
    (_, i) => `"${md5s.subarray(i * MD5_BYTES, (i + 1) * MD5_BYTES).toString('hex')}"`,
  );
}
