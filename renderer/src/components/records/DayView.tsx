import { useEffect, useRef } from 'react';
import type { OutboxItemView, ProgressEntryView } from '../../../../shared/ipc.js';
import { localDate } from '../../../../shared/when.js';
import { useApp } from '../../store.js';
import { useStatusLook } from './status-looks.js';
import { DayCaptures } from './DayCaptures.js';

/**
 * The chosen day of the progress calendar: its entries (progress-records-interface.md §2, as the
 * filter shows them), the entries of that day still waiting in the outbox, one entry's detail read
 * by id (§4 GET /progress/{id}) in a dialog that Escape closes, and the captures this computer
 * uploaded that day.
 *
 * Each time a person picks a day (`progressDayPicks`) the day's entries are scrolled into view,
 * because in a small window (820×560) they sit below the calendar, and a click that shows nothing
 * looks like a click that did nothing. An opened entry belongs to its own day: the store closes it
 * when the calendar moves (progress-slice.ts).
 */
export function DayView(props: { entries: ProgressEntryView[]; waiting: OutboxItemView[] }) {
  const { entries, waiting } = props;
  const day = useApp((s) => s.progressDay);
  const chosenAt = useApp((s) => s.progressDayPicks);
  const open = useApp((s) => s.openedEntry);
  const problem = useApp((s) => s.openedEntryProblem);
  const openEntry = useApp((s) => s.openEntry);
  const closeEntry = useApp((s) => s.closeEntry);
  const look = useStatusLook();
  const section = useRef<HTMLElement>(null);
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
      if (e.key === 'Escape') closeEntry();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [open, closeEntry]);

  return (
    <section className="panel" aria-label={`Entries on ${day}`} data-testid="day-view" ref={section}>
      <h3>{localDate(day, { weekday: true })}</h3>
      {entries.length === 0 && waiting.length === 0 ? (
        <p className="muted">No entries on this day.</p>
      ) : (
        <ul className="entries">
          {entries.map((e) => (
            <li key={e.id} data-testid="entry">
              <span className={`status-badge ${look(e.status).className}`}>{e.status}</span>
              <span className="details">{e.details}</span>
              <button className="link" aria-label={`Open entry ${e.id}`} onClick={() => void openEntry(e.id)}>
                {e.id}
              </button>
            </li>
          ))}
          {waiting.map((i) => (
            <li key={`outbox-${i.id}`} data-testid="waiting-entry">
              <span className={`status-badge ${look(i.status).className}`}>{i.status}</span>
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
          <button onClick={closeEntry}>Close</button>
        </div>
      )}
      <DayCaptures />
    </section>
  );
}
