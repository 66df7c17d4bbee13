import type { AssetCategoryView } from '../../../../shared/ipc.js';
import { offlineSentence } from './calendar.js';

/**
 * The Assets view's choices: a structure by its friendly name and a category (ids as values), the
 * "as of" sentence when what is shown is the copy kept on this computer (`asOf`, ISO 8601), and
 * the read's `problem` as an alert.
 */
export function AssetPickers(props: {
  structures: { id: string; name: string }[];
  categories: AssetCategoryView[];
  structure: string;
  categoryId: string;
  onStructure: (id: string) => void;
  onCategory: (id: string) => void;
  asOf: string | null;
  problem: string | null;
}) {
  const { structures, categories, structure, categoryId, asOf, problem } = props;
  return (
    <section className="panel" aria-label="Choose assets">
      <h2>Assets</h2>
      <div className="filters">
        <label className="inline">
          Structure
          <select value={structure} onChange={(e) => props.onStructure(e.target.value)}>
            <option value="">Choose…</option>
            {structures.map((s) => (
              <option key={s.id} value={s.id}>
                {s.name}
              </option>
            ))}
          </select>
        </label>
        <label className="inline">
          Category
          <select value={categoryId} onChange={(e) => props.onCategory(e.target.value)}>
            <option value="">Choose…</option>
            {categories.map((c) => (
              <option key={c.id} value={c.id}>
                {c.name}
              </option>
            ))}
          </select>
        </label>
      </div>
      {asOf && (
        <p className="offline" role="status" data-testid="assets-as-of">
          {offlineSentence(asOf)}
        </p>
      )}
      {problem && (
        <p className="error" role="alert">
          {problem}
        </p>
      )}
    </section>
  );
}
