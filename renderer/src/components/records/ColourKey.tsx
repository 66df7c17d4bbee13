import { memo } from 'react';
import { KEY_FRACTIONS, MUTED, fractionColour } from './palette.js';

/**
 * The drawing's colour key: the share of all stages done at each of palette.ts's KEY_FRACTIONS,
 * "not tracked" when any asset is (`untracked`), and a line for each kind of shape drawn other
 * than polylines (`kinds`: shared/asset-measure.ts shapeKind). Wraps within its column (styles.css).
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
      Line colour, share of all stages done:{' '}
      {KEY_FRACTIONS.map((f) => (
        <span key={f} className="key-step" data-fraction={f}>
          <span className="swatch" style={{ background: fractionColour(f) }} /> {f * 100}%
        </span>
      ))}
      {untracked && (
        <span className="key-step">
          <span className="swatch" style={{ background: MUTED }} /> not tracked (dashed)
        </span>
      )}
      {kinds.has('polygon') && <span className="key-step">Outlines (polygons) are filled with their colour.</span>}
      {kinds.has('point') && <span className="key-step">Points are drawn as dots.</span>}
      {kinds.has('other') && (
        <span className="key-step">Dotted: a shape this app does not know, drawn through its points.</span>
      )}
    </p>
  );
});
