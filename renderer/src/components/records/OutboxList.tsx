import type { OutboxItemView } from '../../../../shared/ipc.js';
import { api, unwrap } from '../../api.js';
import { localDate, whenAt } from '../../../../shared/when.js';
import { statusClass } from './calendar.js';

/**
 * Entries recorded while the progress service could not be reached: each with its date, status
 * and details, waiting to be sent, or refused by the service with its message and a way to give
 * it up, or to open it in the form, correct it and send it again (issue 20 #2). Nothing is shown
 * when the outbox is empty.
 */
export function OutboxList({ items, onChanged, onEdit }: { items: OutboxItemView[]; onChanged: () => void; onEdit: (item: OutboxItemView) => void }) {
  if (items.length === 0) return null;
  const discard = async (id: number) => {
    await unwrap(api['progress.discard']({ id }));
    onChanged();
  };
  return (
    <section className="panel outbox" aria-label="Waiting to be sent" data-testid="outbox">
      <h3>Waiting to be sent ({items.length})</h3>
      <ul className="entries">
        {items.map((i) => (
          <li key={i.id} data-testid="outbox-item">
            <span className="status-badge waiting">{i.state === 'refused' ? 'Refused' : 'Waiting'}</span>
            <span className={`status-badge ${statusClass(i.status)}`}>{i.status}</span>
            <span>{localDate(i.date)}</span>
            <span className="details">{i.details}</span>
            {i.state === 'refused' ? (
              <>
                <span className="error">{i.error}</span>
                <button onClick={() => onEdit(i)}>Correct and send again</button>
                <button onClick={() => void discard(i.id)}>Discard</button>
              </>
            ) : (
              <span className="muted">kept at {whenAt(i.queuedAt)}; sent when the service is back</span>
            )}
          </li>
        ))}
      </ul>
    </section>
  );
}
