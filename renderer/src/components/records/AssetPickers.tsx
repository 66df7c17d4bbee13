import { memo } from 'react';
import { useApp } from '../../store.js';
import { offlineSentence } from './calendar.js';

/**
 * The Assets view's choices: a structure by its friendly name and a category (ids as values), the
 * "as of" sentence when what is shown is the copy kept on this computer (the drawing's, else the
 * lists'), and the read's problem as an alert. It selects its own keys of the store, so a hover
 * over the drawing (the view's focused asset) does not render it again.
 */
export const AssetPickers = memo(function AssetPickers() {
  const structures = useApp((s) => s.assetStructures);
  const categories = useApp((s) => s.assetCategories);
  const structure = useApp((s) => s.assetsStructure);
  const categoryId = useApp((s) => s.assetsCategory);
  const chooseStructure = useApp((s) => s.chooseAssetStructure);
  const chooseCategory = useApp((s) => s.chooseAssetCategory);
  const asOf = useApp((s) => s.assetsOffline ?? s.assetListsOffline);
  const problem = useApp((s) => s.assetsProblem);
  return (
    <section className="panel asset-pickers" aria-label="Choose assets">
      <h2>Assets</h2>
      <div className="filters">
        <label className="inline">
          Structure
          <select value={structure} onChange={(e) => chooseStructure(e.target.value)}>
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
          <select value={categoryId} onChange={(e) => chooseCategory(e.target.value)}>
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
});
