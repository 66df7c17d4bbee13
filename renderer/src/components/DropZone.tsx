import { useState } from 'react';
import type { DragEvent, KeyboardEvent } from 'react';
import { wholeQueueCounts } from '../../../shared/batch-progress.js';
import { api, unwrap } from '../api.js';
import { useApp } from '../store.js';

/**
 * Where recordings are dropped (files or folders), or chosen with the file dialog. The whole zone
 * is one button named by its own text (WCAG 2.5.3): a click, Enter or Space opens the file
 * dialog, so the keyboard reaches it too.
 */
export function DropZone() {
  const inspect = useApp((s) => s.inspect);
  const inspecting = useApp((s) => s.inspecting);
  const stopInspect = useApp((s) => s.stopInspect);
  // Once a card is listed, or the queue holds files, the zone shrinks to one line, leaving the
  // window to the table and the queue.
  const listed = useApp((s) => s.drafts.length > 0);
  const queued = useApp((s) => wholeQueueCounts(s.totals).files > 0);
  const compact = listed || queued;
  const notify = useApp((s) => s.notify);
  const [over, setOver] = useState(false);

  const onDrop = (e: DragEvent) => {
    e.preventDefault();
    setOver(false);
    const paths = [...e.dataTransfer.files].map((f) => api.getPathForFile(f)).filter(Boolean);
    void inspect(paths);
  };
  const pick = async () => {
    if (inspecting) return;
    try {
      void inspect(await unwrap(api['files.pick']()));
    } catch (err) {
      notify('error', String(err));
    }
  };
  const onKey = (e: KeyboardEvent) => {
    if (e.key !== 'Enter' && e.key !== ' ') return;
    e.preventDefault();
    void pick();
  };
  return (
    <>
      {inspecting && (
        <button type="button" className="stop-reading" onClick={stopInspect}>
          Stop reading
        </button>
      )}
      <div
        className={`dropzone${over ? ' over' : ''}${compact ? ' compact' : ''}`}
        data-testid="dropzone"
        role="button"
        tabIndex={0}
        aria-busy={inspecting}
        onClick={() => void pick()}
        onKeyDown={onKey}
        onDragOver={(e) => {
          e.preventDefault();
          setOver(true);
        }}
        onDragLeave={() => setOver(false)}
        onDrop={onDrop}
      >
        {compact ? (
          <p>
            <strong>Drop Insta360 recordings here</strong>{' '}
            {listed ? 'to add more to the list.' : 'to add another card.'}
          </p>
        ) : (
          <p>
            <strong>Drop Insta360 recordings here</strong> — files or a whole card folder. Dual-lens <code>_00_</code>/
            <code>_10_</code> files are paired into one capture; an <code>.mp4</code> travels with its <code>.csv</code>
            .
          </p>
        )}
        <span className="pick">{inspecting ? 'Reading files…' : 'Choose files…'}</span>
      </div>
    </>
  );
}
