import type { NamedStructure } from '../../../shared/ipc.js';
import { CatalogImport } from './CatalogImport.js';

/** Structures and their designs with friendly names (the ids come out of band). */
export function StructuresEditor({
  value,
  onChange,
}: {
  value: NamedStructure[];
  onChange(v: NamedStructure[]): void;
}) {
  const set = (i: number, s: NamedStructure) => onChange(value.map((x, j) => (j === i ? s : x)));
  return (
    <fieldset className="structures">
      <legend>Structures and designs</legend>
      <CatalogImport value={value} onChange={onChange} />
      {value.map((s, i) => (
        <div key={i} className="structure">
          <input
            aria-label="Structure name"
            placeholder="Name, e.g. Tower A"
            value={s.name}
            onChange={(e) => set(i, { ...s, name: e.target.value })}
          />
          <input
            aria-label="Structure id"
            placeholder="Structure id"
            value={s.id}
            onChange={(e) => set(i, { ...s, id: e.target.value })}
          />
          <button type="button" className="link" onClick={() => onChange(value.filter((_, j) => j !== i))}>
            Remove
          </button>
          {s.designs.map((d, k) => (
            <div key={k} className="design">
              <input
                aria-label="Design name"
                placeholder="Design name, e.g. Level 2"
                value={d.name}
                onChange={(e) =>
                  set(i, { ...s, designs: s.designs.map((x, m) => (m === k ? { ...x, name: e.target.value } : x)) })
                }
              />
              <input
                aria-label="Design id"
                placeholder="Design id"
                value={d.id}
                onChange={(e) =>
                  set(i, { ...s, designs: s.designs.map((x, m) => (m === k ? { ...x, id: e.target.value } : x)) })
                }
              />
            </div>
          ))}
          <button type="button" onClick={() => set(i, { ...s, designs: [...s.designs, { id: '', name: '' }] })}>
            Add design
          </button>
        </div>
      ))}
      <button type="button" onClick={() => onChange([...value, { id: '', name: '', designs: [] }])}>
        Add structure
      </button>
    </fieldset>
  );
}
