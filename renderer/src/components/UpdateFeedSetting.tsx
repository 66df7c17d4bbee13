import { useEffect, useRef, useState } from 'react';
import type { UpdateFeedView } from '../../../shared/ipc.js';
import { api, unwrap } from '../api.js';

const messageOf = (err: unknown) => (err instanceof Error ? err.message : String(err));

/** How often the screen asks again while a check or download is under way (ms); a check ends within 60 s. */
const UPDATE_STATUS_POLL_MS = 1000;

/**
 * "Updates", a section of the Settings screen applied at once: the address of the update feed
 * (the folder the publisher's signed repository is copied to; empty: updates off) and where
 * updates stand, asked again every second while a check or download is under way so its result
 * appears by itself. The main process checks the address (https, or http to this computer only),
 * stores it and makes the updater follow it (shared/ipc.ts SHELL_CHANNELS,
 * docs/decisions/0017-updates.md); a refused address is said with its fix and nothing changes.
 */
export function UpdateFeedSetting() {
  const [view, setView] = useState<UpdateFeedView>();
  const [draft, setDraft] = useState('');
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);
  const typed = useRef(false);
  useEffect(() => {
    unwrap(api['updates.get']()).then(
      (v) => {
        setView(v);
        if (!typed.current) setDraft(v.feedUrl);
      },
      (err: unknown) => setError(messageOf(err)),
    );
  }, []);
  // A check or download under way: its result is asked for until it settles (the check's own
  // deadline ends it within 60 s; a download has its silence and rate bounds).
  const underWay = view?.state === 'checking' || view?.state === 'downloading';
  useEffect(() => {
    if (!underWay) return;
    const t = setTimeout(() => {
      unwrap(api['updates.get']()).then(setView, (err: unknown) => setError(messageOf(err)));
    }, UPDATE_STATUS_POLL_MS);
    return () => clearTimeout(t);
  }, [underWay, view]);

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
            onChange={(e) => {
              typed.current = true;
              setDraft(e.target.value);
            }}
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
        <p className="muted" role="status" aria-busy={underWay} data-testid="update-feed-state">
          {view.status}
        </p>
      )}
    </section>
  );
}
