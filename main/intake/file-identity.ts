import { createHash } from 'node:crypto';
import { open, stat } from 'node:fs/promises';
import type { FileIdentity } from '../queue/queue.js';

/** Bytes read from each end of a file for its fingerprint. */
const FINGERPRINT_SPAN = 1024 * 1024;

/** What stat says about a file now: size (bytes), mtime (ms), and its identity without the fingerprint. */
export interface FileFacts {
  size: number;
  mtimeMs: number;
  dev: string;
  ino: string;
  ctimeNs: string;
}

/**
 * Stats a file (following links), with device, inode and status-change time exact (bigint stat).
 * Throws the ErrnoException of stat.
 */
export async function fileFacts(path: string): Promise<FileFacts> {
  const s = await stat(path, { bigint: true });
  return {
    size: Number(s.size),
    mtimeMs: Number(s.mtimeMs),
    dev: String(s.dev),
    ino: String(s.ino),
    ctimeNs: String(s.ctimeNs),
  };
}

/**
 * A content fingerprint that finds one recording whatever the path or mount point it is reached
 * by: hex SHA-256 of the size and the first and last MiB (the whole file when smaller). The file is
 * opened read-only. Throws the ErrnoException of open/read.
 */
export async function contentFingerprint(path: string, size: number): Promise<string> {
  const hash = createHash('sha256').update(`${size}:`);
  const fh = await open(path, 'r');
  try {
    const head = Buffer.alloc(Math.min(size, FINGERPRINT_SPAN));
    await fh.read(head, 0, head.length, 0);
    hash.update(head);
    if (size > FINGERPRINT_SPAN) {
      const tailStart = Math.max(FINGERPRINT_SPAN, size - FINGERPRINT_SPAN);
      const tail = Buffer.alloc(size - tailStart);
      await fh.read(tail, 0, tail.length, tailStart);
      hash.update(tail);
    }
  } finally {
    await fh.close();
  }
  return hash.digest('hex');
}

/** What the queue holds about a file: size (bytes), mtime (ms) and, from migration 4 on, its identity. */
export type QueuedFacts = { size: number; mtimeMs: number } & Partial<FileIdentity>;

/**
 * Whether the file's device, inode or status-change time differs from the queued ones (false for
 * a row queued before they were kept, migration 4). Bytes may have changed then, or not: a chmod
 * and back, a hard link or a remount move them too. A write always moves the status-change time,
 * even when the modification time is put back, so the engine then reads the parts storage holds
 * again (main/engine/parts/stored-bytes.ts).
 */
export function identityMoved(now: FileFacts, queued: QueuedFacts): boolean {
  if (queued.dev === undefined || queued.ino === undefined || queued.ctimeNs === undefined) return false;
  return queued.dev !== now.dev || queued.ino !== now.ino || queued.ctimeNs !== now.ctimeNs;
}

/**
 * How the file's bytes may differ from what was queued, judged from the file alone, or undefined
 * when nothing here says so: the size, the modification time, and the fingerprint of the first
 * and last MiB. Device, inode and status-change time are only a hint: a chmod and back, a hard
 * link, or the card mounted again under another device number change them, not the bytes. So
 * when they all still match, nothing is read; when one moved, the fingerprint is read again
 * (2 MiB, read-only) and decides here, and the engine also compares the parts already stored
 * with their MD5s (main/engine/parts/stored-bytes.ts), which is what sees a change in the middle of
 * the file with its modification time put back.
 *
 * A row queued before fingerprints were kept (migration 4) has none: for it the size and the
 * modification time decide alone.
 * Throws the ErrnoException of reading the file for its fingerprint.
 */
export async function contentDifference(
  path: string,
  now: FileFacts,
  queued: QueuedFacts,
): Promise<string | undefined> {
  if (now.size !== queued.size) return `size ${now.size} bytes, queued with ${queued.size}`;
  if (Math.trunc(now.mtimeMs) !== Math.trunc(queued.mtimeMs)) {
    return `modified ${new Date(now.mtimeMs).toISOString()}, queued as ${new Date(queued.mtimeMs).toISOString()}`;
  }
  if (!queued.fingerprint) return undefined;
  const key = `${now.dev}:${now.ino}:${now.ctimeNs}`;
  if (queued.dev === now.dev && queued.ino === now.ino && queued.ctimeNs === now.ctimeNs) return undefined;
  // Checked before and after every part: once a moved inode or ctime was proven harmless, it is
  // not read again for each part (until it moves again).
  if (verified.get(path) === `${key}:${queued.fingerprint}`) return undefined;
  if ((await contentFingerprint(path, now.size)) !== queued.fingerprint) {
    return 'its first or last MiB differs, though its size and modification time were kept';
  }
  if (verified.size > 1000) verified.clear();
  verified.set(path, `${key}:${queued.fingerprint}`);
  return undefined;
}

// path → "dev:ino:ctimeNs:fingerprint" last proven to hold the queued bytes.
const verified = new Map<string, string>();
