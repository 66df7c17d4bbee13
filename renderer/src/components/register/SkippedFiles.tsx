import { describeSkipped, isNothingFound, isRecordingName } from '../../../../shared/registration.js';
import type { DraftsSlice } from '../../drafts-slice.js';
import { baseName } from './blocked-rows.js';

/**
 * What a drop held besides recordings: a folder without any recording, said out loud, and one
 * line for the previews and other files skipped, opened to list them with their reasons.
 */
export function SkippedFiles({ refused }: { refused: DraftsSlice['refused'] }) {
  const empty = refused.filter((r) => isNothingFound(r.reason));
  const skipped = refused.filter((r) => !isRecordingName(baseName(r.path)) && !isNothingFound(r.reason));
  return (
    <>
      {empty.map((r) => (
        <p key={r.path} className="nothing-found" role="status" data-testid="nothing-found">
          {r.reason}
        </p>
      ))}
      {skipped.length > 0 && (
        <details className="skipped" aria-label="Not uploaded">
          <summary>{describeSkipped(skipped.map((r) => baseName(r.path)))}</summary>
          <ul>
            {skipped.map((r, i) => (
              <li key={`${r.path}-${i}`}>
                <span className="path">{baseName(r.path)}</span> — {r.reason}
              </li>
            ))}
          </ul>
        </details>
      )}
    </>
  );
}
