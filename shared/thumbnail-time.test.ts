import { describe, expect, it } from 'vitest';
import { THUMBNAIL_AT_S, thumbnailTime } from './thumbnail-time.js';

describe('thumbnailTime', () => {
  it('is a second in, where a camera has settled, not the first frame', () => {
    expect(THUMBNAIL_AT_S).toBe(1);
    expect(thumbnailTime(4)).toBe(1);
    expect(thumbnailTime(3600)).toBe(1);
  });
  it('is halfway through a recording shorter than two seconds (the Insta360 fixture is 1.1 s)', () => {
    expect(thumbnailTime(1.1)).toBeCloseTo(0.55);
    expect(thumbnailTime(0.2)).toBeCloseTo(0.1);
  });
  it('is the start when the length is not known', () => {
    expect(thumbnailTime(Number.NaN)).toBe(0);
    expect(thumbnailTime(Number.POSITIVE_INFINITY)).toBe(0);
    expect(thumbnailTime(0)).toBe(0);
  });
});
