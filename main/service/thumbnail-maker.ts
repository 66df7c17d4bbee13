import type { ThumbnailView } from '../../shared/ipc.js';
import { reasonOf } from '../api/errors.js';
import type { Logger } from '../engine/engine.js';
import type { DecodePlan } from '../media/decode-plan.js';
import { decodePlan, NoPictureError } from '../media/decode-plan.js';
import { MediaServer } from '../media/media-server.js';
import { previewOf } from '../media/preview-file.js';
import { THUMBNAIL_FOLDER, ThumbnailCache } from '../media/thumbnail-cache.js';
import type { ThumbnailPruneLimits, ThumbnailPruneResult } from '../media/thumbnail-prune.js';
import { pruneThumbnails } from '../media/thumbnail-prune.js';
import { join } from 'node:path';
import type { QueueDatabase } from '../queue/db.js';
import { isQueuedPath, queuedPathsAndFingerprints } from '../queue/reader.js';

/**
 * The recordings' first-frame thumbnails, in the upload service's worker. The design,
 * and why:
 * - From the camera's low-resolution proxy where the card has one (the LRV_ file beside the
 *   recording, main/media/preview-file.ts), as Insta360 Studio previews: a few hundred pixels of
 *   H.264 instead of a 5.7K recording that may be HEVC; the recording itself otherwise, or when the
 *   window could not decode the proxy (`get`'s `recording`).
 * - Chromium decodes, not ffmpeg, off the window's main thread: the service reads the file's
 *   header and says which samples hold the frame a second in and how to configure a decoder for
 *   them (main/media/decode-plan.ts); the window's decoding worker fetches those bytes from a
 *   loopback server (main/media/media-server.ts) and decodes them with WebCodecs. Nothing is
 *   bundled, and what cannot be decoded here (HEVC on a Chromium built without it, a damaged
 *   file) is reported by the decoder. A file whose header the service cannot read is handed as a
 *   plain URL for a `<video>` element, as before; one that holds no MP4 (random bytes, a
 *   recording cut off before its header) is said so at once and kept as such.
 * - The service keeps the result, the renderer never writes files: the window sends the JPEG it
 *   drew, checked here (a JPEG, under 512 KiB), and the cache (main/media/thumbnail-cache.ts)
 *   keeps it in `<library>/.thumbnails/` by the recording's content fingerprint. The next time the
 *   image comes from there as a `data:` URL (the CSP's `img-src` already allows them), and no
 *   video is opened.
 * - Only recordings the registration table was given (`allow`, after `files.inspect`) or that are
 *   in the upload queue (`queued`) are served or cached; any other path is refused.
 */
export class ThumbnailMaker {
  private readonly server = new MediaServer();
  private readonly cache: ThumbnailCache;
  private readonly allowed = new Set<string>();

  /**
   * `library`: the library folder in force now; `queueDb`: the queue's database while it is open
   * (a queued file's thumbnail may be read: the queue's rows show them); `log` for cache writes
   * that failed (never a URL).
   */
  constructor(
    private readonly library: () => string,
    private readonly queueDb: () => QueueDatabase | undefined = () => undefined,
    private readonly log?: Logger,
  ) {
    this.cache = new ThumbnailCache(library);
  }

  /** Lets the window ask for these recordings' thumbnails (absolute paths the intake found). */
  allow(paths: Iterable<string>): void {
    for (const p of paths) this.allowed.add(p);
  }

  /**
   * The thumbnail of `path` as the window shows it (shared/ipc/thumbnails.ts ThumbnailView): cached
   * image, cached verdict, or how to decode it: from its preview (LRV) when there is one and
   * `recording` is not asked for, else from the recording. Throws Error for a path not allowed,
   * or when the recording cannot be read (it was removed).
   */
  async get(path: string, opts: { recording?: boolean } = {}): Promise<ThumbnailView> {
    const key = await this.keyOf(path);
    const cached = await this.cache.read(key);
    if (cached.kind === 'image') return { kind: 'image', dataUrl: toDataUrl(cached.jpeg) };
    if (cached.kind === 'none') return { kind: 'none', reason: cached.reason };
    // Started on first need: a session that shows no new recording opens no port.
    await this.server.start();
    const preview = opts.recording ? undefined : await previewOf(path);
    if (preview) {
      // A preview that cannot be planned (damaged, cut short) leaves the recording to try.
      const plan = await decodePlan(preview).catch(() => undefined);
      if (plan) return this.frames(preview, 'preview', plan);
    }
    try {
      return this.frames(path, 'recording', await decodePlan(path));
    } catch (err) {
      // Its content holds no picture: so it stays, and the window need not try.
      if (err instanceof NoPictureError) return this.undecodable(path, err.message);
      return { kind: 'decode', source: 'recording', videoUrl: this.server.urlFor(path) };
    }
  }

  private frames(file: string, source: 'preview' | 'recording', plan: DecodePlan): ThumbnailView {
    return { kind: 'frames', source, url: this.server.urlFor(file), ...plan };
  }

  /**
   * Keeps the first frame the window drew (`jpeg`, a base64 JPEG `data:` URL) and answers it. A cache
   * that cannot be written (a library folder not there) is logged: the image shows this session.
   * Throws Error for a path not allowed, or bytes that are not a JPEG.
   */
  async save(path: string, jpeg: string): Promise<ThumbnailView> {
    const key = await this.keyOf(path);
    const bytes = Buffer.from(jpeg.slice(jpeg.indexOf(',') + 1), 'base64');
    try {
      await this.cache.writeImage(key, bytes);
    } catch (err) {
      if (err instanceof Error && err.message.startsWith('The thumbnail')) throw err;
      this.log?.warn(`A thumbnail could not be kept in the library folder: ${reasonOf(err)}`);
    }
    return { kind: 'image', dataUrl: toDataUrl(bytes) };
  }

  /** Keeps the verdict that `path` cannot be decoded here (the media error's `reason`); answers `none`. */
  async undecodable(path: string, reason: string): Promise<ThumbnailView> {
    const key = await this.keyOf(path);
    try {
      await this.cache.writeNone(key, reason);
    } catch (err) {
      this.log?.warn(`A thumbnail could not be kept in the library folder: ${reasonOf(err)}`);
    }
    return { kind: 'none', reason };
  }

  /**
   * Prunes the cache in the library folder in force (main/media/thumbnail-prune.ts; run by the
   * hourly retention sweep, main/service/card-imports.ts): entries not used for 30 days go, and the
   * cache is kept under 200 MiB, never removing the thumbnail of a recording in the queue (any row
   * not forgotten, by its content fingerprint) or listed for registration this session. `now` in
   * ms since 1970. Throws the file system's error or the queue's SqliteError.
   */
  async prune(now: number = Date.now(), limits?: ThumbnailPruneLimits): Promise<ThumbnailPruneResult> {
    const inUse = new Set<string>();
    const paths = [...this.allowed];
    const db = this.queueDb();
    const rows = db ? queuedPathsAndFingerprints(db) : [];
    for (const r of rows) {
      if (r.fingerprint) inUse.add(r.fingerprint);
      else paths.push(r.path); // a row queued before fingerprints: its key is read from the file
    }
    for (const p of paths) {
      // Read once per file while it is unchanged (the cache remembers); a file gone has no thumbnail to keep.
      const key = await this.cache.keyOf(p).catch(() => null);
      if (key) inUse.add(key);
    }
    return pruneThumbnails(join(this.library(), THUMBNAIL_FOLDER), inUse, now, limits);
  }

  /** Stops the media server. */
  close(): Promise<void> {
    return this.server.close();
  }

  private keyOf(path: string): Promise<string> {
    if (!this.allowed.has(path) && !this.queued(path))
      throw new Error('This file is not among the recordings listed for registration or queued.');
    return this.cache.keyOf(path);
  }

  private queued(path: string): boolean {
    const db = this.queueDb();
    return db !== undefined && isQueuedPath(db, path);
  }
}

const toDataUrl = (jpeg: Buffer) => `data:image/jpeg;base64,${jpeg.toString('base64')}`;
