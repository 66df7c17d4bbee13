import type { CSSProperties } from 'react';
import { plainCause } from '../../../../shared/causes.js';
import { formatBytes, formatEta } from '../../display-format.js';
import { useApp } from '../../store.js';
import { useNow } from '../../use-now.js';
import type { RowAria } from './list-rows.js';
import { captureNeedsYou, fileStateText, retrying } from './list-rows.js';

/** Characters of a file name always shown at its end ("…_00_001.insv"): what tells two lenses apart. */
const NAME_TAIL = 14;

/**
 * One file of a capture, nested under it: progress, what happens next, the plain cause of a
 * failure with the service's own message behind a disclosure, and its controls. It subscribes to
 * its own record only, so a progress tick re-renders the rows that moved and nothing else.
 */
export function FileRow({ id, style, aria }: { id: number; style: CSSProperties; aria: RowAria }) {
  const f = useApp((s) => s.files[id]);
  const control = useApp((s) => s.control);
  const removeFile = useApp((s) => s.removeFile);
  const captureNeeds = useApp((s) => {
    const c = f && s.captures[f.captureRow];
    return c ? captureNeedsYou(c) : false;
  });
  const now = useNow(5000, f !== undefined && retrying(f));
  const outage = useApp((s) => s.totals.outage?.where ?? null);
  if (!f) return <div style={style} {...aria} />;
  const pct = f.size ? Math.floor((f.bytesSent / f.size) * 100) : 0;
  return (
    <div
      className={`file-row ${f.state}`}
      style={style}
      {...aria}
      data-testid="file-row"
      data-file={f.fileName}
      data-state={f.state}
      data-replaced-by={f.replacedBy ?? undefined}
      data-retrying={retrying(f) ? 'true' : undefined}
      data-parts-done={f.partsDone}
      data-awaiting-copy={f.awaitingCopy ? 'true' : undefined}
    >
      <div className="name split-name" title={f.path}>
        <span className="head">{f.fileName.slice(0, -NAME_TAIL)}</span>
        <span className="tail">{f.fileName.slice(-NAME_TAIL)}</span>
      </div>
      <progress max={100} value={pct} aria-label={`${f.fileName} progress`} />
      <div className="stats">
        <span
          className={`state ${retrying(f) || (f.state === 'uploading' && outage) ? 'retrying' : f.state === 'waiting' && captureNeeds ? 'failed' : f.state}`}
        >
          {fileStateText(f, captureNeeds, now, outage)}
        </span>
        <span className="bytes">
          {pct}% · {formatBytes(f.bytesSent)} of {formatBytes(f.size)}
          {f.partsTotal > 0 && f.state !== 'completed' && (
            <span className="parts">
              {' '}
              · part {f.partsDone} of {f.partsTotal}
            </span>
          )}
        </span>
        {f.state === 'uploading' && f.bytesPerSecond > 0 && (
          <span>
            {formatBytes(f.bytesPerSecond)}/s · {formatEta(f.etaSeconds)} left
          </span>
        )}
        {f.error && (
          <details className={retrying(f) ? 'cause' : 'cause error'}>
            <summary>
              {plainCause(f.error)}
              {f.state === 'failed' && ' — Retry resumes from the parts already uploaded.'}
            </summary>
            <span className="raw">{f.error}</span>
          </details>
        )}
      </div>
      <div className="actions">
        {(f.state === 'uploading' || f.state === 'pending') && (
          <button onClick={() => void control('pause', { fileId: f.id })}>Pause</button>
        )}
        {f.state === 'paused' && <button onClick={() => void control('resume', { fileId: f.id })}>Resume</button>}
        {(f.state === 'failed' || f.state === 'cancelled') && (
          <button onClick={() => void control('retry', { fileId: f.id })}>Retry</button>
        )}
        {retrying(f) && <button onClick={() => void control('retry', { fileId: f.id })}>Retry now</button>}
        {f.state !== 'completed' && (
          <button
            className="link"
            aria-label={`Remove ${f.fileName}`}
            onClick={() => {
              // One lens of a registered capture: the platform keeps the capture, without this file.
              if (
                window.confirm(
                  `Remove ${f.fileName} from this computer's upload queue? It will not be uploaded; nothing changes at the platform, where its capture stays without this file.`,
                )
              ) {
                void removeFile(f.id);
              }
            }}
          >
            Remove
          </button>
        )}
      </div>
    </div>
  );
}
