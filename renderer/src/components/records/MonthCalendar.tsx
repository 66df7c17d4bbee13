import type { ProgressEntryView } from '../../../../shared/ipc.js';
import type { KeyboardEvent } from 'react';
import { useEffect, useRef } from 'react';
import { dayForKey, monthGrid, monthTitle, statusesOf } from './calendar.js';
import { useStatusLook } from './status-looks.js';

const WEEKDAYS = ['Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Sun'];

/**
 * A month (YYYY-MM) as a WAI-ARIA grid of weeks: each day a button named by its date and its
 * entries' counts by status, every status the service returned (read out; the counts, each
 * status in its own colour and mark (./status-looks.ts), are for the eye), today marked
 * `aria-current="date"`, the chosen day selected. One tab stop (the chosen day, else today, else
 * the 1st); the keys of WAI-ARIA's date grid move the focus and the choice with it, and
 * `onMonth` turns the month when they leave it.
 */
export function MonthCalendar(props: {
  month: string;
  day: string;
  today: string;
  byDay: Map<string, ProgressEntryView[]>;
  onChoose: (day: string) => void;
  onMonth?: (month: string) => void;
}) {
  const { month, day, today, byDay, onChoose, onMonth } = props;
  const look = useStatusLook();
  const cells = monthGrid(month);
  const weeks = Array.from({ length: Math.ceil(cells.length / 7) }, (_, w) => cells.slice(w * 7, w * 7 + 7));
  const stop = cells.includes(day) ? day : cells.includes(today) ? today : `${month}-01`;
  const grid = useRef<HTMLDivElement>(null);
  // The day a key moved to: focused once it is drawn (in the next month, after the month turned).
  const pending = useRef<string | null>(null);
  useEffect(() => {
    if (!pending.current) return;
    const el = grid.current?.querySelector<HTMLElement>(`[data-day="${pending.current}"]`);
    if (el) {
      el.focus();
      pending.current = null;
    }
  });
  const onKey = (e: KeyboardEvent<HTMLDivElement>) => {
    const from = e.target instanceof HTMLElement ? e.target.dataset.day : undefined;
    if (!from || e.altKey || e.ctrlKey || e.metaKey) return;
    const to = dayForKey(from, e.key, e.shiftKey);
    if (!to) return;
    e.preventDefault();
    if (to.slice(0, 7) !== month) {
      if (!onMonth) return;
      onMonth(to.slice(0, 7));
    }
    pending.current = to;
    onChoose(to);
    grid.current?.querySelector<HTMLElement>(`[data-day="${to}"]`)?.focus();
  };
  return (
    <div className="calendar" role="grid" aria-label={`Entries in ${monthTitle(month)}`} ref={grid} onKeyDown={onKey}>
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
            const counts = statusesOf(list).map((s) => [s, list.filter((e) => e.status === s).length] as const);
            return (
              <div key={d} role="gridcell" aria-selected={d === day}>
                <button
                  className={`day${d === day ? ' chosen' : ''}${d === today ? ' today' : ''}${list.length ? ' has-entries' : ''}`}
                  aria-current={d === today ? 'date' : undefined}
                  data-day={d}
                  tabIndex={d === stop ? 0 : -1}
                  onClick={() => onChoose(d)}
                >
                  <span className="num" aria-hidden="true">
                    {Number(d.slice(8))}
                  </span>
                  <span className="sr-only">{`${d}: ${list.length ? counts.map(([s, n]) => `${n} ${s}`).join(', ') : 'no entries'}`}</span>
                  {counts.map(([s, n]) => (
                    <span
                      key={s}
                      className={`count ${look(s).className}`}
                      data-mark={look(s).mark}
                      title={s}
                      aria-hidden="true"
                    >
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
