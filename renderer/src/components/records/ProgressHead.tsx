import { whenAt } from '../../../../shared/when.js';
import { offlineSentence } from './calendar.js';

/** How fresh the entries shown are: as of when (ISO 8601), whether from this computer's copy while offline and why, and the project. */
export interface Freshness {
  asOf: string;
  offline: boolean;
  offlineReason: string | null;
  project: string;
}

/**
 * The progress calendar's heading: how fresh the entries are (up to date as of when, or offline
 * since when, or why they could not be read) and Refresh, busy while `loading`.
 */
export function ProgressHead({
  fresh,
  loadError,
  loading,
  onRefresh,
}: {
  fresh: Freshness | null;
  loadError: string | null;
  loading: boolean;
  onRefresh(): void;
}) {
  return (
    <header className="records-head">
      <h2>Progress</h2>
      <span
        className={fresh?.offline || loadError ? 'offline' : 'muted'}
        data-testid="progress-as-of"
        role="status"
        title={fresh?.offlineReason ?? undefined}
      >
        {loadError
          ? loadError
          : !fresh
            ? 'Loading…'
            : fresh.offline
              ? offlineSentence(fresh.asOf)
              : `Up to date as of ${whenAt(fresh.asOf)}`}
      </span>
      <button onClick={onRefresh} disabled={loading} aria-busy={loading}>
        {loading ? 'Refreshing…' : 'Refresh'}
      </button>
    </header>
  );
}
