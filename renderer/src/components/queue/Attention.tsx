import { useState } from 'react';
import type { QueueCapture } from '../../../../shared/ipc.js';
import { useApp } from '../../store.js';
import { CaptureEditor } from './CaptureEditor.js';
import { usePlaceName } from './CaptureRow.js';
import { captureNeedsYou } from './rows.js';

/** How many captures that need a person are spelled out above the list; the rest are one filter away. */
const SHOWN = 3;

/** Captures that wait for a person, with what to do: register again, drop, or correct and register again. */
export function Attention() {
  const captures = useApp((s) => s.captures);
  const setFilter = useApp((s) => s.setFilter);
  const waiting = Object.values(captures).filter(captureNeedsYou);
  if (waiting.length === 0) return null;
  return (
    <section className="attention-list" aria-label="Captures that need you">
      {waiting.slice(0, SHOWN).map((c) => (
        <AttentionRow key={c.id} capture={c} />
      ))}
      {waiting.length > SHOWN && (
        <button className="link" onClick={() => setFilter('needs-you')}>
          {waiting.length - SHOWN} more captures need you: show them
        </button>
      )}
    </section>
  );
}

function AttentionRow({ capture }: { capture: QueueCapture }) {
  const resolve = useApp((s) => s.resolve);
  const remove = useApp((s) => s.removeCapture);
  const [editing, setEditing] = useState(false);
  const place = usePlaceName(capture.structure, capture.design);
  return (
    <div className="attention" data-testid="attention">
      <strong>{capture.label}</strong> ({place}): {capture.error ?? capture.state}
      <div className="actions">
        {capture.state === 'registration_unknown' && (
          <>
            <button onClick={() => void resolve(capture.id, 'register-again')}>Register again</button>
            <button onClick={() => void resolve(capture.id, 'drop')}>It is on the platform: drop it</button>
          </>
        )}
        {capture.state !== 'registration_unknown' && (
          <>
            <button onClick={() => setEditing(!editing)} aria-expanded={editing}>
              Correct and register again
            </button>
            <button
              onClick={() => {
                if (window.confirm(`Remove "${capture.label}" from this computer's upload queue? Nothing changes at the platform.`)) void remove(capture.id);
              }}
            >
              Remove
            </button>
          </>
        )}
      </div>
      {editing && <CaptureEditor capture={capture} onDone={() => setEditing(false)} />}
    </div>
  );
}
