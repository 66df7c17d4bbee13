import { describe, expect, it } from 'vitest';
import {
  DARK_PALETTE,
  DRAWING_BACKGROUND,
  KEY_FRACTIONS,
  LIGHT_PALETTE,
  MUTED,
  STEP_DASHES,
  STEP_WIDTHS,
  UNTRACKED_DASH,
  UNTRACKED_WIDTH,
  fractionColour,
  fractionColourIn,
  keyStep,
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

    it(`draws finished work the strongest in ${scheme}: contrast against the drawing rises with the fraction`, () => {
      const c = KEY_FRACTIONS.map((f) => contrast(fractionColourIn(palette, f), palette.background));
      for (let i = 1; i < c.length; i++) expect(c[i]!).toBeGreaterThan(c[i - 1]!);
      expect(contrast(fractionColourIn(palette, 1), palette.background)).toBeGreaterThan(10);
    });

    it(`tells the key's neighbouring steps apart in ${scheme}: 2:1 in lightness, or a dash pattern of their own`, () => {
      for (let i = 1; i < KEY_FRACTIONS.length; i++) {
        const apart = contrast(
          fractionColourIn(palette, KEY_FRACTIONS[i]!),
          fractionColourIn(palette, KEY_FRACTIONS[i - 1]!),
        );
        if (apart < 2) expect(STEP_DASHES[i]).not.toBe(STEP_DASHES[i - 1]);
      }
      expect(new Set(STEP_DASHES).size).toBe(KEY_FRACTIONS.length);
      // Finished: solid and the thickest line.
      expect(STEP_DASHES.at(-1)).toBeUndefined();
      expect(Math.max(...STEP_WIDTHS)).toBe(STEP_WIDTHS.at(-1));
      // "Not tracked" is told from every step by its own dash-dot and a thinner line.
      expect(STEP_DASHES).not.toContain(UNTRACKED_DASH);
      expect(UNTRACKED_WIDTH).toBeLessThan(Math.min(...STEP_WIDTHS));
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

  it('draws a line at its key step: finished only when every stage is done', () => {
    expect([0, 0.1, 0.2, 0.3, 0.6, 0.9, 0.99, 1].map(keyStep)).toEqual([0, 0, 1, 1, 2, 3, 3, 4]);
  });
});
