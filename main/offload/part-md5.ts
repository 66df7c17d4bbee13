import type { FileFacts } from '../intake/file-identity.js';
import type { QueueDatabase } from '../queue/db.js';
import type { QueuedFile } from '../queue/queue.js';
import { partMd5sOf } from '../queue/reader.js';
import { deletePartMd5s } from '../queue/writer.js';

// The MD5 of each upload part, which an earlier offload computed from the card's bytes while it
// copied them and kept in the queue (migration 11, `part_md5s`), so the upload of the copy neither
// hashes its bytes again nor reads the file to rebuild a lost part's ETag. The offload computes
// none now (docs/decisions/0030-part-md5-at-upload.md); those an older queue keeps are still
// used while the copy is the same file, and forgotten once it goes (retention.ts).

/** Bytes of one MD5 digest: the stored digests are 16 bytes each, in part order. */
const MD5_BYTES = 16;

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
