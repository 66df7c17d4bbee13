import { useState } from 'react';
import type { DragEvent } from 'react';
import { api, unwrap } from '../api.js';
import { useApp } from '../store.js';

/** Where recordings are dropped (files or folders), or chosen with the file dialog. */
export function DropZone() {
  const inspect = useApp((s) => s.inspect);
  const inspecting = useApp((s) => s.inspecting);
  const notify = useApp((s) => s.notify);
  const [over, setOver] = useState(false);

  const onDrop = (e: DragEvent) => {
    e.preventDefault();
    setOver(false);
    const paths = [...e.dataTransfer.files].map((f) => api.getPathForFile(f)).filter(Boolean);
    void inspect(paths);
  };
  const pick = async () => {
    try {
      void inspect(await unwrap(api['files.pick']()));
    } catch (err) {
      notify('error', String(err));
    }
  };
  return (
    <section
      className={`dropzone${over ? ' over' : ''}`}
      data-testid="dropzone"
      onDragOver={(e) => {
        e.preventDefault();
        setOver(true);
      }}
      onDragLeave={() => setOver(false)}
      onDrop={onDrop}
    >
      <p>
        <strong>Drop Insta360 recordings here</strong> — files or a whole card folder. Dual-lens <code>_00_</code>/<code>_10_</code> files are
        paired into one capture; an <code>.mp4</code> travels with its <code>.csv</code>.
      </p>
      <button onClick={() => void pick()} disabled={inspecting}>
        {inspecting ? 'Reading files…' : 'Choose files…'}
      </button>
    </section>
  );
}
