import { monthTitle, shiftMonth } from './calendar.js';

/**
 * The progress calendar's filters (a status, or `all`, and a search in details) and its month
 * navigation (`month` YYYY-MM, moved one month back or on).
 */
export function ProgressFilters(props: {
  statuses: readonly string[];
  status: string;
  setStatus(status: string): void;
  search: string;
  setSearch(search: string): void;
  month: string;
  setMonth(month: string): void;
}) {
  const { statuses, status, setStatus, search, setSearch, month, setMonth } = props;
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
