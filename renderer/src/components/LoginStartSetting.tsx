import { useEffect, useState } from 'react';
import type { LoginStartView } from '../../../shared/ipc.js';
import { api, unwrap } from '../api.js';

const messageOf = (err: unknown) => (err instanceof Error ? err.message : String(err));

/**
 * What the setting does now, in words: the person's choice, or the default, which is on while
 * the queue holds unfinished work (docs/decisions/0018-login-start.md).
 */
function loginStartSentence(v: Pick<LoginStartView, 'choice' | 'unfinishedWork'>): string {
  if (v.choice === true)
    return 'On, as you chose: after a restart the app starts in the tray and carries on with the queue, without opening its window.';
  if (v.choice === false) return 'Off, as you chose: after a restart the queue waits until someone opens the app.';
  return v.unfinishedWork
    ? 'On while the queue has work to finish (the default): after a restart the app starts in the tray and carries on with the queue.'
    : 'Off while the queue has nothing to finish; it turns on by itself once the queue holds work (the default).';
}

/**
 * "Start at login, minimized to the tray", a section of the Settings screen applied at once
 * (the main process answers it: shared/ipc.ts SHELL_CHANNELS). "Back to the default" drops the
 * person's choice.
 */
export function LoginStartSetting() {
  const [view, setView] = useState<LoginStartView>();
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);
  useEffect(() => {
    unwrap(api['loginStart.get']()).then(setView, (err: unknown) => setError(messageOf(err)));
  }, []);

  const set = async (enabled: boolean | null) => {
    setBusy(true);
    setError(undefined);
    try {
      setView(await unwrap(api['loginStart.set']({ enabled })));
    } catch (err) {
      setError(messageOf(err));
    } finally {
      setBusy(false);
    }
  };

  const problem = error ?? view?.error;
  return (
    <section className="login-start" aria-labelledby="login-start-title">
      <h2 id="login-start-title">Start at login</h2>
      {view && !view.supported && (
        <p className="muted">This computer does not offer starting Capture Uploader at login.</p>
      )}
      {view?.supported && (
        <>
          <label className="check">
            <input
              type="checkbox"
              checked={view.enabled}
              disabled={busy}
              onChange={(e) => void set(e.target.checked)}
            />
            Start Capture Uploader at login, minimized to the tray
          </label>
          <p className="muted" data-testid="login-start-state">
            {loginStartSentence(view)}
          </p>
          {view.choice !== null && (
            <button type="button" className="link" disabled={busy} onClick={() => void set(null)}>
              Back to the default
            </button>
          )}
        </>
      )}
      {problem && (
        <p className="error" role="alert">
          {problem}
        </p>
      )}
    </section>
  );
}
