import { z } from 'zod';

// The thumbnails of the IPC contract (shared/ipc.ts re-exports them and spreads
// `thumbnailChannels` into its map).

/**
 * What the window shows for a recording: its first frame from the cache (`dataUrl`, a JPEG as a
 * `data:` URL); `none` when it cannot be decoded here (the neutral icon, with the reason); or
 * `decode`, with the loopback URL (main/media/media-server.ts) a `<video>` element reads it from
 * to draw the first frame, which it then sends with `thumbnails.save`. The URL holds a session
 * token: it is for the video element only, never shown or logged.
 */
export const thumbnailView = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('image'), dataUrl: z.string() }),
  z.object({ kind: z.literal('none'), reason: z.string() }),
  z.object({ kind: z.literal('decode'), videoUrl: z.string() }),
]);
export type ThumbnailView = z.infer<typeof thumbnailView>;

/** A JPEG as a base64 `data:` URL, at most some 512 KiB of image. */
const jpegDataUrl = z
  .string()
  .max(700_000)
  .regex(/^data:image\/jpeg;base64,[A-Za-z0-9+/=]+$/, 'a JPEG data: URL');

/** The thumbnail channels (spread into shared/ipc.ts `channels`). */
export const thumbnailChannels = {
  /**
   * The thumbnail of a recording the registration table lists (an absolute path it was given by
   * `files.inspect`); refuses any other path.
   */
  'capture:thumbnails.get': { args: z.object({ path: z.string().min(1) }), result: thumbnailView },
  /** Keeps the first frame the window drew (a JPEG) in the library's thumbnail cache; answers it as `image`. */
  'capture:thumbnails.save': { args: z.object({ path: z.string().min(1), jpeg: jpegDataUrl }), result: thumbnailView },
  /**
   * Chromium could not decode the recording (its media error): kept, so the icon shows next time
   * without trying again; answers `none`.
   */
  'capture:thumbnails.undecodable': {
    args: z.object({ path: z.string().min(1), reason: z.string().max(500) }),
    result: thumbnailView,
  },
} as const;
