import { describe, expect, it } from 'vitest';
import { DRAWING_BACKGROUND, KEY_FRACTIONS, MUTED, fractionColour } from './palette.js';

// WCAG 1.4.11 (non-text contrast): graphics that carry meaning stand at least 3:1 against what is
// next to them. Every colour a line of the Assets drawing can take, finished work included, and
// the "not tracked" mark, against the drawing's background (records.e2e.ts checks that the
// stylesheet draws that background).

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
  it('draws every fraction done, and the not-tracked mark, at 3:1 or more against the drawing', () => {
    for (let i = 0; i <= 100; i++) expect(contrast(fractionColour(i / 100), DRAWING_BACKGROUND)).toBeGreaterThanOrEqual(3);
    expect(contrast(MUTED, DRAWING_BACKGROUND)).toBeGreaterThanOrEqual(3);
  });

  it('keeps its lightness rising with the fraction, so the key reads in greyscale', () => {
    const l = KEY_FRACTIONS.map((f) => luminance(fractionColour(f)));
    for (let i = 1; i < l.length; i++) expect(l[i]!).toBeGreaterThan(l[i - 1]!);
  });

  it('tells a low contrast when there is one (the check itself)', () => {
    expect(contrast('rgb(253, 234, 69)', DRAWING_BACKGROUND)).toBeLessThan(1.2);
    expect(contrast('#000000', '#ffffff')).toBeCloseTo(21, 5);
  });
});
