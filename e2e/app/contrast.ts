/**
 * WCAG 2's colour arithmetic for the contrast checks (WCAG 1.4.3 text 4.5:1, 1.4.11 graphics 3:1):
 * relative luminance and contrast ratio of colours written as `#rrggbb` or as the browser computes
 * them, `rgb(r, g, b)` / `rgba(r, g, b, a)` (the alpha is not weighed).
 */

/** The red, green and blue channels (0–255) of `#rrggbb`, `rgb(…)` or `rgba(…)`; throws on anything else. */
function channels(colour: string): number[] {
  const hex = /^#([0-9a-f]{2})([0-9a-f]{2})([0-9a-f]{2})$/i.exec(colour);
  if (hex) return hex.slice(1).map((h) => parseInt(h, 16));
  const dec = /^rgba?\((\d+), (\d+), (\d+)/.exec(colour);
  if (dec) return dec.slice(1).map(Number);
  throw new Error(`not a colour: ${colour}`);
}

/** WCAG 2's relative luminance of `colour`, from 0 (black) to 1 (white). */
export function luminance(colour: string): number {
  const [r, g, b] = channels(colour).map((v) => {
    const c = v / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  }) as [number, number, number];
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

/** WCAG 2's contrast ratio of two colours, from 1 (the same) to 21 (black on white), whichever is lighter. */
export function contrast(a: string, b: string): number {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x) as [number, number];
  return (hi + 0.05) / (lo + 0.05);
}
