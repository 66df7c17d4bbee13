import { useState } from 'react';
import type { QueueCapture } from '../../../../shared/ipc.js';
import { useApp } from '../../store.js';
import { CaptureEditor } from './CaptureEditor.js';
import { usePlaceName } from './capture-row-state.js';
import { captureNeedsYou } from './list-rows.js';

/** What a capture that needs a person waits for, in plain words; the service's own message is one click away. */
const ATTENTION_SUMMARY: Partial<Record<QueueCapture['state'], string>> = {
  rejected: 'Refused by the service. Correct it and register it again, or remove it.',
  registration_unknown:
    'It is not known whether it was registered (it was sent, and no clear answer came back). Register it again, or drop it if it is on the platform.',
};

/** The service's message out of the engine's sentence ("The service refused this capture: <message>. Correct …"). */
function serviceWords(error: string): string {
  return (
    /^The service refused this capture: (.*)\. Correct the capture and register it again\.$/s.exec(error)?.[1] ?? error
  );
}

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
      <strong>{capture.label}</strong> ({place}): {ATTENTION_SUMMARY[capture.state] ?? capture.error ?? capture.state}
      {capture.error && ATTENTION_SUMMARY[capture.state] && (
        <details className="cause error">
          <summary>The service’s words</summary>
          <span className="raw">{serviceWords(capture.error)}</span>
        </details>
      )}
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
                if (
                  window.confirm(
                    `Remove "${capture.label}" from this computer's upload queue? Nothing changes at the platform.`,
                  )
                )
                  void remove(capture.id);
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
