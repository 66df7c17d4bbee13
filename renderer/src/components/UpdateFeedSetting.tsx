import { useEffect, useState } from 'react';
import type { UpdateFeedView } from '../../../shared/ipc.js';
import { api, unwrap } from '../api.js';

const messageOf = (err: unknown) => (err instanceof Error ? err.message : String(err));

/**
 * "Updates", a section of the Settings screen applied at once: the address of the update feed
 * (the folder an electron-builder generic provider publishes to; empty: updates off) and where
 * updates stand. The main process checks the address (https, or http to this computer only),
 * stores it and makes the updater follow it (shared/ipc.ts SHELL_CHANNELS,
 * docs/decisions/updates.md); a refused address is said with its fix and nothing changes.
 */
export function UpdateFeedSetting() {
  const [view, setView] = useState<UpdateFeedView>();
  const [draft, setDraft] = useState('');
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);
  useEffect(() => {
    unwrap(api['updates.get']()).then(
      (v) => {
        setView(v);
        setDraft(v.feedUrl);
      },
      (err: unknown) => setError(messageOf(err)),
    );
  }, []);

  const save = async () => {
    setBusy(true);
    setError(undefined);
    try {
      const v = await unwrap(api['updates.set']({ feedUrl: draft.trim() }));
      setView(v);
      setDraft(v.feedUrl);
    } catch (err) {
      setError(messageOf(err));
    } finally {
      setBusy(false);
    }
  };

  return (
    <section className="update-feed" aria-labelledby="update-feed-title">
      <h2 id="update-feed-title">Updates</h2>
      <form
        noValidate
        onSubmit={(e) => {
          e.preventDefault();
          void save();
        }}
      >
        <label>
          Update feed address
          <input
            type="url"
            value={draft}
            placeholder="https://updates.example.com/capture-uploader"
            aria-describedby="update-feed-hint"
            aria-invalid={error ? true : undefined}
            onChange={(e) => setDraft(e.target.value)}
          />
        </label>
        <p id="update-feed-hint" className="muted">
          Where your administrator publishes new versions. Leave it empty to turn updates off.
        </p>
        {error && (
          <p className="error" role="alert">
            {error}
          </p>
        )}
        <button type="submit" disabled={busy || draft.trim() === (view?.feedUrl ?? '')}>
          Apply
        </button>
      </form>
      {view && (
        <p className="muted" role="status" data-testid="update-feed-state">
          {view.status}
        </p>
      )}
    </section>
  );
}
