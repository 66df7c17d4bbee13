/** How far into a recording its thumbnail is taken (s): a camera's first frame is often black while its sensor settles. */
export const THUMBNAIL_AT_S = 1;
/**
 * The time (s) to take a thumbnail at in a video of `duration` seconds (the container's, read by
 * the service, or HTMLMediaElement.duration: NaN or Infinity when unknown): THUMBNAIL_AT_S in, or
 * halfway through one shorter than twice that, or the start when the length is not known.
 */
export function thumbnailTime(duration: number): number {
  if (!Number.isFinite(duration) || duration <= 0) return 0;
  return Math.min(THUMBNAIL_AT_S, duration / 2);
}
