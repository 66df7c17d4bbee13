import type { FileHandle } from 'node:fs/promises';
import { mkdir, open, rename, rm } from 'node:fs/promises';
import { CopyWriter, DIRECT_ALIGN, directRefused, giveAligned, openForReadBack, takeAligned } from './direct-io.js';
import { dirname, join, basename } from 'node:path';
import type { FileFacts } from '../intake/file-identity.js';
import { fileFacts } from '../intake/file-identity.js';
import { startXxh64 } from './hash.js';
import { PartMd5s } from './part-md5.js';
import type { PartMd5Pool, PoolFile } from '../hash/pool.js';

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
  /** Whether the read-back came from the disk (O_DIRECT) rather than the kernel's page cache (direct-io.ts). */
  readBackFromDisk: boolean;
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
  /**
   * With `partSize`: the pool (chunk buffers and hashing thread, main/hash/pool.ts) that computes the
   * part MD5s off this thread. Without it they are computed here, with OpenSSL (PartMd5s).
   */
  md5Pool?: PartMd5Pool;
  /**
   * Aborting it stops the copy between two chunks (of the copy or of its read-back): the
   * half-written `.NAME.partial` is removed and the signal's reason thrown.
   */
  signal?: AbortSignal;
}

/**
 * Copies `source` to `dest`, hashing the bytes as they are read (XXH64, and each part's MD5 when
 * `partSize` is given), then flushes the copy (fsync), reads it back and hashes it again:
 * `verified` only when both XXH64s and the sizes agree. Where the library's
 * file system allows O_DIRECT (Linux: ext4, XFS, Btrfs…), the copy is written and read back
 * with it (direct-io.ts), so the read-back reads what the disk holds, not the kernel's cache;
 * elsewhere the read-back comes from the page cache right after the flush and proves that the file
 * system holds the card's bytes under the copy's name, and the flush that the disk took them
 * (`readBackFromDisk` says which; README, import).
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
  let out: CopyWriter | undefined;
  // Two buffers at page boundaries (direct-io.ts): while one chunk is written (in the thread pool)
  // and hashed (on this thread, at the same time), the next is read from the card into the other.
  const bufs = [takeAligned(CHUNK_BYTES), takeAligned(CHUNK_BYTES)];
  // With a pool, each chunk is read into a slot of it instead, lent to the MD5 thread once written.
  const pool = opts.partSize ? opts.md5Pool : undefined;
  const held = new Set<Buffer>();
  let poolFile: PoolFile | undefined;
  let turn = 0;
  // Set on the way out: a slot that comes after is given back at once, and no read starts, so
  // nothing fills a buffer once it is given back.
  let ended = false;
  const take = async () => {
    if (!pool) return bufs[(turn ^= 1)]!;
    const slot = await pool.take();
    if (ended) pool.give(slot);
    else held.add(slot);
    return slot;
  };
  const readInto = (b: Buffer, at: number) =>
    ended ? Promise.reject(new Error('The copy has ended.')) : src.read(b, 0, b.length, at);
  try {
    const st = await src.stat();
    out = await CopyWriter.create(partial);
    const hash = await startXxh64();
    poolFile = pool?.file(opts.partSize!);
    const parts = opts.partSize && !pool ? new PartMd5s(opts.partSize) : undefined;
    let pos = 0;
    let next = settled(readInto(await take(), 0));
    for (;;) {
      const { bytesRead, buffer } = await next;
      opts.signal?.throwIfAborted();
      if (bytesRead === 0) break;
      pos += bytesRead;
      const chunk = buffer.subarray(0, bytesRead);
      // The write and the hashes only read the chunk, so they run together.
      const written = out.write(chunk, pos - bytesRead);
      // The next chunk is read into the other buffer, whose chunk was written and hashed in the
      // previous turn; or into a slot of the pool once the MD5 thread has one free, this chunk's
      // write going on meanwhile.
      const at = pos;
      next = settled(take().then((b) => readInto(b, at)));
      hash.update(chunk);
      parts?.update(chunk);
      await written;
      if (poolFile) {
        held.delete(buffer);
        poolFile.add(buffer, bytesRead);
      }
      opts.onBytes?.(bytesRead);
    }
    // The MD5 thread finishes the file's parts while the copy is flushed and read back.
    const md5s = poolFile?.finish();
    md5s?.catch(() => {});
    poolFile = undefined;
    // In seconds as a number: a Date would drop the sub-millisecond part of the card's time.
    await out.finish(st.atimeMs / 1000, st.mtimeMs / 1000);
    const direct = out.direct;
    out = undefined;
    await opts.afterWrite?.(partial);
    const xxh64 = hash.digest();
    const back = await readBack(partial, bufs, direct, opts.signal);
    // Stopped after the read-back: the copy is not put in place, so no caller takes it for done.
    opts.signal?.throwIfAborted();
    const verified = back.size === pos && back.xxh64 === xxh64 && pos === st.size;
    const result = {
      size: pos,
      mtimeMs: st.mtimeMs,
      xxh64,
      copyXxh64: back.xxh64,
      verified,
      readBackFromDisk: back.fromDisk,
    };
    if (!verified) {
      await rm(partial, { force: true });
      return result;
    }
    const partMd5s = md5s ? await md5s : parts?.finish();
    await rename(partial, dest);
    return { ...result, copyFacts: await fileFacts(dest), ...(partMd5s ? { partMd5s } : {}) };
  } catch (err) {
    await out?.close();
    await rm(partial, { force: true }).catch(() => {});
    throw err;
  } finally {
    ended = true;
    poolFile?.abort();
    // Closing waits for a read still under way, so no buffer is given back while one fills it.
    await src.close();
    for (const b of bufs) giveAligned(b);
    for (const b of held) pool!.give(b);
  }
}

/** The read-back: from the disk when the copy was written directly and the system allows it, else from the cache. */
async function readBack(
  path: string,
  bufs: Buffer[],
  direct: boolean,
  signal?: AbortSignal,
): Promise<{ size: number; xxh64: string; fromDisk: boolean }> {
  const { fh, fromDisk } = await openForReadBack(path, direct);
  try {
    return { ...(await hashOpen(fh, bufs, fromDisk, signal)), fromDisk };
  } catch (err) {
    if (!fromDisk || !directRefused(err)) throw err;
  } finally {
    await fh.close();
  }
  return { ...(await hashFile(path, bufs, signal)), fromDisk: false }; // the direct read was refused: through the cache
}

/**
 * Reads a whole file (read-only) and answers its size in bytes and XXH64. With two buffers the
 * next chunk is read while this one is hashed; `bufs` lets a caller lend its own. Aborting
 * `signal` stops it between two chunks with the signal's reason.
 */
export async function hashFile(
  path: string,
  bufs: Buffer[] = [Buffer.allocUnsafeSlow(CHUNK_BYTES), Buffer.allocUnsafeSlow(CHUNK_BYTES)],
  signal?: AbortSignal,
): Promise<{ size: number; xxh64: string }> {
  const fh = await open(path, 'r');
  try {
    return await hashOpen(fh, bufs, false, signal);
  } finally {
    await fh.close();
  }
}

/**
 * Hashes an open file from its start to its end; see hashFile. `direct`: the handle has O_DIRECT,
 * whose reads must start at aligned offsets, so a short read at an unaligned end is the end.
 */
async function hashOpen(
  fh: FileHandle,
  bufs: Buffer[],
  direct = false,
  signal?: AbortSignal,
): Promise<{ size: number; xxh64: string }> {
  const hash = await startXxh64();
  let size = 0;
  let turn = 0;
  let next: Promise<{ bytesRead: number; buffer: Buffer }> | undefined = settled(
    fh.read(bufs[0]!, 0, bufs[0]!.length, 0),
  );
  while (next) {
    const { bytesRead, buffer }: { bytesRead: number; buffer: Buffer } = await next;
    // The read ahead is not left running: closing the handle waits for it.
    signal?.throwIfAborted();
    if (bytesRead === 0) break;
    size += bytesRead;
    turn ^= 1;
    const more: boolean = !direct || bytesRead === buffer.length || size % DIRECT_ALIGN === 0;
    next = more ? settled(fh.read(bufs[turn]!, 0, bufs[turn]!.length, size)) : undefined;
    hash.update(buffer.subarray(0, bytesRead));
  }
  return { size, xxh64: hash.digest() };
}

/** A read started ahead may fail while a write's error is being handled: it must not go unhandled (it is still awaited in turn). */
function settled<T>(p: Promise<T>): Promise<T> {
  p.catch(() => {});
  return p;
}
