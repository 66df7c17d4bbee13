import { useMemo } from 'react';
import type { RowComponentProps } from 'react-window';
import { List } from 'react-window';
import { clockTime, plainCause } from '../../../shared/causes.js';
import type { QueueCapture, QueueFile } from '../../../shared/ipc.js';
import { formatBytes, formatEta } from '../format.js';
import { useApp } from '../store.js';

const ROW_HEIGHT = 72;

const STATE_LABEL: Record<QueueFile['state'], string> = {
  waiting: 'Registering',
  pending: 'Queued',
  uploading: 'Uploading',
  paused: 'Paused',
  completed: 'Completed',
  failed: 'Needs you',
  cancelled: 'Cancelled',
};

/** Whether a file waits to be tried again by itself (a passing failure, with its retry time). */
const retrying = (f: QueueFile) => f.state === 'pending' && f.retryAt !== null;

/** What the row says about a file's state: what happens next, not only what happened. */
function stateText(f: QueueFile): string {
  if (retrying(f)) return `Retrying at ${clockTime(f.retryAt!)} (attempt ${f.attempts + 1})`;
  return STATE_LABEL[f.state];
}

/** The upload queue: every file with its progress and controls; windowed so 1,000 files stay smooth. */
export function QueueList() {
  const queue = useApp((s) => s.queue);
  const control = useApp((s) => s.control);
  const labels = useMemo(() => new Map(queue.captures.map((c) => [c.id, c.label])), [queue.captures]);
  const attention = queue.captures.filter((c) => ['registration_unknown', 'rejected', 'failed'].includes(c.state) || (c.state === 'queued' && c.error));
  const active = queue.files.filter((f) => f.state !== 'completed' && f.state !== 'cancelled');
  const total = active.reduce((n, f) => n + f.size, 0);
  const sent = active.reduce((n, f) => n + f.bytesSent, 0);
  const speed = active.reduce((n, f) => n + f.bytesPerSecond, 0);
  const counts = {
    completed: queue.files.filter((f) => f.state === 'completed').length,
    uploading: queue.files.filter((f) => f.state === 'uploading').length,
    retrying: queue.files.filter(retrying).length,
    needYou: queue.files.filter((f) => f.state === 'failed').length + attention.length,
  };

  return (
    <section className="queue" aria-label="Upload queue">
      <header>
        <h2>Queue</h2>
        <span className="summary" data-testid="queue-summary">
          {queue.files.filter((f) => f.state === 'completed').length} of {queue.files.length} files completed
          {active.length > 0 && ` · ${formatBytes(sent)} of ${formatBytes(total)} · ${formatBytes(speed)}/s · ${formatEta(speed > 0 ? (total - sent) / speed : null)} left`}
        </span>
        <span className="counts" data-testid="queue-counts">
          {counts.uploading} uploading · {counts.retrying} waiting to retry · {counts.needYou} need you
        </span>
        <div className="actions">
          <BandwidthLimit />
          <button onClick={() => void control('pause', { all: true })}>Pause all</button>
          <button onClick={() => void control('resume', { all: true })}>Resume all</button>
          <button onClick={() => void control('retry', { all: true })}>Retry failed</button>
        </div>
      </header>
      {queue.blocked && (
        <div className="attention blocked" role="alert" data-testid="queue-blocked">
          <strong>Uploads stopped:</strong> {queue.blocked} Correct it in Settings; nothing queued is lost.
        </div>
      )}
      {attention.map((c) => (
        <AttentionRow key={c.id} capture={c} />
      ))}
      {queue.files.length === 0 ? (
        <p className="muted">Nothing queued yet.</p>
      ) : (
        <List
          className="queue-list"
          rowComponent={FileRow}
          rowCount={queue.files.length}
          rowHeight={ROW_HEIGHT}
          rowProps={{ files: queue.files, labels }}
          // With no scrolling needed the list lets an opened cause show past its last row.
          style={{ height: Math.min(queue.files.length, 8) * ROW_HEIGHT, ...(queue.files.length <= 8 ? { overflow: 'visible' } : {}) }}
        />
      )}
    </section>
  );
}

// Site uplinks can be slower than 1 MiB/s (8 Mbit/s): the lowest choices go down to 32 KiB/s.
const LIMITS = [32, 64, 128, 256, 512].map((k) => k * 1024).concat([1, 2, 5, 10, 20, 50, 100].map((m) => m * 1024 * 1024));

/** A limit as people compare it with their uplink: `256 KiB/s (2.1 Mbit/s)`. */
const limitLabel = (b: number) =>
  `${b < 1024 * 1024 ? `${b / 1024} KiB/s` : `${b / 1024 / 1024} MiB/s`} (${((b * 8) / 1e6).toFixed(b < 1024 * 1024 ? 1 : 0)} Mbit/s)`;

/** The upload speed limit for all files together, applied at once while uploads run. */
function BandwidthLimit() {
  const limit = useApp((s) => s.settings?.bandwidthBytesPerSecond ?? null);
  const setBandwidth = useApp((s) => s.setBandwidth);
  return (
    <label className="inline">
      Upload limit
      <select value={limit === null ? '' : String(limit)} onChange={(e) => void setBandwidth(e.target.value ? Number(e.target.value) : null)}>
        <option value="">No limit</option>
        {LIMITS.map((b) => (
          <option key={b} value={String(b)}>
            {limitLabel(b)}
          </option>
        ))}
      </select>
    </label>
  );
}

function AttentionRow({ capture }: { capture: QueueCapture }) {
  const resolve = useApp((s) => s.resolve);
  const remove = useApp((s) => s.removeCapture);
  return (
    <div className="attention" role="alert" data-testid="attention">
      <strong>{capture.label}</strong>: {capture.error ?? capture.state}
      <div className="actions">
        {capture.state === 'registration_unknown' && (
          <>
            <button onClick={() => void resolve(capture.id, 'register-again')}>Register again</button>
            <button onClick={() => void resolve(capture.id, 'drop')}>It is on the platform: drop it</button>
          </>
        )}
        {capture.state !== 'registration_unknown' && <button onClick={() => void remove(capture.id)}>Remove</button>}
      </div>
    </div>
  );
}

function FileRow({ index, style, files, labels }: RowComponentProps<{ files: QueueFile[]; labels: Map<number, string> }>) {
  const f = files[index]!;
  const control = useApp((s) => s.control);
  const remove = useApp((s) => s.removeCapture);
  const pct = f.size ? Math.floor((f.bytesSent / f.size) * 100) : 0;
  return (
    <div
      className={`file-row ${f.state}`}
      style={style}
      data-testid="file-row"
      data-file={f.fileName}
      data-state={f.state}
      data-retrying={retrying(f) ? 'true' : undefined}
      data-parts-done={f.partsDone}
    >
      <div className="name">
        <strong>{f.fileName}</strong>
        <span className="muted"> · {labels.get(f.captureRow)}</span>
      </div>
      <progress max={100} value={pct} aria-label={`${f.fileName} progress`} />
      <div className="stats">
        <span className={`state ${retrying(f) ? 'retrying' : f.state}`}>{stateText(f)}</span>
        <span>
          {pct}% · {formatBytes(f.bytesSent)} of {formatBytes(f.size)} · part {f.partsDone} of {f.partsTotal || '—'}
        </span>
        {f.state === 'uploading' && (
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
        {(f.state === 'uploading' || f.state === 'pending') && <button onClick={() => void control('pause', { fileId: f.id })}>Pause</button>}
        {f.state === 'paused' && <button onClick={() => void control('resume', { fileId: f.id })}>Resume</button>}
        {(f.state === 'failed' || f.state === 'cancelled') && <button onClick={() => void control('retry', { fileId: f.id })}>Retry</button>}
        {retrying(f) && <button onClick={() => void control('retry', { fileId: f.id })}>Try now</button>}
        {f.state !== 'uploading' && (
          <button
            className="link"
            onClick={() => {
              // The capture is the unit the platform knows: its files go together, and only here.
              const label = labels.get(f.captureRow) ?? 'this capture';
              const n = files.filter((x) => x.captureRow === f.captureRow).length;
              if (window.confirm(`Remove "${label}" (${n} file${n === 1 ? '' : 's'}) from this computer's upload queue? Nothing changes at the platform.`)) {
                void remove(f.captureRow);
              }
            }}
          >
            Remove capture
          </button>
        )}
      </div>
    </div>
  );
}
