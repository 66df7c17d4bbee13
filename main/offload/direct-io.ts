import type { FileHandle } from 'node:fs/promises';
import { constants } from 'node:fs';
import { open } from 'node:fs/promises';

// Direct I/O for the library's copies: written with O_DIRECT, a copy's bytes go
// from our buffer to the disk without a second copy into the kernel's page cache (about 1 CPU
// s/GiB here, most of the offload's cost), and read back with O_DIRECT they come from the disk,
// not from that cache, so the read-back verifies what the disk holds. O_DIRECT wants the buffer's
// address, the file offset and the length aligned to the disk's block size: the buffers are
// WebAssembly memories, which V8 maps at page boundaries, and each chunk starts at a multiple of
// DIRECT_ALIGN. Where the system or the file system has no O_DIRECT (macOS, Windows, tmpfs), or
// refuses an access (EINVAL), the same bytes go through the page cache instead, as before.

/** O_DIRECT on this system (Linux, some BSDs), undefined elsewhere. */
const O_DIRECT: number | undefined = (constants as Record<string, number | undefined>).O_DIRECT;

/** Alignment of every direct access, in bytes: a page, a multiple of any disk's logical block size. */
export const DIRECT_ALIGN = 4096;

const pool: Buffer[] = [];

/**
 * A buffer of `bytes` (a multiple of 64 KiB, WebAssembly's page) starting at a page boundary,
 * taken from a small pool (give it back with giveAligned).
 */
export function takeAligned(bytes: number): Buffer {
  const i = pool.findIndex((b) => b.length === bytes);
  if (i >= 0) return pool.splice(i, 1)[0]!;
  return Buffer.from(new WebAssembly.Memory({ initial: bytes / 65536 }).buffer);
}

/** Returns a buffer from takeAligned for reuse (at most 8 are kept: two per file in flight and spare). */
export function giveAligned(b: Buffer): void {
  if (pool.length < 8) pool.push(b);
}

const refused = (err: unknown) => (err as NodeJS.ErrnoException).code === 'EINVAL';

async function writeAllAt(fh: FileHandle, chunk: Buffer, position: number): Promise<void> {
  let done = 0;
  while (done < chunk.length) done += (await fh.write(chunk, done, chunk.length - done, position + done)).bytesWritten;
}

/**
 * Writes a new file (created or truncated) at explicit offsets: aligned whole blocks through an
 * O_DIRECT handle when the system and file system allow it, the rest (a file's last, partial
 * block; everything after a refusal) through the page cache. `direct` says whether any byte went
 * the direct way. Throws the file system's errors other than a refusal of O_DIRECT.
 */
export class CopyWriter {
  private constructor(
    private readonly cached: FileHandle,
    private directFh: FileHandle | undefined,
  ) {}

  /** Whether any byte was written with O_DIRECT. */
  direct = false;

  /** Creates (or truncates) `path` for writing; throws open's error. */
  static async create(path: string): Promise<CopyWriter> {
    const cached = await open(path, 'w');
    let directFh: FileHandle | undefined;
    if (O_DIRECT !== undefined) directFh = await open(path, constants.O_WRONLY | O_DIRECT).catch(() => undefined);
    return new CopyWriter(cached, directFh);
  }

  /** Writes `chunk` (whose memory starts aligned when it comes from takeAligned) at byte `position`. */
  async write(chunk: Buffer, position: number): Promise<void> {
    const aligned = chunk.length - (chunk.length % DIRECT_ALIGN);
    if (this.directFh && position % DIRECT_ALIGN === 0 && aligned > 0) {
      try {
        await writeAllAt(this.directFh, chunk.subarray(0, aligned), position);
        this.direct = true;
        if (aligned < chunk.length) await writeAllAt(this.cached, chunk.subarray(aligned), position + aligned);
        return;
      } catch (err) {
        if (!refused(err)) throw err;
        await this.directFh.close().catch(() => {});
        this.directFh = undefined; // refused once: the rest goes through the cache
      }
    }
    await writeAllAt(this.cached, chunk, position);
  }

  /** Sets the times (seconds), flushes the file to the disk (fsync covers both ways in) and closes it. */
  async finish(atime: number, mtime: number): Promise<void> {
    await this.cached.utimes(atime, mtime);
    await this.cached.sync();
    await this.close();
  }

  /** Closes both handles; errors are ignored (used on the way out of a failure too). */
  async close(): Promise<void> {
    await this.directFh?.close().catch(() => {});
    this.directFh = undefined;
    await this.cached.close().catch(() => {});
  }
}

/**
 * Opens `path` read-only for the read-back: with O_DIRECT when asked and allowed (the bytes then
 * come from the disk, not the page cache), else through the cache. Says which it got.
 */
export async function openForReadBack(path: string, direct: boolean): Promise<{ fh: FileHandle; fromDisk: boolean }> {
  if (direct && O_DIRECT !== undefined) {
    const fh = await open(path, constants.O_RDONLY | O_DIRECT).catch(() => undefined);
    if (fh) return { fh, fromDisk: true };
  }
  return { fh: await open(path, 'r'), fromDisk: false };
}

/** Whether an error is a refusal of O_DIRECT (EINVAL: alignment, or a file system without it). */
export const directRefused = refused;
