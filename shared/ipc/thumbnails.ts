import { z } from 'zod';

// The thumbnails of the IPC contract (shared/ipc.ts re-exports them and spreads
// `thumbnailChannels` into its map).

/** One coded video sample to decode (main/media/decode-plan.ts PlanSample): bytes in the file, times in µs. */
const planSample = z.object({
  offset: z.number().int().nonnegative(),
  size: z.number().int().positive(),
  key: z.boolean(),
  timestampUs: z.number(),
  durationUs: z.number(),
});

/**
 * Which file a thumbnail is decoded from: the camera's low-resolution `preview` beside the
 * recording (its LRV_ file, main/media/preview-file.ts), or the `recording` itself where there is
 * none or the preview could not be decoded.
 */
const frameSource = z.enum(['preview', 'recording']);

/**
 * What the window shows for a recording: its first frame from the cache (`dataUrl`, a JPEG as a
 * `data:` URL); `none` when it cannot be decoded here (the neutral icon, with the reason);
 * `frames`, the frame to decode in the window's decoding worker (WebCodecs, off the page's main
 * thread): the decoder's configuration and the samples' bytes at `url` on the loopback media
 * server (main/media/media-server.ts, main/media/decode-plan.ts); or `decode`, where no such plan
 * could be read, the loopback URL a `<video>` element reads the file from to draw the frame. The
 * window then sends the JPEG with `thumbnails.save`. The URLs hold a session token: for the
 * decoder only, never shown or logged.
 */
const thumbnailView = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('image'), dataUrl: z.string() }),
  z.object({ kind: z.literal('none'), reason: z.string() }),
  z.object({
    kind: z.literal('frames'),
    source: frameSource,
    url: z.string(),
    /** RFC 6381 codec string (WebCodecs VideoDecoderConfig.codec). */
    codec: z.string(),
    codedWidth: z.number().int().positive(),
    codedHeight: z.number().int().positive(),
    /** The codec's configuration box (avcC, hvcC …) without its header, base64. */
    description: z.string().optional(),
    /** In decode order, a keyframe first. */
    samples: z.array(planSample).min(1),
    /** The frame drawn is the last one shown at or before this time (µs). */
    atUs: z.number(),
  }),
  z.object({ kind: z.literal('decode'), source: frameSource, videoUrl: z.string() }),
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
   * `files.inspect`) or the queue holds, from its preview where the card has one; refuses any other path.
   */
  'capture:thumbnails.get': {
    /** `recording`: decode the recording itself, not its preview (the preview could not be decoded). */
    args: z.object({ path: z.string().min(1), recording: z.boolean().optional() }),
    result: thumbnailView,
  },
  /** Keeps the first frame the window drew (a JPEG) in the library's thumbnail cache; answers it as `image`. */
  'capture:thumbnails.save': { args: z.object({ path: z.string().min(1), jpeg: jpegDataUrl }), result: thumbnailView },
  /**
   * Chromium could not decode the recording (its decoder's or media element's error): kept, so the
   * icon shows next time without trying again; answers `none`.
   */
  'capture:thumbnails.undecodable': {
    args: z.object({ path: z.string().min(1), reason: z.string().max(500) }),
    result: thumbnailView,
  },
} as const;
