import { useState } from 'react';
import { useApp } from '../store.js';

/**
 * The messages bar at the foot of the window ("quiet nights"). It is part of the
 * layout, not laid over it: when a message comes the screen above gets shorter, so no control is
 * ever covered and nothing jumps under the pointer. Collapsed, it shows the newest message (with
 * "×3" when the same one came three times) and how many more there are; expanded, all of them.
 * Errors and warnings stay until dismissed; information fades by itself.
 */
export function Notices() {
  const notices = useApp((s) => s.notices);
  const dismiss = useApp((s) => s.dismiss);
  const dismissAll = useApp((s) => s.dismissAll);
  const [open, setOpen] = useState(false);
  if (notices.length === 0) return null;
  const shown = open ? [...notices].reverse() : [notices.at(-1)!];
  const more = notices.length - 1;
  return (
    <section className={`notices${open ? ' open' : ''}`} aria-label="Messages" aria-live="polite" data-testid="notices">
      <div className="notice-list">
        {shown.map((n) => (
          <div key={n.id} className={`notice ${n.level}`} role={n.level === 'error' ? 'alert' : 'status'}>
            <span className="notice-level">
              {n.level === 'error' ? 'Error' : n.level === 'warning' ? 'Warning' : 'Done'}
            </span>
            <span className="notice-text">
              {n.message}
              {n.count > 1 && <span className="notice-count"> ×{n.count}</span>}
            </span>
            <button aria-label="Dismiss" onClick={() => dismiss(n.id)}>
              ×
            </button>
          </div>
        ))}
      </div>
      {more > 0 && (
        <div className="notice-tools">
          <button className="link" aria-expanded={open} onClick={() => setOpen(!open)}>
            {open ? 'Show only the newest' : `${more} more message${more === 1 ? '' : 's'}`}
          </button>
          <button className="link" onClick={() => dismissAll()}>
            Dismiss all
          </button>
        </div>
      )}
    </section>
  );
}
