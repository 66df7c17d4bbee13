import { memo } from 'react';
import {
  KEY_FRACTIONS,
  MUTED,
  STEP_DASHES,
  STEP_WIDTHS,
  UNTRACKED_DASH,
  UNTRACKED_WIDTH,
  fractionColour,
} from './palette.js';

/** A short line drawn as the shapes are: its colour, dash pattern and width (screen pixels). */
function Sample({ colour, dash, width }: { colour: string; dash: string | undefined; width: number }) {
  return (
    <svg className="key-sample" width="34" height="12" aria-hidden="true" data-testid="key-sample">
      <line
        x1="4"
        y1="6"
        x2="30"
        y2="6"
        stroke={colour}
        strokeWidth={width}
        strokeDasharray={dash}
        strokeLinecap="round"
      />
    </svg>
  );
}

/**
 * The drawing's colour key: the share of all stages done at each of palette.ts's KEY_FRACTIONS,
 * each a sample of the line it is drawn with (its colour, and its dash pattern as a second cue:
 * dots when not started, ever longer dashes, finished solid, thickest and the strongest colour),
 * "not tracked" when any asset is (`untracked`: its own dash-dot, thinner), and a line for each
 * kind of shape drawn other than polylines (`kinds`: shared/asset-measure.ts shapeKind). Wraps
 * within its column (styles.css).
 */
export const ColourKey = memo(function ColourKey({
  untracked,
  kinds,
}: {
  untracked: boolean;
  kinds: ReadonlySet<string>;
}) {
  return (
    <p className="colour-key" data-testid="colour-key">
      Line, share of all stages done:{' '}
      {KEY_FRACTIONS.map((f, i) => (
        <span key={f} className="key-step" data-fraction={f}>
          <Sample colour={fractionColour(f)} dash={STEP_DASHES[i]} width={STEP_WIDTHS[i]!} /> {f * 100}%
          {f === 1 ? ' (finished)' : ''}
        </span>
      ))}
      {untracked && (
        <span className="key-step" data-testid="key-untracked">
          <Sample colour={MUTED} dash={UNTRACKED_DASH} width={UNTRACKED_WIDTH} /> not tracked
        </span>
      )}
      {kinds.has('polygon') && <span className="key-step">Outlines (polygons) are filled with their colour.</span>}
      {kinds.has('point') && <span className="key-step">Points are drawn as dots.</span>}
      {kinds.has('other') && (
        <span className="key-step">Ringed points: a shape this app does not know, drawn through its points.</span>
      )}
    </p>
  );
});
