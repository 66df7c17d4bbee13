import { whenAt } from '../../../../shared/when.js';
import { useApp } from '../../store.js';
import { offlineSentence } from './calendar.js';

/**
 * The progress calendar's heading: how fresh the entries are (up to date as of when, or offline
 * since when, or why they could not be read) and Refresh, busy while a read is in flight.
 */
export function ProgressHead() {
  const fresh = useApp((s) => s.progressFresh);
  const loadError = useApp((s) => s.progressError);
  const loading = useApp((s) => s.progressLoading);
  const loadProgress = useApp((s) => s.loadProgress);
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
      <button onClick={() => void loadProgress()} disabled={loading} aria-busy={loading}>
        {loading ? 'Refreshing…' : 'Refresh'}
      </button>
    </header>
  );
}
