import { mkdir, readFile, rename, stat, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { contentFingerprint } from '../intake/file-identity.js';

/** The cache folder's name inside the library folder. */
export const THUMBNAIL_FOLDER = '.thumbnails';

/** The largest thumbnail kept (bytes): a 320-pixel JPEG is some 20 KiB; more is not a thumbnail. */
const MAX_THUMBNAIL_BYTES = 512 * 1024;

/** What the cache knows of a recording: its first frame (JPEG bytes), that it cannot be decoded (and why), or nothing yet. */
export type CachedThumbnail = { kind: 'image'; jpeg: Buffer } | { kind: 'none'; reason: string } | { kind: 'missing' };

/**
 * The first frames of recordings, kept as `<library>/.thumbnails/<fingerprint>.jpg`,
 * or `<fingerprint>.none` holding the reason when Chromium could not decode it. Keyed by the
 * recording's content fingerprint (main/intake/file-identity.ts: its size and first and last MiB),
 * not its path: the card's file and its verified copy in the library share one thumbnail, and a
 * card mounted under another path finds its own. The recording itself is only read.
 */
export class ThumbnailCache {
  // path → [facts it was read with, fingerprint]: the 2 MiB are read once per file while it is unchanged.
  private readonly keys = new Map<string, [string, string]>();

  /** `library`: the library folder in force now (main/settings/library-settings.ts), asked each time as it may change. */
  constructor(private readonly library: () => string) {}

  /** The cache's key of the recording at `path` (hex SHA-256). Throws the ErrnoException of reading it. */
  async keyOf(path: string): Promise<string> {
    const s = await stat(path, { bigint: true });
    const facts = `${s.size}:${s.mtimeNs}:${s.dev}:${s.ino}`;
    const known = this.keys.get(path);
    if (known?.[0] === facts) return known[1];
    const key = await contentFingerprint(path, Number(s.size));
    this.keys.set(path, [facts, key]);
    return key;
  }

  /**
   * What is cached under `key`; a file that cannot be read counts as missing. An entry found is
   * marked used now (its modification time): the sweep (main/media/thumbnail-prune.ts) removes the
   * ones not used for long.
   */
  async read(key: string): Promise<CachedThumbnail> {
    try {
      const jpeg = await readFile(this.file(key, 'jpg'));
      await touch(this.file(key, 'jpg'));
      return { kind: 'image', jpeg };
    } catch {
      // not there: maybe a verdict that it cannot be decoded
    }
    try {
      const reason = (await readFile(this.file(key, 'none'), 'utf8')).trim();
      await touch(this.file(key, 'none'));
      return { kind: 'none', reason };
    } catch {
      return { kind: 'missing' };
    }
  }

  /**
   * Keeps `jpeg` (JPEG bytes) under `key`, written beside and renamed into place so a reader never
   * sees half a file. Throws Error when the bytes are not a JPEG or too large, or the write's error.
   */
  async writeImage(key: string, jpeg: Buffer): Promise<void> {
    if (jpeg.length < 4 || jpeg[0] !== 0xff || jpeg[1] !== 0xd8 || jpeg[2] !== 0xff)
      throw new Error('The thumbnail is not a JPEG image.');
    if (jpeg.length > MAX_THUMBNAIL_BYTES)
      throw new Error(`The thumbnail is larger than ${MAX_THUMBNAIL_BYTES} bytes.`);
    await this.write(this.file(key, 'jpg'), jpeg);
  }

  /** Keeps the verdict that `key` cannot be decoded here, with its reason (one line of text). */
  async writeNone(key: string, reason: string): Promise<void> {
    await this.write(this.file(key, 'none'), `${reason.replace(/\s+/g, ' ').slice(0, 500)}\n`);
  }

  /** Where `key`'s thumbnail (`jpg`) or verdict (`none`) is kept. */
  file(key: string, ext: 'jpg' | 'none'): string {
    if (!/^[0-9a-f]{64}$/.test(key)) throw new Error('Not a thumbnail key.');
    return join(this.library(), THUMBNAIL_FOLDER, `${key}.${ext}`);
  }

  private async write(file: string, data: Buffer | string): Promise<void> {
    await mkdir(join(this.library(), THUMBNAIL_FOLDER), { recursive: true });
    const part = `${file}.${process.pid}.part`;
    await writeFile(part, data);
    await rename(part, file);
  }
}

/** Marks a cache entry used now; a library on a read-only disk still serves its thumbnails. */
const touch = (file: string) => utimes(file, new Date(), new Date()).catch(() => undefined);
