import { wholeQueueCounts } from '../../../../shared/batch-progress.js';
import type { QueueFilter } from '../../queue-slice.js';
import { useApp } from '../../store.js';

const FILTERS: [QueueFilter, string][] = [
  ['all', 'All'],
  ['active', 'Active'],
  ['needs-you', 'Needs you'],
  ['completed', 'Completed'],
];

/**
 * The queue's filters with their counts, "Show every file" and "Clear completed". The rows of
 * earlier batches are listed and counted here (shared/batch-progress.ts wholeQueueCounts), though
 * the bar above is this batch's.
 */
export function QueueTools() {
  const filter = useApp((s) => s.filter);
  const setFilter = useApp((s) => s.setFilter);
  const totals = useApp((s) => s.totals);
  const folding = useApp((s) => s.folding);
  const setDetailed = useApp((s) => s.setDetailed);
  const clearCompleted = useApp((s) => s.clearCompleted);
  const whole = wholeQueueCounts(totals);
  const count = {
    all: whole.files,
    active: totals.uploading + totals.queued + totals.retrying,
    'needs-you': totals.needYou,
    completed: whole.completed,
  };
  return (
    <div className="queue-tools">
      <div role="group" aria-label="Show" className="filter-group">
        {FILTERS.map(([f, label]) => (
          <button key={f} aria-pressed={filter === f} onClick={() => setFilter(f)}>
            {label} ({count[f]})
          </button>
        ))}
      </div>
      <div className="tools-right">
        <button
          aria-pressed={folding.detailed}
          onClick={() => setDetailed(!folding.detailed)}
          title="List every file under its capture, and every completed capture"
        >
          Show every file
        </button>
        <button className="link" disabled={whole.completed === 0} onClick={() => void clearCompleted()}>
          Clear completed
        </button>
      </div>
    </div>
  );
}
