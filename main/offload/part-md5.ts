import type Database from 'better-sqlite3';
import type { Hash } from 'node:crypto';
import { createHash } from 'node:crypto';
import type { FileFacts } from '../intake/file-identity.js';
import type { QueuedFile } from '../queue/queue.js';

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
    if (!Number.isSafeInteger(partSize) || partSize <= 0) throw new RangeError(`partSize must be a positive integer, not ${partSize}`);
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
export function expectedPartSize(db: Database.Database): number {
  const row = db.prepare('SELECT part_size FROM files WHERE part_size IS NOT NULL ORDER BY id DESC LIMIT 1').get() as { part_size: number } | undefined;
  return row?.part_size ?? DEFAULT_PART_SIZE;
}

/** One verified copy's part MD5s: where it is, what stat said of it once in place, and the digests (16 bytes each). */
export interface CopyPartMd5s {
  path: string;
  facts: FileFacts;
  partSize: number;
  md5s: Buffer;
}

/** Keeps a copy's part MD5s in the queue (migration 11); times ISO 8601. */
export function recordPartMd5s(db: Database.Database, c: CopyPartMd5s, at: Date = new Date()): void {
  db.prepare(`INSERT INTO part_md5s (path, size, mtime_ms, dev, ino, ctime_ns, part_size, md5s, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`).run(
    c.path,
    c.facts.size,
    Math.trunc(c.facts.mtimeMs),
    c.facts.dev,
    c.facts.ino,
    c.facts.ctimeNs,
    c.partSize,
    c.md5s,
    at.toISOString(),
  );
}

/** Forgets the part MD5s kept for a path (its copy was removed). */
export function forgetPartMd5s(db: Database.Database, path: string): void {
  db.prepare('DELETE FROM part_md5s WHERE path = ?').run(path);
}

/**
 * The quoted part MD5s (`"hex"`, S3's ETag of an unencrypted part), indexed by part number - 1,
 * kept for a registered file, or undefined when none may be used: only when the file was queued
 * with the very identity the offload saw once its copy was in place (path, size, modification
 * time, device, inode and status-change time, which no write can leave unchanged), the file on
 * disk still has that identity (`now`), and the gateway gave it the part size they were computed
 * for, with as many parts. Otherwise the engine hashes the bytes as it sends them.
 */
export function storedPartMd5s(db: Database.Database, f: QueuedFile, now: FileFacts): string[] | undefined {
  if (!f.partSize || !f.totalParts || !f.dev || !f.ino || !f.ctimeNs) return undefined;
  if (now.dev !== f.dev || now.ino !== f.ino || now.ctimeNs !== f.ctimeNs || now.size !== f.size || Math.trunc(now.mtimeMs) !== Math.trunc(f.mtimeMs)) return undefined;
  const row = db
    .prepare(`SELECT md5s FROM part_md5s WHERE path = ? AND size = ? AND mtime_ms = ? AND dev = ? AND ino = ? AND ctime_ns = ? AND part_size = ? ORDER BY id DESC LIMIT 1`)
    .get(f.path, f.size, Math.trunc(f.mtimeMs), f.dev, f.ino, f.ctimeNs, f.partSize) as { md5s: Buffer } | undefined;
  if (!row || row.md5s.length !== f.totalParts * MD5_BYTES) return undefined;
  return Array.from({ length: f.totalParts }, (_, i) => `"${row.md5s.subarray(i * MD5_BYTES, (i + 1) * MD5_BYTES).toString('hex')}"`);
}
