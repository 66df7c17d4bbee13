import type { PlaceOption, placeOptions } from '../../placement.js';

/** The id of the "Structure · design" list, which Alt+S focuses. */
export const PLACE_ID = 'apply-place';

/** A capture's type as the bar holds it: unset (`''`) until chosen. */
export type ChosenType = '' | 'interior' | 'exterior';

/**
 * The apply bar's two lists: the structure · design (`place`, one of `options`, grouped by
 * structure) and the type, marked "(last used here)" when `typeFromLast` chose it.
 */
export function PlaceFields(props: {
  structures: Parameters<typeof placeOptions>[0];
  options: readonly PlaceOption[];
  place: string;
  choosePlace(value: string): void;
  type: ChosenType;
  typeFromLast: boolean;
  chooseType(type: ChosenType): void;
}) {
  const { structures, options, place, type, typeFromLast } = props;
  return (
    <>
      <label>
        Structure · design
        <select
          id={PLACE_ID}
          aria-keyshortcuts="Alt+S"
          value={place}
          onChange={(e) => props.choosePlace(e.target.value)}
        >
          <option value="">Choose…</option>
          {structures.map((s) => (
            <optgroup key={s.id} label={s.name}>
              {options
                .filter((o) => o.structure === s.id)
                .map((o) => (
                  <option key={o.value} value={o.value}>
                    {o.label}
                  </option>
                ))}
            </optgroup>
          ))}
        </select>
      </label>
      <label>
        Type
        <select value={type} onChange={(e) => props.chooseType(e.target.value as ChosenType)}>
          <option value="">Choose…</option>
          <option value="interior">Interior{typeFromLast && type === 'interior' ? ' (last used here)' : ''}</option>
          <option value="exterior">Exterior{typeFromLast && type === 'exterior' ? ' (last used here)' : ''}</option>
        </select>
      </label>
    </>
  );
}
