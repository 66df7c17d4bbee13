import type { ProgressEntryView } from '../../../../shared/ipc.js';
import { monthGrid, monthTitle, statusClass } from './calendar.js';
import { STATUSES } from './RecordForm.js';

const WEEKDAYS = ['Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Sun'];

/**
 * A month (YYYY-MM) as a WAI-ARIA grid of weeks: each day a button named by its date and its
 * entries' counts by status (read out; the coloured counts are for the eye), today marked
 * `aria-current="date"`, the chosen day selected.
 */
export function MonthCalendar(props: { month: string; day: string; today: string; byDay: Map<string, ProgressEntryView[]>; onChoose: (day: string) => void }) {
  const { month, day, today, byDay, onChoose } = props;
  const cells = monthGrid(month);
  const weeks = Array.from({ length: Math.ceil(cells.length / 7) }, (_, w) => cells.slice(w * 7, w * 7 + 7));
  return (
    <div className="calendar" role="grid" aria-label={`Entries in ${monthTitle(month)}`}>
      <div role="row" className="week">
        {WEEKDAYS.map((w) => (
          <div key={w} className="weekday" role="columnheader">
            {w}
          </div>
        ))}
      </div>
      {weeks.map((week, w) => (
        <div role="row" className="week" key={week.find(Boolean) ?? w}>
          {week.map((d, i) => {
            if (!d) return <div key={`blank-${i}`} className="blank" role="gridcell" />;
            const list = byDay.get(d) ?? [];
            const counts = STATUSES.map((s) => [s, list.filter((e) => e.status === s).length] as const).filter(([, n]) => n > 0);
            return (
              <div key={d} role="gridcell" aria-selected={d === day}>
                <button
                  className={`day${d === day ? ' chosen' : ''}${d === today ? ' today' : ''}${list.length ? ' has-entries' : ''}`}
                  aria-current={d === today ? 'date' : undefined}
                  data-day={d}
                  onClick={() => onChoose(d)}
                >
                  <span className="num" aria-hidden="true">
                    {Number(d.slice(8))}
                  </span>
                  <span className="sr-only">{`${d}: ${list.length ? counts.map(([s, n]) => `${n} ${s}`).join(', ') : 'no entries'}`}</span>
                  {counts.map(([s, n]) => (
                    <span key={s} className={`count ${statusClass(s)}`} aria-hidden="true">
                      {n}
                    </span>
                  ))}
                </button>
              </div>
            );
          })}
        </div>
      ))}
    </div>
  );
}
