import { useApp } from '../../store.js';
import { monthTitle, shiftMonth } from './calendar.js';

/**
 * The progress calendar's filters (a status, or `all`, among `statuses`, and a search in details)
 * and its month navigation (the month shown moved one month back or on).
 */
export function ProgressFilters({ statuses }: { statuses: readonly string[] }) {
  const status = useApp((s) => s.progressStatus);
  const setStatus = useApp((s) => s.setProgressStatus);
  const search = useApp((s) => s.progressSearch);
  const setSearch = useApp((s) => s.setProgressSearch);
  const month = useApp((s) => s.progressMonth);
  const setMonth = useApp((s) => s.setProgressMonth);
  return (
    <>
      <div className="filters">
        <label className="inline">
          Status
          <select value={status} onChange={(e) => setStatus(e.target.value)}>
            <option value="all">All</option>
            {statuses.map((s) => (
              <option key={s}>{s}</option>
            ))}
          </select>
        </label>
        <label className="inline">
          Search details
          <input type="search" value={search} onChange={(e) => setSearch(e.target.value)} />
        </label>
      </div>
      <div className="month-nav">
        <button aria-label="Previous month" onClick={() => setMonth(shiftMonth(month, -1))}>
          ‹
        </button>
        <h3 aria-live="polite">{monthTitle(month)}</h3>
        <button aria-label="Next month" onClick={() => setMonth(shiftMonth(month, 1))}>
          ›
        </button>
      </div>
    </>
  );
}
