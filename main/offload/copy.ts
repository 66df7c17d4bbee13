import type { FileHandle } from 'node:fs/promises';
import { mkdir, open, rename, rm } from 'node:fs/promises';
import { dirname, join, basename } from 'node:path';
import type { FileFacts } from '../intake/file-identity.js';
import { fileFacts } from '../intake/file-identity.js';
import { startXxh64 } from './hash.js';
import { PartMd5s } from './part-md5.js';

/**
 * Bytes read or written at once. 8 MiB: a card reader streams, each read or write costs one
 * system call and one trip through the thread pool per 8 MiB, and memory stays flat (two buffers
 * per file in flight, whatever the file's size).
 */
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
  /**
   * With `partSize`: the MD5 of each part of that many bytes (the last one shorter, one empty part
   * for an empty file), 16 bytes each in part order, computed from the card's bytes in the same pass.
   */
  partMd5s?: Buffer;
  /** The verified copy as stat sees it once in place (size, mtime, device, inode, status-change time). */
  copyFacts?: FileFacts;
}

/** Test seam: runs after the copy is written and flushed, before it is read back (to damage it). */
export type AfterWrite = (partialPath: string) => Promise<void>;

/** Options of copyVerified. */
export interface CopyOptions {
  /** Called with the bytes of each chunk once it is written. */
  onBytes?: (n: number) => void;
  afterWrite?: AfterWrite;
  /**
   * Bytes per upload part (capture-upload-interface.md §4.6: part N covers bytes (N-1)·partSize up
   * to N·partSize): when given, each part's MD5 is computed from the card's bytes as they are read.
   */
  partSize?: number;
}

/**
 * Copies `source` to `dest`, hashing the bytes as they are read (XXH64, and each part's MD5 when
 * `partSize` is given), then flushes the copy (fsync), reads it back and hashes it again:
 * `verified` only when both XXH64s and the sizes agree (issue 19 deliver 3). The read-back comes
 * right after the flush, so the kernel answers it from its page cache: it proves the file system
 * holds exactly the card's bytes under the copy's name (no short or misplaced write, nothing else
 * wrote the file), and the flush that the disk accepted them; it does not read the disk's medium
 * again (README, "Verified offload").
 *
 * The source is opened read-only, so a card is never written to. The copy is written under a
 * hidden `.NAME.partial` name and renamed into place only once verified; it gets the source's
 * modification time. A copy that fails verification is removed and the result says so; throws the
 * file system's error (ENOSPC, EIO, ENOENT when the card is pulled).
 */
export async function copyVerified(source: string, dest: string, opts: CopyOptions = {}): Promise<VerifiedCopy> {
  await mkdir(dirname(dest), { recursive: true });
  const partial = join(dirname(dest), `.${basename(dest)}.partial`);
  const src = await open(source, 'r');
  let out: FileHandle | undefined;
  try {
    const st = await src.stat();
    out = await open(partial, 'w');
    const hash = await startXxh64();
    const parts = opts.partSize ? new PartMd5s(opts.partSize) : undefined;
    // Two buffers: while one chunk is written (in the thread pool) and hashed (on this thread, at
    // the same time), the next is read from the card into the other.
    const bufs = [Buffer.allocUnsafeSlow(CHUNK_BYTES), Buffer.allocUnsafeSlow(CHUNK_BYTES)];
    let pos = 0;
    let turn = 0;
    let next = settled(src.read(bufs[0]!, 0, CHUNK_BYTES, 0));
    for (;;) {
      const { bytesRead, buffer } = await next;
      if (bytesRead === 0) break;
      pos += bytesRead;
      turn ^= 1;
      // The other buffer's chunk was written and hashed in the previous turn: it is free.
      next = settled(src.read(bufs[turn]!, 0, CHUNK_BYTES, pos));
      const chunk = buffer.subarray(0, bytesRead);
      // The write and the hashes only read the chunk, so they run together.
      const written = writeAll(out, chunk);
      hash.update(chunk);
      parts?.update(chunk);
      await written;
      opts.onBytes?.(bytesRead);
    }
    // In seconds as a number: a Date would drop the sub-millisecond part of the card's time.
    await out.utimes(st.atimeMs / 1000, st.mtimeMs / 1000);
    await out.sync();
    await out.close();
    out = undefined;
    await opts.afterWrite?.(partial);
    const xxh64 = hash.digest();
    const back = await hashFile(partial, bufs);
    const verified = back.size === pos && back.xxh64 === xxh64 && pos === st.size;
    if (!verified) {
      await rm(partial, { force: true });
      return { size: pos, mtimeMs: st.mtimeMs, xxh64, copyXxh64: back.xxh64, verified };
    }
    await rename(partial, dest);
    return { size: pos, mtimeMs: st.mtimeMs, xxh64, copyXxh64: back.xxh64, verified, copyFacts: await fileFacts(dest), ...(parts ? { partMd5s: parts.finish() } : {}) };
  } catch (err) {
    await out?.close().catch(() => {});
    await rm(partial, { force: true }).catch(() => {});
    throw err;
  } finally {
    await src.close();
  }
}

/**
 * Reads a whole file (read-only) and answers its size in bytes and XXH64. With two buffers the
 * next chunk is read while this one is hashed; `bufs` lets a caller lend its own.
 */
export async function hashFile(path: string, bufs: Buffer[] = [Buffer.allocUnsafeSlow(CHUNK_BYTES), Buffer.allocUnsafeSlow(CHUNK_BYTES)]): Promise<{ size: number; xxh64: string }> {
  const fh = await open(path, 'r');
  try {
    const hash = await startXxh64();
    let size = 0;
    let turn = 0;
    let next = settled(fh.read(bufs[0]!, 0, bufs[0]!.length, 0));
    for (;;) {
      const { bytesRead, buffer } = await next;
      if (bytesRead === 0) break;
      size += bytesRead;
      turn ^= 1;
      next = settled(fh.read(bufs[turn]!, 0, bufs[turn]!.length, size));
      hash.update(buffer.subarray(0, bytesRead));
    }
    return { size, xxh64: hash.digest() };
  } finally {
    await fh.close();
  }
}

/** A read started ahead may fail while a write's error is being handled: it must not go unhandled (it is still awaited in turn). */
function settled<T>(p: Promise<T>): Promise<T> {
  p.catch(() => {});
  return p;
}

async function writeAll(fh: FileHandle, chunk: Buffer): Promise<void> {
  let done = 0;
  while (done < chunk.length) done += (await fh.write(chunk, done, chunk.length - done)).bytesWritten;
}
