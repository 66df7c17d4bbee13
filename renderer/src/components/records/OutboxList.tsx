import { useEffect, useRef, useState } from 'react';
import type { OutboxItemView } from '../../../../shared/ipc.js';
import { api, unwrap } from '../../api.js';
import { localDate, whenAt } from '../../../../shared/when.js';
import { statusClass } from './calendar.js';

/** How long a discarded entry can be taken back before it leaves the outbox (ms). */
export const UNDO_MS = 6_000;

/**
 * Entries recorded while the progress service could not be reached: each with its date, status
 * and details, waiting to be sent (with why the last send did not go, when one was tried) or
 * refused by the service with its message. Every one can be opened in the form, corrected and
 * sent again, or discarded; a discard waits UNDO_MS with "Undo" before it is carried out
 * (docs/decisions/office-outbox-errors.md). Nothing is shown when the outbox is empty.
 */
export function OutboxList({
  items,
  onChanged,
  onEdit,
}: {
  items: OutboxItemView[];
  onChanged: () => void;
  onEdit: (item: OutboxItemView) => void;
}) {
  const [pending, setPending] = useState<{ item: OutboxItemView; timer: ReturnType<typeof setTimeout> } | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const latest = useRef(pending);
  latest.current = pending;
  // Leaving the workspace carries out a discard the person did not take back.
  useEffect(() => () => void (latest.current && carryOut(latest.current.item.id)), []);

  const carryOut = async (id: number) => {
    try {
      await unwrap(api['progress.discard']({ id }));
      setProblem(null);
    } catch (err) {
      setProblem(`The entry could not be discarded: ${(err as Error).message}`);
    }
    onChanged();
  };
  const discard = (item: OutboxItemView) => {
    if (pending) {
      clearTimeout(pending.timer);
      void carryOut(pending.item.id);
    }
    const timer = setTimeout(() => {
      setPending(null);
      void carryOut(item.id);
    }, UNDO_MS);
    setPending({ item, timer });
  };
  const undo = () => {
    if (!pending) return;
    clearTimeout(pending.timer);
    setPending(null);
  };

  const shown = items.filter((i) => i.id !== pending?.item.id);
  if (shown.length === 0 && !pending && !problem) return null;
  return (
    <section className="panel outbox" aria-label="Waiting to be sent" data-testid="outbox">
      <h3>Waiting to be sent ({shown.length})</h3>
      {pending && (
        <p role="status" data-testid="discarded">
          Discarded the entry of {localDate(pending.item.date)}.{' '}
          <button className="link" onClick={undo}>
            Undo
          </button>
        </p>
      )}
      {problem && (
        <p className="error" role="alert">
          {problem}
        </p>
      )}
      <ul className="entries">
        {shown.map((i) => (
          <li key={i.id} data-testid="outbox-item">
            <span className="status-badge waiting">{i.state === 'refused' ? 'Refused' : 'Waiting'}</span>
            <span className={`status-badge ${statusClass(i.status)}`}>{i.status}</span>
            <span>{localDate(i.date)}</span>
            <span className="details">{i.details}</span>
            {i.state === 'refused' ? (
              <span className="error">{i.error}</span>
            ) : (
              <span className="muted">
                kept at {whenAt(i.queuedAt)}; sent when the service is back{i.error ? `. Last try: ${i.error}` : ''}
              </span>
            )}
            <button onClick={() => onEdit(i)}>{i.state === 'refused' ? 'Correct and send again' : 'Correct'}</button>
            <button onClick={() => discard(i)}>Discard</button>
          </li>
        ))}
      </ul>
    </section>
  );
}
