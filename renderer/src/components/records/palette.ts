import { interpolateCividis } from 'd3-scale-chromatic';

// Assets are coloured by how far they got on cividis, a sequential palette made to be read by
// people with colour-vision deficiency whose lightness changes steadily, so that it also reads in
// greyscale print. Only part of it is used, so that every colour stands at least 3:1 against the
// drawing's background, as WCAG 1.4.11 asks of graphics that carry meaning, and it runs so that
// finished work is the strongest: the most contrast against the ground. On the light background
// that is its darker part run backwards (0.58 to 0: a line not started is olive grey at 3.2:1,
// one finished dark blue at 15:1); on the dark background of the dark theme
// (prefers-color-scheme) its lighter part (0.45 to 1: grey to yellow, finished the brightest).
//
// Within that range the key's neighbouring steps (0, 25, 50, 75, 100 %) can differ by only
// about 1.4–1.5:1 in lightness (five steps of 2:1 would need 16:1 between the ends, and the range
// holds 4.6:1), so each step also carries a dash pattern of its own (STEP_DASHES): more ink the
// more is done, finished solid and thickest. "Not tracked" is thinner with a dash-dot of its own.
// styles.css gives the same values as CSS custom properties (--drawing-bg, --untracked,
// --stage-0…4, --cividis-from/-to); palette.test.ts checks they agree.

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

/** The light theme's drawing: the darker part of cividis, run backwards (finished the darkest), on a near-white ground. */
export const LIGHT_PALETTE: DrawingPalette = { background: '#f7f9fb', untracked: '#737c87', from: 0.58, to: 0 };

/** The dark theme's drawing: the lighter part of cividis on a near-black ground. */
export const DARK_PALETTE: DrawingPalette = { background: '#10151a', untracked: '#8b95a1', from: 0.45, to: 1 };

/** The media query of the dark theme, as in styles.css (paper always prints light). */
const DARK_QUERY = 'screen and (prefers-color-scheme: dark)';

const darkQuery = typeof matchMedia === 'function' ? matchMedia(DARK_QUERY) : undefined;

/** The palette of the scheme in force now (light outside a browser). */
const currentPalette = (): DrawingPalette => (darkQuery?.matches ? DARK_PALETTE : LIGHT_PALETTE);

/** The light drawing's background, which the light colours are measured against. */
export const DRAWING_BACKGROUND = LIGHT_PALETTE.background;

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

/**
 * The step of the colour key a fraction done (0–1) is drawn with: 4 only when every stage is
 * done, else the nearest of 0, 25, 50 and 75 %.
 */
export const keyStep = (fraction: number): 0 | 1 | 2 | 3 | 4 =>
  fraction >= 1 ? 4 : (Math.min(3, Math.max(0, Math.round(fraction * 4))) as 0 | 1 | 2 | 3);

/**
 * Each key step's second cue, an SVG `stroke-dasharray` in screen pixels (the strokes do not
 * scale), `undefined` for solid: dots when nothing is done, then ever longer dashes, finished
 * solid. The lines have round caps, which add half the width (4 px) to each end of a dash, so
 * each gap is the width plus what shows of it: 4 px between dots, 3 px, then 2 px.
 */
export const STEP_DASHES = ['0.1 8', '2 7', '7 6', '16 6', undefined] as const;

/** Each key step's stroke width in screen pixels: finished the thickest. */
export const STEP_WIDTHS = [4, 4, 4, 4, 5] as const;

/** "Not tracked": a thinner line, dash-dot (2.5 px showing between, round caps included), in the scheme's untracked colour. */
export const UNTRACKED_DASH = '10 5 0.1 5';
export const UNTRACKED_WIDTH = 2.5;
