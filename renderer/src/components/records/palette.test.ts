import { describe, expect, it } from 'vitest';
import {
  DARK_PALETTE,
  DRAWING_BACKGROUND,
  KEY_FRACTIONS,
  LIGHT_PALETTE,
  MUTED,
  fractionColour,
  fractionColourIn,
} from './palette.js';

// WCAG 1.4.11 (non-text contrast): graphics that carry meaning stand at least 3:1 against what is
// next to them. Every colour a line of the Assets drawing can take, finished work included, and
// the "not tracked" mark, against the drawing's background, in the light and the dark theme
// (dark-theme.e2e.ts checks that styles.css gives the drawing these same colours).

/** WCAG 2's relative luminance of `#rrggbb` or `rgb(r, g, b)`. */
function luminance(colour: string): number {
  const hex = /^#([0-9a-f]{2})([0-9a-f]{2})([0-9a-f]{2})$/i.exec(colour);
  const dec = /^rgb\((\d+), (\d+), (\d+)\)$/.exec(colour);
  const m = hex ? hex.slice(1).map((h) => parseInt(h, 16)) : dec!.slice(1).map(Number);
  const [r, g, b] = m.map((v) => {
    const c = v / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  }) as [number, number, number];
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}
const contrast = (a: string, b: string) => {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x) as [number, number];
  return (hi + 0.05) / (lo + 0.05);
};

describe('the Assets palette', () => {
  for (const [scheme, palette] of [
    ['light', LIGHT_PALETTE],
    ['dark', DARK_PALETTE],
  ] as const) {
    it(`draws every fraction done, and the not-tracked mark, at 3:1 or more against the ${scheme} drawing`, () => {
      for (let i = 0; i <= 100; i++)
        expect(contrast(fractionColourIn(palette, i / 100), palette.background)).toBeGreaterThanOrEqual(3);
      expect(contrast(palette.untracked, palette.background)).toBeGreaterThanOrEqual(3);
    });

    it(`keeps its lightness rising with the fraction in ${scheme}, so the key reads in greyscale`, () => {
      const l = KEY_FRACTIONS.map((f) => luminance(fractionColourIn(palette, f)));
      for (let i = 1; i < l.length; i++) expect(l[i]!).toBeGreaterThan(l[i - 1]!);
    });
  }

  it('has a dark drawing that is dark and a light one that is light', () => {
    expect(luminance(DARK_PALETTE.background)).toBeLessThan(0.05);
    expect(luminance(LIGHT_PALETTE.background)).toBeGreaterThan(0.9);
  });

  it('uses the light palette outside a browser (no prefers-color-scheme to follow)', () => {
    expect(fractionColour(1)).toBe(fractionColourIn(LIGHT_PALETTE, 1));
    expect(MUTED).toBe(LIGHT_PALETTE.untracked);
    expect(DRAWING_BACKGROUND).toBe(LIGHT_PALETTE.background);
  });

  it('tells a low contrast when there is one (the check itself)', () => {
    expect(contrast('rgb(253, 234, 69)', DRAWING_BACKGROUND)).toBeLessThan(1.2);
    expect(contrast('#000000', '#ffffff')).toBeCloseTo(21, 5);
  });
});
