import { interpolateCividis } from 'd3-scale-chromatic';

// Assets are coloured by how far they got on cividis, a sequential palette made to
// be read by people with colour-vision deficiency and whose lightness rises steadily from 0 to 1,
// so that it also reads in greyscale print: a line 5 % done is dark blue, one done is light yellow.

/** The colour of a fraction done (0–1) as `rgb(r, g, b)`. */
export const fractionColour = (fraction: number): string => interpolateCividis(Math.min(1, Math.max(0, fraction)));

/** The fractions the colour key shows. */
export const KEY_FRACTIONS = [0, 0.25, 0.5, 0.75, 1] as const;
