import type { DayCaptureView } from '../../../../shared/ipc.js';
import { whenAt } from '../../../../shared/when.js';
import { useApp } from '../../store.js';
import { showInQueue } from './queue-link.js';

const STATE: Record<DayCaptureView['state'], string> = {
  queued: 'Waiting to be registered',
  registering: 'Registering',
  registration_unknown: 'Needs you: registration unknown',
  registered: 'Uploading',
  completed: 'Uploaded',
  failed: 'Needs you',
  rejected: 'Needs you: refused by the service',
};

/**
 * The field's day beside the office's: the captures of the project taken on the chosen day
 * in this computer's upload queue (read by the store when the day changes, progress-slice.ts), by structure name, with their state, files
 * uploaded and when the last one was, each linking to its row in the queue.
 *
 * Only this computer's: capture-upload-interface.md lists no captures by structure and date, so
 * captures uploaded from another computer cannot be shown, and the section says so in its heading
 * and, when it holds none, instead of a bare "none" that would read as "nothing was captured".
 */
export function DayCaptures() {
  const day = useApp((s) => s.progressDay);
  const list = useApp((s) => s.dayCaptures);
  const problem = useApp((s) => s.dayCapturesProblem);

  return (
    <section className="day-captures" aria-label={`Captures on ${day}`} data-testid="day-captures">
      <h4>Captures recorded that day, uploaded from this computer</h4>
      {problem ? (
        <p className="error">{problem}</p>
      ) : !list ? (
        <p className="muted">Loading…</p>
      ) : list.length === 0 ? (
        <p className="muted">
          This computer uploaded no capture recorded that day. Captures uploaded from other computers are not listed
          here: the capture service does not list captures by day.
        </p>
      ) : (
        <ul className="entries">
          {list.map((c) => (
            <li key={c.captureRow} data-testid="day-capture">
              <span className="status-badge">{STATE[c.state]}</span>
              <span>
                <strong>{c.structureName}</strong> · {c.label} · recorded {whenAt(c.capturedAt)}
              </span>
              <span>
                {c.filesUploaded} of {c.files} files uploaded{c.uploadedAt ? ` · uploaded ${whenAt(c.uploadedAt)}` : ''}
              </span>
              <button className="link" onClick={() => showInQueue(c.captureRow)}>
                Show {c.label} in the queue
              </button>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
