import { useState } from 'react';
import { plainCause } from '../../../../shared/causes.js';
import type { NightSummary } from '../../../../shared/night-summary.js';
import { nightSummary, summaryLines } from '../../../../shared/night-summary.js';
import { api, unwrap } from '../../api.js';
import { useApp } from '../../store.js';
import { captureNeedsYou } from './list-rows.js';

const DAY_MS = 86_400_000;

/**
 * The morning summary on screen, the same as `capture-uploader log --summary`
 * (shared/night-summary.ts): the last 24 hours of the activity log with the sizes of the files
 * completed, what needs a person now with its cause and action, and the captures with warnings.
 * Read when opened or refreshed.
 */
export function Summary() {
  const [lines, setLines] = useState<string[]>();
  const [error, setError] = useState<string>();
  const load = async () => {
    try {
      const entries = await unwrap(
        api['activity.list']({ since: new Date(Date.now() - DAY_MS).toISOString(), limit: 100_000 }),
      );
      const s = useApp.getState();
      const needsYou: NightSummary['needsYou'] = [
        ...Object.values(s.captures)
          .filter(captureNeedsYou)
          .map((c) => ({
            subject: c.label,
            cause: plainCause(c.error),
            action: 'See "Captures that need you" above.',
          })),
        ...Object.values(s.files)
          .filter((f) => f.state === 'failed')
          .map((f) => ({
            subject: f.fileName,
            cause: plainCause(f.error),
            action: 'Retry it from its row; it resumes from the parts already uploaded.',
          })),
      ];
      // The captures with warnings, as `log --summary` lists them (main/status/summary.ts warnedNow).
      const warned: NightSummary['warned'] = Object.values(s.captures)
        .filter((c) => (c.warnings ?? []).length > 0)
        .sort((a, b) => a.id - b.id)
        .map((c) => ({ subject: c.label, warnings: [...new Set(c.warnings)] }));
      const t = s.totals;
      setLines(
        summaryLines(
          nightSummary(entries, (id) => s.files[id]?.size, needsYou, t.uploading + t.queued + t.retrying > 0, warned),
        ),
      );
      setError(undefined);
    } catch (err) {
      setError((err as Error).message);
    }
  };
  return (
    <details className="activity summary-panel" onToggle={(e) => e.currentTarget.open && void load()}>
      <summary>Summary of the last 24 hours</summary>
      <button onClick={() => void load()}>Refresh</button>
      {error && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
      {lines && (
        <ul className="summary-lines" data-testid="night-summary">
          {lines.map((l, i) => (
            <li key={i}>{l}</li>
          ))}
        </ul>
      )}
    </details>
  );
}
