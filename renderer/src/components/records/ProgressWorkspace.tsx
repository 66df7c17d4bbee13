import { useCallback, useEffect, useMemo, useState } from 'react';
import type { ProgressEntryView } from '../../../../shared/ipc.js';
import { api, unwrap } from '../../api.js';

const STATUSES = ['In Progress', 'Completed'] as const;
const WEEKDAYS = ['Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Sun'];

/** Today in the person's local time, YYYY-MM-DD. */
function localDay(d = new Date()): string {
  return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;
}

/** The days of a month's calendar grid (Monday first), YYYY-MM-DD, with blanks (null) before the 1st. */
function monthGrid(month: string): (string | null)[] {
  const [y, m] = month.split('-').map(Number) as [number, number];
  const first = new Date(y, m - 1, 1);
  const days = new Date(y, m, 0).getDate();
  const blanks = (first.getDay() + 6) % 7;
  return [...Array<null>(blanks).fill(null), ...Array.from({ length: days }, (_, i) => `${month}-${String(i + 1).padStart(2, '0')}`)];
}

function shiftMonth(month: string, by: number): string {
  const [y, m] = month.split('-').map(Number) as [number, number];
  const d = new Date(y, m - 1 + by, 1);
  return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}`;
}

const monthTitle = (month: string) => new Date(`${month}-01T12:00:00`).toLocaleDateString(undefined, { month: 'long', year: 'numeric' });
const statusClass = (status: string) => (status === 'Completed' ? 'completed' : 'in-progress');

/**
 * The office workspace for progress entries (progress-records-interface.md): a month calendar
 * marking the days with entries and their counts by status, the chosen day's entries, an entry's
 * detail by id, a form to record an entry, and a filter by status and search in details.
 */
export function ProgressWorkspace() {
  const today = localDay();
  const [month, setMonth] = useState(today.slice(0, 7));
  const [day, setDay] = useState(today);
  const [entries, setEntries] = useState<ProgressEntryView[] | null>(null);
  const [asOf, setAsOf] = useState<Date | null>(null);
  const [loadError, setLoadError] = useState<string | null>(null);
  const [status, setStatus] = useState<'all' | (typeof STATUSES)[number]>('all');
  const [search, setSearch] = useState('');
  const [open, setOpen] = useState<ProgressEntryView | null>(null);

  const load = useCallback(async () => {
    try {
      setEntries(await unwrap(api['progress.list']({})));
      setAsOf(new Date());
      setLoadError(null);
    } catch (err) {
      setLoadError((err as Error).message);
    }
  }, []);
  useEffect(() => void load(), [load]);

  const shown = useMemo(() => {
    const q = search.trim().toLowerCase();
    return (entries ?? []).filter((e) => (status === 'all' || e.status === status) && (!q || e.details.toLowerCase().includes(q)));
  }, [entries, status, search]);
  const byDay = useMemo(() => {
    const m = new Map<string, ProgressEntryView[]>();
    for (const e of shown) m.set(e.date, [...(m.get(e.date) ?? []), e]);
    return m;
  }, [shown]);
  const dayEntries = byDay.get(day) ?? [];

  const openEntry = async (id: string) => setOpen(await unwrap(api['progress.get']({ id })));

  return (
    <main className="records">
      <section className="panel" aria-label="Progress calendar">
        <header className="records-head">
          <h2>Progress</h2>
          <span className="muted" data-testid="progress-as-of">
            {loadError ? `Could not reach the progress service: ${loadError}` : asOf ? `as of ${asOf.toLocaleTimeString()}` : 'Loading…'}
          </span>
          <button onClick={() => void load()}>Refresh</button>
        </header>
        <div className="filters">
          <label className="inline">
            Status
            <select value={status} onChange={(e) => setStatus(e.target.value as typeof status)}>
              <option value="all">All</option>
              {STATUSES.map((s) => (
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
        <div className="calendar" role="grid" aria-label={`Entries in ${monthTitle(month)}`}>
          {WEEKDAYS.map((w) => (
            <div key={w} className="weekday" role="columnheader">
              {w}
            </div>
          ))}
          {monthGrid(month).map((d, i) => {
            if (!d) return <div key={`blank-${i}`} className="blank" />;
            const list = byDay.get(d) ?? [];
            const counts = STATUSES.map((s) => [s, list.filter((e) => e.status === s).length] as const).filter(([, n]) => n > 0);
            return (
              <button
                key={d}
                role="gridcell"
                className={`day${d === day ? ' chosen' : ''}${d === today ? ' today' : ''}${list.length ? ' has-entries' : ''}`}
                aria-current={d === today ? 'date' : undefined}
                aria-selected={d === day}
                aria-label={`${d}: ${list.length ? counts.map(([s, n]) => `${n} ${s}`).join(', ') : 'no entries'}`}
                data-day={d}
                onClick={() => setDay(d)}
              >
                <span className="num">{Number(d.slice(8))}</span>
                {counts.map(([s, n]) => (
                  <span key={s} className={`count ${statusClass(s)}`}>
                    {n}
                  </span>
                ))}
              </button>
            );
          })}
        </div>
      </section>

      <section className="panel" aria-label={`Entries on ${day}`} data-testid="day-view">
        <h3>{new Date(`${day}T12:00:00`).toLocaleDateString(undefined, { dateStyle: 'full' })}</h3>
        {dayEntries.length === 0 ? (
          <p className="muted">No entries on this day.</p>
        ) : (
          <ul className="entries">
            {dayEntries.map((e) => (
              <li key={e.id} data-testid="entry">
                <span className={`status-badge ${statusClass(e.status)}`}>{e.status}</span>
                <span className="details">{e.details}</span>
                <button className="link" onClick={() => void openEntry(e.id)}>
                  {e.id}
                </button>
              </li>
            ))}
          </ul>
        )}
        {open && (
          <div className="entry-detail" role="dialog" aria-label={`Progress entry ${open.id}`} data-testid="entry-detail">
            <dl>
              <dt>Id</dt>
              <dd>{open.id}</dd>
              <dt>Date</dt>
              <dd>{open.date}</dd>
              <dt>Status</dt>
              <dd>{open.status}</dd>
              <dt>Details</dt>
              <dd className="details">{open.details}</dd>
            </dl>
            <button onClick={() => setOpen(null)}>Close</button>
          </div>
        )}
      </section>

      <RecordForm
        defaultDate={day}
        onRecorded={(e) => {
          setEntries((list) => [...(list ?? []).filter((x) => x.id !== e.id), e]);
          setMonth(e.date.slice(0, 7));
          setDay(e.date);
        }}
      />
    </main>
  );
}

/** The form to record one entry: validated here, sent once, the service's refusal shown at the form. */
function RecordForm({ defaultDate, onRecorded }: { defaultDate: string; onRecorded: (e: ProgressEntryView) => void }) {
  const [date, setDate] = useState(defaultDate);
  const [status, setStatus] = useState<(typeof STATUSES)[number]>('In Progress');
  const [details, setDetails] = useState('');
  const [problem, setProblem] = useState<string | null>(null);
  const [sending, setSending] = useState(false);
  const [done, setDone] = useState<string | null>(null);
  useEffect(() => setDate(defaultDate), [defaultDate]);
  const detailsMissing = details.trim() === '';

  const submit = async () => {
    if (detailsMissing || sending) return;
    setSending(true);
    setProblem(null);
    try {
      const e = await unwrap(api['progress.create']({ date, status, details }));
      setDetails('');
      setDone(`Recorded ${e.id} for ${e.date}.`);
      onRecorded(e);
    } catch (err) {
      setProblem((err as Error).message);
    } finally {
      setSending(false);
    }
  };

  return (
    <section className="panel" aria-label="Record progress">
      <h3>Record progress</h3>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          void submit();
        }}
      >
        <label>
          Date
          <input type="date" required value={date} onChange={(e) => setDate(e.target.value)} />
        </label>
        <label>
          Status
          <select value={status} onChange={(e) => setStatus(e.target.value as typeof status)}>
            {STATUSES.map((s) => (
              <option key={s}>{s}</option>
            ))}
          </select>
        </label>
        <label>
          Details
          <textarea rows={4} value={details} aria-invalid={detailsMissing} aria-describedby="details-hint" onChange={(e) => setDetails(e.target.value)} />
        </label>
        <span id="details-hint" className={detailsMissing ? 'error' : 'muted'}>
          {detailsMissing ? 'Say what was done.' : `${details.trim().length} characters`}
        </span>
        {problem && (
          <p className="error" role="alert">
            {problem}
          </p>
        )}
        {done && !problem && <p className="muted">{done}</p>}
        <button type="submit" disabled={detailsMissing || sending}>
          {sending ? 'Recording…' : 'Record entry'}
        </button>
      </form>
    </section>
  );
}
