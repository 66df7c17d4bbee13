// The recordings' thumbnails: asked of the service once per path, their frame decoded here when
// the service has none cached: in the decoding worker (frame-decoder.ts, WebCodecs, off the page's
// main thread) from the camera's preview where the card has one, else from the recording; with a
// `<video>` element only where the worker cannot. Kept in the one store's slice (thumbnails-slice.ts).
import { useEffect } from 'react';
import type { ThumbnailView } from '../../shared/ipc.js';
import { api, unwrap } from './api.js';
import { decodeInWorker } from './frame-decoder.js';
import type { DecodeAnswer } from './frame-decoder.js';
import { useApp } from './store.js';
import { thumbnailTime } from '../../shared/thumbnail-time.js';
import type { Thumb } from './thumbnails-slice.js';

export type { Thumb };

/** How long a first frame may take to show before the icon is shown instead (ms); not kept as a verdict. */
const DECODE_TIMEOUT_MS = 30_000;
/** The thumbnail's width in pixels: twice what the table shows, for sharp high-density screens. */
const WIDTH = 160;

// One decode at a time: a card of 100 recordings must not open 100 decoders at once on a small laptop.
let decoding: Promise<unknown> = Promise.resolve();
const oneAtATime = <T>(work: () => Promise<T>): Promise<T> => {
  const next = decoding.then(work, work);
  decoding = next;
  return next;
};

/** The thumbnail of `path` (a recording listed by files.inspect), asked for once per session. */
export function useThumbnail(path: string): Thumb {
  const thumb = useApp((s) => s.thumbs[path]);
  useEffect(() => load(path), [path]);
  return thumb ?? { kind: 'loading' };
}

/** How long thumbnails that came in are held to be put in the store together (ms): one redraw for a burst. */
const BATCH_MS = 16;
/** The paths asked for this session: in flight or settled (the store holds only the settled). */
const asked = new Set<string>();
let pending = new Map<string, Thumb>();
let flushTimer: ReturnType<typeof setTimeout> | undefined;

/**
 * Puts a settled thumbnail in the store with the others that came within BATCH_MS: each store
 * update runs every mounted row's selectors, and a card's hundred answers one by one (the cached
 * ones come in a burst) kept the window's main thread busy for a frame each.
 */
function set(path: string, thumb: Thumb): void {
  pending.set(path, thumb);
  flushTimer ??= setTimeout(() => {
    flushTimer = undefined;
    const batch = pending;
    pending = new Map();
    useApp.getState().setThumbs(batch);
  }, BATCH_MS);
}

/** What the service answered after a save or a verdict, as shown (never a second decode). */
const shown = (view: ThumbnailView): Thumb =>
  view.kind === 'image' || view.kind === 'none' ? view : { kind: 'none', reason: 'No preview' };

/** Decodes the frame a view says how to: in the worker, or with a `<video>` element where the worker cannot. */
async function decodeView(view: Extract<ThumbnailView, { kind: 'frames' | 'decode' }>): Promise<DecodeAnswer> {
  if (view.kind === 'decode') return firstFrame(view.videoUrl);
  const { kind: _kind, source: _source, ...plan } = view;
  const answer = await decodeInWorker({ ...plan, width: WIDTH }, DECODE_TIMEOUT_MS);
  return answer.ok || !answer.unsupported ? answer : firstFrame(view.url);
}

// "Loading" is the absence of an answer (useThumbnail): not written to the store, so that a table's
// first render is not followed by one store update per row.
function load(path: string): void {
  if (asked.has(path) || useApp.getState().thumbs[path]) return;
  asked.add(path);
  void (async () => {
    try {
      let view: ThumbnailView = await unwrap(api['thumbnails.get']({ path }));
      for (;;) {
        if (view.kind === 'image' || view.kind === 'none') return set(path, view);
        const current = view;
        const frame = await oneAtATime(() => decodeView(current));
        if (frame.ok) return set(path, shown(await unwrap(api['thumbnails.save']({ path, jpeg: frame.jpeg }))));
        // The preview would not decode: the recording itself, once.
        if (frame.lasting && view.source === 'preview') {
          view = await unwrap(api['thumbnails.get']({ path, recording: true }));
          continue;
        }
        // Only the decoder's own verdict is kept; a timeout on a busy machine may pass.
        return set(
          path,
          frame.lasting
            ? shown(await unwrap(api['thumbnails.undecodable']({ path, reason: frame.reason })))
            : { kind: 'none', reason: frame.reason },
        );
      }
    } catch (err) {
      set(path, { kind: 'none', reason: err instanceof Error ? err.message : String(err) });
    }
  })();
}

/** How long the seek to THUMBNAIL_AT_S may take before the first frame is taken instead (ms). */
const SEEK_TIMEOUT_MS = 5_000;

/** Chromium's media error codes (HTMLMediaElement.error.code), in words. */
const MEDIA_ERRORS: Record<number, string> = {
  1: 'reading was aborted',
  2: 'a network error',
  3: 'it could not be decoded',
  4: 'its format or codec is not supported here',
};

/**
 * Draws a frame of the video at `url` (the service's loopback media server) into a canvas,
 * `WIDTH` pixels wide, with Chromium's own decoder in a `<video>` element, on the page's main
 * thread (the fallback where the decoding worker cannot): the one at thumbnailTime (a second in), or the
 * first when that seek does not complete within SEEK_TIMEOUT_MS;
 * answers a JPEG `data:` URL, or why not and whether that is lasting (a media error) or not (a
 * timeout, `timeoutMs`). The video is never added to the page.
 */
function firstFrame(url: string, timeoutMs = DECODE_TIMEOUT_MS): Promise<DecodeAnswer> {
  return new Promise((resolve) => {
    const video = document.createElement('video');
    const done = (r: DecodeAnswer) => {
      clearTimeout(timer);
      clearTimeout(seekTimer);
      video.onloadeddata = video.onseeked = video.onerror = null;
      // Lets go of the connection and the decoder at once.
      video.removeAttribute('src');
      video.load();
      resolve(r);
    };
    const timer = setTimeout(
      () => done({ ok: false, reason: 'No preview yet: its first frame did not come in time', lasting: false }),
      timeoutMs,
    );
    video.onerror = () => {
      const e = video.error;
      done({
        ok: false,
        reason: `No preview: ${MEDIA_ERRORS[e?.code ?? 0] ?? 'it could not be read'}${e?.message ? ` (${e.message})` : ''}`,
        lasting: true,
      });
    };
    let seekTimer: ReturnType<typeof setTimeout> | undefined;
    video.onloadeddata = () => {
      if (!video.videoWidth || !video.videoHeight)
        return done({ ok: false, reason: 'No preview: it holds no picture', lasting: true });
      // Drawn once a seek has completed (at `loadeddata` alone Chromium has, now and then, not yet
      // painted the frame, and the canvas came out black): a second in, where the camera's
      // picture has settled; a recording whose seek does not complete gives its first frame.
      const at = thumbnailTime(video.duration);
      video.currentTime = at;
      if (at > 0) seekTimer = setTimeout(() => (video.currentTime = 0), SEEK_TIMEOUT_MS);
    };
    video.onseeked = () => {
      clearTimeout(seekTimer);
      const canvas = document.createElement('canvas');
      canvas.width = WIDTH;
      canvas.height = Math.max(1, Math.round((WIDTH * video.videoHeight) / video.videoWidth));
      canvas.getContext('2d')!.drawImage(video, 0, 0, canvas.width, canvas.height);
      done({ ok: true, jpeg: canvas.toDataURL('image/jpeg', 0.85) });
    };
    // CORS, so that the canvas may be read back (the server allows it; its URL's token guards the file).
    video.crossOrigin = 'anonymous';
    video.muted = true;
    video.preload = 'auto';
    video.src = url;
  });
}
