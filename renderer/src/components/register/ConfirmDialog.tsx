import { useEffect, useRef } from 'react';

/**
 * The confirmation before anything is sent: it names what will be registered
 * where, because a registration cannot be taken back from this computer. A modal `<dialog>`, so
 * focus stays in it and Escape goes back.
 */
export function ConfirmDialog({
  title,
  sentence,
  detail,
  warnings = [],
  busy,
  onConfirm,
  onCancel,
}: {
  title: string;
  sentence: string;
  detail: string;
  /** Captures with warnings, said before anything is sent; they are uploaded all the same. */
  warnings?: { label: string; warnings: string[] }[];
  busy: boolean;
  onConfirm(): void;
  onCancel(): void;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  const primary = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    const d = ref.current;
    if (d && !d.open) d.showModal();
    // showModal focuses the first control ("Back"), so Enter would cancel: the primary action is the default.
    primary.current?.focus();
    return () => d?.close();
  }, []);
  return (
    <dialog
      ref={ref}
      className="confirm"
      aria-labelledby="confirm-title"
      aria-describedby="confirm-what"
      onCancel={(e) => {
        e.preventDefault();
        onCancel();
      }}
    >
      <h2 id="confirm-title">{title}</h2>
      <p id="confirm-what" data-testid="confirm-sentence">
        {sentence}
      </p>
      <p>{detail}</p>
      {warnings.length > 0 && (
        <div className="confirm-warnings" data-testid="confirm-warnings">
          <p>
            <strong>
              {warnings.length} capture{warnings.length === 1 ? '' : 's'} with warnings
            </strong>{' '}
            (uploaded as they are; the queue marks them):
          </p>
          <ul>
            {warnings.map((w) => (
              <li key={w.label}>
                {w.label}: {w.warnings.join(' ')}
              </li>
            ))}
          </ul>
        </div>
      )}
      {busy && (
        <p role="status" className="registering">
          Adding the captures to the queue…
        </p>
      )}
      <div className="dialog-actions">
        <button type="button" onClick={onCancel} disabled={busy}>
          Back to the list
        </button>
        <button type="button" className="primary" onClick={onConfirm} disabled={busy} ref={primary}>
          {busy ? 'Adding…' : 'Register and upload'}
        </button>
      </div>
    </dialog>
  );
}
