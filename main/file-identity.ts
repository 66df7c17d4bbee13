import { createHash } from 'node:crypto';
import { open, stat } from 'node:fs/promises';
import type { FileIdentity } from './queue/queue.js';

/** Bytes read from each end of a file for its fingerprint. */
export const FINGERPRINT_SPAN = 1024 * 1024;

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
  return { size: Number(s.size), mtimeMs: Number(s.mtimeMs), dev: String(s.dev), ino: String(s.ino), ctimeNs: String(s.ctimeNs) };
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

/**
 * How the file on disk differs from what was queued, or undefined when it is the same: another
 * file at that path (device or inode), another size, modification time or status-change time (an
 * in-place write with its mtime set back still changes the ctime). Fields the queue does not hold
 * (rows from before migration 4) are not compared.
 */
export function identityDifference(now: FileFacts, queued: { size: number; mtimeMs: number } & Partial<FileIdentity>): string | undefined {
  if (queued.dev && queued.ino && (now.dev !== queued.dev || now.ino !== queued.ino)) return 'it is another file now (replaced or moved)';
  if (now.size !== queued.size) return `size ${now.size} bytes, queued with ${queued.size}`;
  if (Math.trunc(now.mtimeMs) !== Math.trunc(queued.mtimeMs)) {
    return `modified ${new Date(now.mtimeMs).toISOString()}, queued as ${new Date(queued.mtimeMs).toISOString()}`;
  }
  if (queued.ctimeNs && now.ctimeNs !== queued.ctimeNs) return 'its content or attributes were changed, though its modification time was kept';
  return undefined;
}
