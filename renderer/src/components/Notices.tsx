import { useApp } from '../store.js';

/** Messages for the person: errors stay until dismissed, information fades. */
export function Notices() {
  const notices = useApp((s) => s.notices);
  const dismiss = useApp((s) => s.dismiss);
  if (notices.length === 0) return null;
  return (
    <section className="notices" aria-live="polite">
      {notices.map((n) => (
        <div key={n.id} className={`notice ${n.level}`} role={n.level === 'error' ? 'alert' : 'status'}>
          <span>{n.message}</span>
          <button aria-label="Dismiss" onClick={() => dismiss(n.id)}>
            ×
          </button>
        </div>
      ))}
    </section>
  );
}
