import type { FileHandle } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import { mkdir, open, rename, rm } from 'node:fs/promises';
import { CopyWriter, DIRECT_ALIGN, directRefused, giveAligned, openForReadBack, takeAligned } from './direct-io.js';
import { dirname, join } from 'node:path';
import type { FileFacts } from '../intake/file-identity.js';
import { fileFacts } from '../intake/file-identity.js';
import { startXxh64 } from './hash.js';

/**
 * Bytes read or written at once. 8 MiB: a card reader streams, each read or write costs one
 * system call and one trip through the thread pool per 8 MiB, and memory stays flat (two buffers
 * per file in flight, whatever the file's size).
 */
const CHUNK_BYTES = 8 * 1024 * 1024;

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
  /** The verified copy as stat sees it once in place (size, mtime, device, inode, status-change time). */
  copyFacts?: FileFacts;
}

/**
 * Test seam: runs after the copy is written and flushed, before it is read back (to damage it), with
 * the half-written copy's path and the path it will have once verified.
 */
export type AfterWrite = (partialPath: string, dest: string) => Promise<void>;

/** Options of copyVerified. */
export interface CopyOptions {
  /** Called with the bytes of each chunk once it is written. */
  onBytes?: (n: number) => void;
  afterWrite?: AfterWrite;
  /**
   * Aborting it stops the copy between two chunks (of the copy or of its read-back): the
   * half-written copy (`.HEX.partial`) is removed and the signal's reason thrown.
   */
  signal?: AbortSignal;
}

/**
 * Copies `source` to `dest`, hashing the bytes as they are read (XXH64), then flushes the copy (fsync), reads it back and hashes it again:
 * `verified` only when both XXH64s and the sizes agree. Where the library's
 * file system allows O_DIRECT (Linux: ext4, XFS, Btrfs…), the copy is written and read back
 * with it (direct-io.ts), so the read-back reads what the disk holds, not the kernel's cache;
 * elsewhere the read-back comes from the page cache right after the flush and proves that the file
 * system holds the card's bytes under the copy's name, and the flush that the disk took them
 * (`readBackFromDisk` says which; README, import).
 *
 * The source is opened read-only, so a card is never written to. The copy is written under a
 * hidden name of fixed length beside its place (`.` and 16 hex digits, `.partial`: 25 bytes, so a
 * card's file whose name takes all 255 bytes a file system allows is copied too, where
 * `.NAME.partial` would not fit) and renamed into place only once verified; it gets the source's
 * modification time. A copy that fails verification is removed and the result says so; throws the
 * file system's error (ENOSPC, EIO, ENOENT when the card is pulled).
 */
export async function copyVerified(source: string, dest: string, opts: CopyOptions = {}): Promise<VerifiedCopy> {
  await mkdir(dirname(dest), { recursive: true });
  const partial = join(dirname(dest), `.${randomBytes(8).toString('hex')}.partial`);
  const src = await open(source, 'r');
  let out: CopyWriter | undefined;
  // Two buffers at page boundaries (direct-io.ts): while one chunk is written (in the thread pool)
  // and hashed (on this thread, at the same time), the next is read from the card into the other.
  const bufs = [takeAligned(CHUNK_BYTES), takeAligned(CHUNK_BYTES)];
  let turn = 0;
  try {
    const st = await src.stat();
    out = await CopyWriter.create(partial);
    const hash = await startXxh64();
    let pos = 0;
    let next = settled(src.read(bufs[turn]!, 0, CHUNK_BYTES, 0));
    for (;;) {
      const { bytesRead, buffer } = await next;
      opts.signal?.throwIfAborted();
      if (bytesRead === 0) break;
      pos += bytesRead;
      const chunk = buffer.subarray(0, bytesRead);
      // The write and the hash only read the chunk, so they run together; the next chunk is read
      // into the other buffer, whose chunk was written and hashed in the previous turn.
      const written = out.write(chunk, pos - bytesRead);
      next = settled(src.read(bufs[(turn ^= 1)]!, 0, CHUNK_BYTES, pos));
      hash.update(chunk);
      await written;
      opts.onBytes?.(bytesRead);
    }
    // In seconds as a number: a Date would drop the sub-millisecond part of the card's time.
    await out.finish(st.atimeMs / 1000, st.mtimeMs / 1000);
    const direct = out.direct;
    out = undefined;
    await opts.afterWrite?.(partial, dest);
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
    await rename(partial, dest);
    return { ...result, copyFacts: await fileFacts(dest) };
  } catch (err) {
    await out?.close();
    await rm(partial, { force: true }).catch(() => {});
    throw err;
  } finally {
    // Closing waits for a read still under way, so no buffer is given back while one fills it.
    await src.close();
    for (const b of bufs) giveAligned(b);
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
async function hashFile(
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
