import { useState } from 'react';
import type { ActivityView } from '../../../../shared/ipc.js';
import { whenAt } from '../../../../shared/when.js';
import { api, unwrap } from '../../api.js';

/** One log line as people read it (and as the saved text holds it): local time, what, to what, why. */
// The one time format, to the second (several lines can share a minute).
const line = (e: ActivityView) => `${whenAt(e.at, { seconds: true })}  ${e.kind}  ${e.subject}: ${e.message}`;

/**
 * The night's story from the queue's activity log (main/queue/activity.ts): what happened to each
 * capture and file, newest last, filtered by a word, and saved as text for whoever asks in the
 * morning. Read when opened or refreshed, not on every change.
 */
export function ActivityLog() {
  const [entries, setEntries] = useState<ActivityView[]>();
  const [filter, setFilter] = useState('');
  const [error, setError] = useState<string>();
  const load = async () => {
    try {
      setEntries(await unwrap(api['activity.list']({ limit: 5000 })));
      setError(undefined);
    } catch (err) {
      setError((err as Error).message);
    }
  };
  const shown = (entries ?? []).filter((e) => !filter || line(e).toLowerCase().includes(filter.toLowerCase()));
  return (
    <details className="activity" onToggle={(e) => e.currentTarget.open && void load()}>
      <summary>Activity log</summary>
      <div className="activity-tools">
        <label className="inline">
          Filter
          <input value={filter} onChange={(e) => setFilter(e.target.value)} placeholder="failed, a file name…" />
        </label>
        <button onClick={() => void load()}>Refresh</button>
        <button
          disabled={shown.length === 0}
          onClick={() => {
            const url = URL.createObjectURL(new Blob([shown.map(line).join('\n') + '\n'], { type: 'text/plain' }));
            const a = document.createElement('a');
            a.href = url;
            a.download = 'capture-uploader-activity.txt';
            a.click();
            URL.revokeObjectURL(url);
          }}
        >
          Save as text
        </button>
      </div>
      {error && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
      <ol className="activity-lines" data-testid="activity-lines" aria-label="Activity, oldest first">
        {shown.map((e) => (
          <li key={e.id} data-kind={e.kind}>
            {line(e)}
          </li>
        ))}
      </ol>
    </details>
  );
}
