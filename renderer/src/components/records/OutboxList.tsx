import { localDate, whenAt } from '../../../../shared/when.js';
import { useApp } from '../../store.js';
import { useStatusLook } from './status-looks.js';

/**
 * Entries recorded while the progress service could not be reached: each with its date, status
 * and details, waiting to be sent (with why the last send did not go, when one was tried) or
 * refused by the service with its message. Every one can be opened in the form, corrected and
 * sent again, or discarded; a discard waits UNDO_MS (outbox-slice.ts) with "Undo" before it is
 * carried out (docs/decisions/0011-outbox-errors.md). Nothing is shown when the outbox is empty.
 */
export function OutboxList() {
  const items = useApp((s) => s.outbox);
  const pending = useApp((s) => s.outboxDiscarding);
  const problem = useApp((s) => s.outboxProblem);
  const onEdit = useApp((s) => s.editOutbox);
  const discard = useApp((s) => s.discardOutbox);
  const undo = useApp((s) => s.undoDiscard);
  const look = useStatusLook();

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
            <span className={`status-badge ${look(i.status).className}`}>{i.status}</span>
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
