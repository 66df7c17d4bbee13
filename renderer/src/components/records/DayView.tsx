import { useEffect, useRef, useState } from 'react';
import type { OutboxItemView, ProgressEntryView } from '../../../../shared/ipc.js';
import { localDate } from '../../../../shared/when.js';
import { api, unwrap } from '../../api.js';
import { statusClass } from './calendar.js';
import { DayCaptures } from './DayCaptures.js';

/**
 * The chosen day of the progress calendar: its entries (progress-records-interface.md §2, as the
 * filter shows them), the entries of that day still waiting in the outbox, one entry's detail read
 * by id (§4 GET /progress/{id}) in a dialog that Escape closes, and the captures this computer
 * uploaded that day.
 *
 * `month` (YYYY-MM) is the month the calendar shows; `chosenAt` changes (a counter) each time a person picks a day: the day's entries are then
 * scrolled into view, because in a small window (820×560) they sit below the calendar, and a
 * click that shows nothing looks like a click that did nothing.
 */
export function DayView(props: {
  day: string;
  month: string;
  entries: ProgressEntryView[];
  waiting: OutboxItemView[];
  chosenAt: number;
}) {
  const { day, month, entries, waiting, chosenAt } = props;
  const [open, setOpen] = useState<ProgressEntryView | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const section = useRef<HTMLElement>(null);
  // An opened entry belongs to its own day: moving the calendar (`month`, the one shown) closes it.
  useEffect(() => setOpen(null), [day, month]);
  useEffect(() => {
    // Only when the day's top is out of view or in the lower half of the window: a wide window, where
    // the day sits beside the calendar, stays still.
    const top = section.current?.getBoundingClientRect().top;
    if (chosenAt > 0 && top !== undefined && (top < 0 || top > window.innerHeight / 2))
      section.current?.scrollIntoView({ block: 'start' });
  }, [chosenAt]);
  // An opened entry closes on Escape, wherever the focus is, as a dialog does (WAI-ARIA dialog pattern).
  useEffect(() => {
    if (!open) return;
    const onKey = (e: KeyboardEvent) => {
      if (e.key === 'Escape') setOpen(null);
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [open]);
  const openEntry = async (id: string) => {
    try {
      setProblem(null);
      setOpen(await unwrap(api['progress.get']({ id })));
    } catch (err) {
      setProblem(`Entry ${id} could not be read: ${(err as Error).message}`);
    }
  };

  return (
    <section className="panel" aria-label={`Entries on ${day}`} data-testid="day-view" ref={section}>
      <h3>{localDate(day, { weekday: true })}</h3>
      {entries.length === 0 && waiting.length === 0 ? (
        <p className="muted">No entries on this day.</p>
      ) : (
        <ul className="entries">
          {entries.map((e) => (
            <li key={e.id} data-testid="entry">
              <span className={`status-badge ${statusClass(e.status)}`}>{e.status}</span>
              <span className="details">{e.details}</span>
              <button className="link" aria-label={`Open entry ${e.id}`} onClick={() => void openEntry(e.id)}>
                {e.id}
              </button>
            </li>
          ))}
          {waiting.map((i) => (
            <li key={`outbox-${i.id}`} data-testid="waiting-entry">
              <span className={`status-badge ${statusClass(i.status)}`}>{i.status}</span>
              <span className="details">{i.details}</span>
              <span className="status-badge waiting">{i.state === 'refused' ? 'Refused' : 'Waiting to be sent'}</span>
            </li>
          ))}
        </ul>
      )}
      {problem && (
        <p className="error" role="alert">
          {problem}
        </p>
      )}
      {open && (
        <div
          className="entry-detail"
          role="dialog"
          aria-label={`Progress entry ${open.id} of ${open.date}`}
          data-testid="entry-detail"
        >
          <dl>
            <dt>Id</dt>
            <dd>{open.id}</dd>
            <dt>Date</dt>
            <dd>{localDate(open.date)}</dd>
            <dt>Status</dt>
            <dd>{open.status}</dd>
            <dt>Details</dt>
            <dd className="details">{open.details}</dd>
          </dl>
          <button onClick={() => setOpen(null)}>Close</button>
        </div>
      )}
      <DayCaptures day={day} />
    </section>
  );
}
