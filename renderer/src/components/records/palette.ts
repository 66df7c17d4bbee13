import { interpolateCividis } from 'd3-scale-chromatic';

// Assets are coloured by how far they got on cividis, a sequential palette made to be read by
// people with colour-vision deficiency and whose lightness rises steadily, so that it also reads
// in greyscale print. Only part of it is used, so that every colour, finished work included,
// stands at least 3:1 against the drawing's background, as WCAG 1.4.11 asks of graphics that carry
// meaning. On the light background that is its darker part (0 to 0.58: a line 5 % done is dark
// blue, one done is olive grey; the full scale ends in a light yellow of 1.17:1). On the dark
// background of the dark theme (prefers-color-scheme) it is its lighter part (0.45 to 1: grey to
// yellow, finished work the brightest). styles.css gives the same values as CSS custom properties
// (--drawing-bg, --untracked, --stage-0…4, --cividis-from/-to); palette.test.ts checks they agree.

/** One scheme's drawing colours: background and "not tracked" mark as `#rrggbb`, and the part of cividis used (0–1). */
export interface DrawingPalette {
  /** The drawing's background (styles.css `--drawing-bg`), which every colour is measured against. */
  readonly background: string;
  /** Assets marked do-not-track (drawn dashed, outside the figures) (`--untracked`). */
  readonly untracked: string;
  /** Where on cividis 0 % done is drawn (`--cividis-from`). */
  readonly from: number;
  /** Where on cividis 100 % done is drawn (`--cividis-to`). */
  readonly to: number;
}

/** The light theme's drawing: the darker part of cividis on a near-white ground. */
export const LIGHT_PALETTE: DrawingPalette = { background: '#f7f9fb', untracked: '#737c87', from: 0, to: 0.58 };

/** The dark theme's drawing: the lighter part of cividis on a near-black ground. */
export const DARK_PALETTE: DrawingPalette = { background: '#10151a', untracked: '#8b95a1', from: 0.45, to: 1 };

/** The media query of the dark theme, as in styles.css (paper always prints light). */
export const DARK_QUERY = 'screen and (prefers-color-scheme: dark)';

const darkQuery = typeof matchMedia === 'function' ? matchMedia(DARK_QUERY) : undefined;

/** The palette of the scheme in force now (light outside a browser). */
export const currentPalette = (): DrawingPalette => (darkQuery?.matches ? DARK_PALETTE : LIGHT_PALETTE);

/** The light drawing's background, which the light colours are measured against. */
export const DRAWING_BACKGROUND = LIGHT_PALETTE.background;

/** How far along cividis a finished asset is drawn on the light background (0–1): 3.2:1 against it. */
export const CIVIDIS_END = LIGHT_PALETTE.to;

/**
 * The colour of assets marked do-not-track in the scheme in force (4.0:1 on the light drawing,
 * 6.0:1 on the dark). A live binding: it changes when the scheme does, and a redraw picks it up.
 */
export let MUTED = currentPalette().untracked;
darkQuery?.addEventListener('change', () => {
  MUTED = currentPalette().untracked;
});

/** The colour of a fraction done (0–1, clamped) in a given palette, as `rgb(r, g, b)`. */
export const fractionColourIn = (palette: DrawingPalette, fraction: number): string =>
  interpolateCividis(palette.from + (palette.to - palette.from) * Math.min(1, Math.max(0, fraction)));

/** The colour of a fraction done (0–1, clamped) in the scheme in force, as `rgb(r, g, b)`. */
export const fractionColour = (fraction: number): string => fractionColourIn(currentPalette(), fraction);

/** The fractions the colour key shows (styles.css `--stage-0` … `--stage-4`). */
export const KEY_FRACTIONS = [0, 0.25, 0.5, 0.75, 1] as const;
