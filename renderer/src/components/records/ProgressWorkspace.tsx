import { useEffect, useMemo } from 'react';
import type { ProgressEntryView } from '../../../../shared/ipc.js';
import { followProgress } from '../../office-timers.js';
import { useApp } from '../../store.js';
import { statusesOf } from './calendar.js';
import { StatusLooksContext, statusLooks } from './status-looks.js';
import { DayView } from './DayView.js';
import { MonthCalendar } from './MonthCalendar.js';
import { MonthReport } from './MonthReport.js';
import { OutboxList } from './OutboxList.js';
import { ProgressFilters } from './ProgressFilters.js';
import { ProgressHead } from './ProgressHead.js';
import { RecordForm } from './RecordForm.js';

/**
 * The office workspace for progress entries (progress-records-interface.md): a month calendar
 * marking the days with entries and their counts by status, the chosen day's entries, an entry's
 * detail by id, a form to record an entry, and a filter by status and search in details.
 * When the service cannot be reached it shows the entries kept on this computer and says since
 * when; entries recorded meanwhile wait in the outbox and go out when the service is back.
 * Its state is the store's progress and outbox slices (progress-slice.ts, outbox-slice.ts), open
 * while the workspace shows, with its timers (office-timers.ts).
 */
export function ProgressWorkspace() {
  useEffect(() => followProgress(useApp), []);
  const entries = useApp((s) => s.progressEntries);
  const outbox = useApp((s) => s.outbox);
  const status = useApp((s) => s.progressStatus);
  const search = useApp((s) => s.progressSearch);
  const month = useApp((s) => s.progressMonth);
  const day = useApp((s) => s.progressDay);
  const today = useApp((s) => s.progressToday);
  const pickDay = useApp((s) => s.pickDay);
  const setMonth = useApp((s) => s.setProgressMonth);

  // The filter offers every status the service returned, not only the two the form records with.
  const statuses = useMemo(() => statusesOf(entries ?? [], true), [entries]);
  // Each status its own colour and mark, the same in the key, the calendar and the badges (./status-looks.ts).
  const looks = useMemo(() => statusLooks(statusesOf([...(entries ?? []), ...outbox], true)), [entries, outbox]);
  const shown = useMemo(() => {
    const q = search.trim().toLowerCase();
    return (entries ?? []).filter(
      (e) => (status === 'all' || e.status === status) && (!q || e.details.toLowerCase().includes(q)),
    );
  }, [entries, status, search]);
  const byDay = useMemo(() => {
    const m = new Map<string, ProgressEntryView[]>();
    for (const e of shown) m.set(e.date, [...(m.get(e.date) ?? []), e]);
    return m;
  }, [shown]);
  const dayEntries = byDay.get(day) ?? [];
  const dayWaiting = useMemo(() => outbox.filter((i) => i.date === day), [outbox, day]);

  return (
    <StatusLooksContext.Provider value={looks}>
      <main className="records progress-layout">
        <section className="panel" aria-label="Progress calendar">
          <ProgressHead />
          <ProgressFilters statuses={statuses} />
          <MonthCalendar month={month} day={day} today={today} byDay={byDay} onChoose={pickDay} onMonth={setMonth} />
          <MonthReport entries={shown} />
          <p className="calendar-key muted" aria-hidden="true" data-testid="calendar-key">
            {statuses.map((s) => (
              <span key={s} className="key-status">
                <span className={`count ${looks(s).className}`} data-mark={looks(s).mark}>
                  n
                </span>{' '}
                {s}{' '}
              </span>
            ))}
            — entries that day
          </p>
        </section>

        <div className="side">
          <DayView entries={dayEntries} waiting={dayWaiting} />
          <OutboxList />
          <RecordForm />
        </div>
      </main>
    </StatusLooksContext.Provider>
  );
}
