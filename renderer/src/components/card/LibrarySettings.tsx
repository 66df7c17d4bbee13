import { useEffect, useState } from 'react';
import type { LibraryView } from '../../../../shared/ipc.js';
import { api, unwrap } from '../../api.js';
import { formatBytes } from '../../display-format.js';
import './card.css';

const messageOf = (err: unknown) => (err instanceof Error ? err.message : String(err));

/**
 * The library settings, a section of the Settings screen with its own Save: the
 * folder card imports copy to, how many days copies stay after their capture completed, "Upload
 * straight from the card", "Copy the whole card" (on by default: previews, thumbnails and MISC are
 * copied and verified too, so a card said safe to remove may be formatted), and what the folder holds of this app's copies now.
 */
export function LibrarySettings() {
  const [view, setView] = useState<LibraryView>();
  const [form, setForm] = useState({ library: '', keepDays: '7', uploadFromCard: false, wholeCard: true });
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);

  const show = (v: LibraryView) => {
    setView(v);
    setForm({
      library: v.library,
      keepDays: String(v.keepDays),
      uploadFromCard: v.uploadFromCard,
      wholeCard: v.wholeCard !== false,
    });
  };
  useEffect(() => {
    unwrap(api['library.get']()).then(show, (err: unknown) => setError(messageOf(err)));
  }, []);

  const save = async () => {
    const keepDays = Number(form.keepDays);
    if (!Number.isInteger(keepDays) || keepDays < 0) {
      setError('Keep copies for a whole number of days, 0 or more.');
      return;
    }
    setBusy(true);
    setError(undefined);
    try {
      show(await unwrap(api['library.save']({ ...form, keepDays })));
    } catch (err) {
      setError(messageOf(err));
    } finally {
      setBusy(false);
    }
  };

  return (
    <form
      className="library-settings"
      aria-labelledby="library-title"
      onSubmit={(e) => {
        e.preventDefault();
        void save();
      }}
    >
      <h2 id="library-title">Card imports</h2>
      <p className="muted">
        A card is copied to the library folder and every copy checked before the card is said safe to remove; uploads
        read the copies.
      </p>
      <label>
        Library folder
        <input value={form.library} onChange={(e) => setForm({ ...form, library: e.target.value })} />
      </label>
      <label>
        Keep copies after their capture completed (days)
        <input
          type="number"
          min={0}
          step={1}
          value={form.keepDays}
          onChange={(e) => setForm({ ...form, keepDays: e.target.value })}
        />
      </label>
      <label className="check">
        <input
          type="checkbox"
          checked={form.uploadFromCard}
          onChange={(e) => setForm({ ...form, uploadFromCard: e.target.checked })}
        />
        Upload straight from the card (no copy: the card stays in the reader until its uploads finish)
      </label>
      <label className="check">
        <input
          type="checkbox"
          checked={form.wholeCard}
          onChange={(e) => setForm({ ...form, wholeCard: e.target.checked })}
        />
        Copy the whole card (previews, thumbnails and MISC too, after the recordings), so a card said safe to remove can
        be formatted
      </label>
      {view && (
        <p className="library-use" data-testid="library-use">
          The library holds {view.usage.copies} imported {view.usage.copies === 1 ? 'copy' : 'copies'} (
          {formatBytes(view.usage.bytes)}).
        </p>
      )}
      {error && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
      <button type="submit" disabled={busy || !view}>
        Save card import settings
      </button>
    </form>
  );
}
