import { interpolateCividis } from 'd3-scale-chromatic';

// Assets are coloured by how far they got on cividis, a sequential palette made to be read by
// people with colour-vision deficiency and whose lightness rises steadily, so that it also reads
// in greyscale print. Only its darker part is used (0 to CIVIDIS_END), so that every colour,
// finished work included, stands at least 3:1 against the drawing's background, as WCAG 1.4.11
// asks of graphics that carry meaning: a line 5 % done is dark blue, one done is olive grey.
// (The full scale ends in a light yellow of 1.17:1, the hardest thing on the drawing to see.)

/** The drawing's background (styles.css `.asset-drawing`), which every colour is measured against. */
export const DRAWING_BACKGROUND = '#f7f9fb';

/** How far along cividis a finished asset is drawn (0–1): 3.2:1 against DRAWING_BACKGROUND. */
export const CIVIDIS_END = 0.58;

/** The colour of assets marked do-not-track (drawn dashed, outside the figures): 4.0:1 against the background. */
export const MUTED = '#737c87';

/** The colour of a fraction done (0–1) as `rgb(r, g, b)`. */
export const fractionColour = (fraction: number): string => interpolateCividis(CIVIDIS_END * Math.min(1, Math.max(0, fraction)));

/** The fractions the colour key shows. */
export const KEY_FRACTIONS = [0, 0.25, 0.5, 0.75, 1] as const;
