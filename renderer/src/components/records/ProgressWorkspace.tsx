import { useCallback, useMemo, useState } from 'react';
import type { OutboxItemView, ProgressEntryView } from '../../../../shared/ipc.js';
import { statusClass, statusesOf } from './calendar.js';
import { DayView } from './DayView.js';
import { MonthCalendar } from './MonthCalendar.js';
import { MonthReport } from './MonthReport.js';
import { OutboxList } from './OutboxList.js';
import { ProgressFilters } from './ProgressFilters.js';
import { ProgressHead } from './ProgressHead.js';
import { RecordForm } from './RecordForm.js';
import { useProgressData } from './use-progress-data.js';
import { useToday } from './use-today.js';

/**
 * The office workspace for progress entries (progress-records-interface.md): a month calendar
 * marking the days with entries and their counts by status, the chosen day's entries, an entry's
 * detail by id, a form to record an entry, and a filter by status and search in details.
 * When the service cannot be reached it shows the entries kept on this computer and says since
 * when; entries recorded meanwhile wait in the outbox and go out when the service is back.
 */
export function ProgressWorkspace() {
  const today = useToday();
  const [month, setMonth] = useState(today.slice(0, 7));
  const [day, setDay] = useState(today);
  const [status, setStatus] = useState<string>('all');
  const [search, setSearch] = useState('');
  const [editing, setEditing] = useState<OutboxItemView | null>(null);
  // Counts the days a person picked, so the day's entries scroll into view on each pick (DayView).
  const [chosenAt, setChosenAt] = useState(0);
  const choose = useCallback((d: string) => {
    setDay(d);
    setChosenAt((n) => n + 1);
  }, []);
  // Past midnight, a calendar left on today moves on with it (React's adjust-state-on-change pattern).
  const [shownToday, setShownToday] = useState(today);
  if (today !== shownToday) {
    setShownToday(today);
    if (day === shownToday) {
      setDay(today);
      setMonth(today.slice(0, 7));
    }
  }

  const { entries, setEntries, fresh, setFresh, outbox, setOutbox, loadError, loading, load } = useProgressData();

  // The filter offers every status the service returned, not only the two the form records with.
  const statuses = useMemo(() => statusesOf(entries ?? [], true), [entries]);
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
  const dayWaiting = outbox.filter((i) => i.date === day);

  return (
    <main className="records progress-layout">
      <section className="panel" aria-label="Progress calendar">
        <ProgressHead fresh={fresh} loadError={loadError} loading={loading} onRefresh={() => void load()} />
        <ProgressFilters
          statuses={statuses}
          status={status}
          setStatus={setStatus}
          search={search}
          setSearch={setSearch}
          month={month}
          setMonth={setMonth}
        />
        <MonthCalendar month={month} day={day} today={today} byDay={byDay} onChoose={choose} onMonth={setMonth} />
        <MonthReport
          month={month}
          entries={shown}
          filter={{ status, search: search.trim() }}
          project={fresh?.project ?? ''}
          asOf={fresh?.asOf ?? null}
        />
        <p className="calendar-key muted" aria-hidden="true">
          {statuses.map((s) => (
            <span key={s}>
              <span className={`count ${statusClass(s)}`}>n</span> {s}{' '}
            </span>
          ))}
          — entries that day
        </p>
      </section>

      <div className="side">
        <DayView day={day} month={month} entries={dayEntries} waiting={dayWaiting} chosenAt={chosenAt} />

        <OutboxList items={outbox} onChanged={() => void load()} onEdit={setEditing} />

        <RecordForm
          today={today}
          editing={editing}
          onEditDone={() => {
            setEditing(null);
            void load();
          }}
          onRecorded={(e) => {
            setEntries((list) => [...(list ?? []).filter((x) => x.id !== e.id), e]);
            setMonth(e.date.slice(0, 7));
            setDay(e.date);
          }}
          onQueued={(item) => {
            setOutbox((list) => [...list, item]);
            setFresh((f) => f && { ...f, offline: true });
          }}
        />
      </div>
    </main>
  );
}
