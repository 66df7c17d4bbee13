import type { FileHandle } from 'node:fs/promises';
import { mkdir, open, rename, rm } from 'node:fs/promises';
import { dirname, join, basename } from 'node:path';
import { startXxh64 } from './hash.js';

/** Bytes read or written at once: large enough that a card reader streams, small enough to keep memory flat. */
export const CHUNK_BYTES = 8 * 1024 * 1024;

/** What copyVerified did with one file: sizes in bytes, XXH64 as 16 hex digits, mtime in ms since 1970. */
export interface VerifiedCopy {
  size: number;
  mtimeMs: number;
  /** The source's XXH64, computed from the bytes as they were read from the card. */
  xxh64: string;
  /** The copy's XXH64, read back from the disk after it was written and flushed. */
  copyXxh64: string;
  verified: boolean;
}

/** Test seam: runs after the copy is written and flushed, before it is read back (to damage it). */
export type AfterWrite = (partialPath: string) => Promise<void>;

/**
 * Copies `source` to `dest`, hashing the bytes as they are read (XXH64), then flushes the copy,
 * reads it back and hashes it again: `verified` only when both hashes and the sizes agree
 * (issue 19 deliver 3). The source is opened read-only, so a card is never written to. The copy
 * is written under a hidden `.NAME.partial` name and renamed into place only once verified; it
 * gets the source's modification time. A copy that fails verification is removed and the result
 * says so; throws the file system's error (ENOSPC, EIO, ENOENT when the card is pulled).
 */
export async function copyVerified(source: string, dest: string, onBytes?: (n: number) => void, afterWrite?: AfterWrite): Promise<VerifiedCopy> {
  await mkdir(dirname(dest), { recursive: true });
  const partial = join(dirname(dest), `.${basename(dest)}.partial`);
  const src = await open(source, 'r');
  let out: FileHandle | undefined;
  try {
    const st = await src.stat();
    out = await open(partial, 'w');
    const hash = await startXxh64();
    // Two buffers: the next read from the card runs while this chunk is hashed and written.
    const bufs = [Buffer.allocUnsafe(CHUNK_BYTES), Buffer.allocUnsafe(CHUNK_BYTES)];
    let pos = 0;
    let turn = 0;
    let next = src.read(bufs[0]!, 0, CHUNK_BYTES, 0);
    for (;;) {
      const { bytesRead, buffer } = await next;
      if (bytesRead === 0) break;
      pos += bytesRead;
      turn ^= 1;
      next = src.read(bufs[turn]!, 0, CHUNK_BYTES, pos);
      const chunk = buffer.subarray(0, bytesRead);
      hash.update(chunk);
      await writeAll(out, chunk);
      onBytes?.(bytesRead);
    }
    // In seconds as a number: a Date would drop the sub-millisecond part of the card's time.
    await out.utimes(st.atimeMs / 1000, st.mtimeMs / 1000);
    await out.sync();
    await out.close();
    out = undefined;
    await afterWrite?.(partial);
    const xxh64 = hash.digest();
    const back = await hashFile(partial, bufs[0]!);
    const verified = back.size === pos && back.xxh64 === xxh64 && pos === st.size;
    if (verified) await rename(partial, dest);
    else await rm(partial, { force: true });
    return { size: pos, mtimeMs: st.mtimeMs, xxh64, copyXxh64: back.xxh64, verified };
  } catch (err) {
    await out?.close().catch(() => {});
    await rm(partial, { force: true }).catch(() => {});
    throw err;
  } finally {
    await src.close();
  }
}

/** Reads a whole file (read-only) and answers its size in bytes and XXH64. */
export async function hashFile(path: string, buf: Buffer = Buffer.allocUnsafe(CHUNK_BYTES)): Promise<{ size: number; xxh64: string }> {
  const fh = await open(path, 'r');
  try {
    const hash = await startXxh64();
    let size = 0;
    for (;;) {
      const { bytesRead } = await fh.read(buf, 0, buf.length, size);
      if (bytesRead === 0) break;
      hash.update(buf.subarray(0, bytesRead));
      size += bytesRead;
    }
    return { size, xxh64: hash.digest() };
  } finally {
    await fh.close();
  }
}

async function writeAll(fh: FileHandle, chunk: Buffer): Promise<void> {
  let done = 0;
  while (done < chunk.length) done += (await fh.write(chunk, done, chunk.length - done)).bytesWritten;
}
