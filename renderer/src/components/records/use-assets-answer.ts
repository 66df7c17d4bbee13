import { useEffect, useState } from 'react';
import type { AssetCategoryView, AssetView } from '../../../../shared/ipc.js';
import { api, unwrap } from '../../api.js';

/**
 * The Assets view's reads (progress-records-interface.md §4): the categories and structures once,
 * then the assets of the chosen `structure` and `categoryId` (null while read). `offline` and
 * `listsOffline` are the time (ISO 8601) the service gave the copy kept on this computer, when the
 * drawing or the lists come from it; `problem` the main process's message when a read failed.
 */
export function useAssetsAnswer(structure: string, categoryId: string) {
  const [categories, setCategories] = useState<AssetCategoryView[]>([]);
  const [structures, setStructures] = useState<{ id: string; name: string }[]>([]);
  const [assets, setAssets] = useState<AssetView[] | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const [offline, setOffline] = useState<string | null>(null);
  const [listsOffline, setListsOffline] = useState<string | null>(null);

  useEffect(() => {
    unwrap(api['assets.categories']())
      .then((r) => {
        setCategories(r.categories);
        setStructures(r.structures);
        setListsOffline(r.offline ? r.asOf : null);
      })
      .catch((err: unknown) => setProblem((err as Error).message));
  }, []);
  useEffect(() => {
    if (!structure || !categoryId) return;
    setAssets(null);
    unwrap(api['assets.list']({ structure, category: categoryId }))
      .then((r) => {
        // The assets bench (scripts/bench-assets.ts) times the first draw from this mark.
        performance.mark('assets:answer');
        setAssets(r.assets);
        setOffline(r.offline ? r.asOf : null);
        setProblem(null);
      })
      .catch((err: unknown) => setProblem((err as Error).message));
  }, [structure, categoryId]);
  return { categories, structures, assets, problem, offline, listsOffline };
}
