import { batchProgress } from '../../../../shared/batch-progress.js';
import { formatBytes, formatEta } from '../../display-format.js';
import { useApp } from '../../store.js';
import { useNow } from '../../use-now.js';
import { queueHeadline } from './headline.js';
import { WARNINGS_ID, showWarnings } from './Warnings.js';

/**
 * The batch at a glance, readable from across the room (shared/batch-progress.ts: the captures
 * added since the queue was last empty, earlier batches' files folded into one "Earlier" line): one bar of bytes
 * storage acknowledged, with bytes on the wire drawn apart beneath it; the queue's state from
 * shared/queue-state.ts (the tray and `status` say the same), with since when, the cause, the next
 * try and a "Try now" button during an outage; speed and ETA from acknowledged bytes ("unknown"
 * when nothing is acknowledged); bytes storage lost, when any; counts; and whether the computer is
 * kept awake for the uploads.
 */
export function Overall() {
  const t = useApp((s) => s.totals);
  const keptAwake = useApp((s) => s.keptAwake);
  const blocked = useApp((s) => s.blocked);
  const hold = useApp((s) => s.hold);
  const control = useApp((s) => s.control);
  const now = useNow(5000);
  const progress = batchProgress(t);
  const pct = progress.percent;
  const inFlight = t.bytesInFlight ?? 0;
  const head = queueHeadline(t, { blocked, hold, now });
  const { state } = head;
  const waiting = state.kind === 'waiting-storage' || state.kind === 'waiting-gateway' || state.kind === 'retrying';
  const speed =
    state.kind === 'uploading'
      ? t.bytesPerSecond > 0
        ? ` · ${formatBytes(t.bytesPerSecond)}/s · about ${formatEta(state.etaSeconds)} left`
        : ' · measuring speed…'
      : waiting
        ? ' · time left unknown'
        : '';
  return (
    <div className={`overall ${head.tone}`}>
      <div className="overall-line">
        <span className="overall-pct" data-testid="queue-percent">
          {pct}%
        </span>
        <span className={`overall-state ${head.tone}`} data-testid="queue-state" data-kind={state.kind}>
          {head.text}
        </span>
        <div className="overall-bars">
          <progress max={100} value={pct} aria-label="Progress of this batch" />
          {/* Bytes sent and not yet acknowledged: drawn apart, like a video's buffered bar. */}
          <div className="inflight-bar" aria-hidden="true">
            <span className="acked" style={{ width: `${t.bytesTotal ? (t.bytesDone / t.bytesTotal) * 100 : 0}%` }} />
            <span className="flying" style={{ width: `${t.bytesTotal ? (inFlight / t.bytesTotal) * 100 : 0}%` }} />
          </div>
        </div>
      </div>
      {state.kind === 'done-with-warnings' && (
        <div className="state-detail retrying" data-testid="queue-state-detail">
          <a
            href={`#${WARNINGS_ID}`}
            onClick={(e) => {
              e.preventDefault();
              showWarnings();
            }}
          >
            Show the {t.capturesWarned} capture{t.capturesWarned === 1 ? '' : 's'} with warnings
          </a>
        </div>
      )}
      {/* The credentials' refusal has its own banner under the headline: said once. */}
      {state.detail && !blocked && (
        <div className={`state-detail ${head.tone}`} role="status" data-testid="queue-state-detail">
          <span>{state.detail}</span>
          {waiting && (
            <button
              onClick={() => void control('retry', { all: true })}
              title="Try every file waiting for its retry time now"
            >
              Try now
            </button>
          )}
        </div>
      )}
      <div className="summary" data-testid="queue-summary">
        {progress.filesDone} of {progress.files} files completed · {formatBytes(t.bytesDone)} of{' '}
        {formatBytes(t.bytesTotal)}
        {speed}
        {inFlight > 0 && (
          <span className="muted"> · {formatBytes(inFlight)} on the way, not yet confirmed by storage</span>
        )}
      </div>
      {progress.earlier && (
        <p className="muted" data-testid="queue-earlier">
          {progress.earlier}
        </p>
      )}
      {(t.bytesLost ?? 0) > 0 && (
        <p className="lost" role="status" data-testid="queue-lost">
          Storage lost {formatBytes(t.bytesLost!)} it had confirmed; those parts are being sent again.
        </p>
      )}
      <div className="counts" data-testid="queue-counts">
        <span className="count-ok">{t.completed} completed</span> · <span>{t.uploading} uploading</span> ·{' '}
        <span>{t.queued} queued</span> ·{' '}
        <span className={t.retrying ? 'count-warn' : undefined}>{t.retrying} waiting to retry</span> ·{' '}
        <span className={t.needYou ? 'count-err' : undefined}>{t.needYou} need you</span>
        {t.paused > 0 && (
          <>
            {' '}
            · <span>{t.paused} paused</span>
          </>
        )}
      </div>
      {keptAwake && (
        <p className="kept-awake" data-testid="kept-awake">
          <span aria-hidden="true">☀</span> Keeping this computer awake until the queue is done; closing the window
          does not stop the uploads.
        </p>
      )}
    </div>
  );
}
