import { clockTime } from '../../../../shared/causes.js';
import { formatBytes, formatEta } from '../../format.js';
import { useApp } from '../../store.js';
import { queueHeadline } from './headline.js';

/**
 * The whole queue at a glance, readable from across the room: one bar with percent and bytes, a
 * whole-queue ETA from the smoothed rate over what still moves by itself (paused and failed
 * files are left out), counts of what is done, moving, waiting to retry and needing a person,
 * and whether the computer is kept awake for the uploads.
 */
export function Overall() {
  const t = useApp((s) => s.totals);
  const rate = useApp((s) => s.smoothedRate);
  const keptAwake = useApp((s) => s.keptAwake);
  const pct = t.bytesTotal ? Math.floor((t.bytesDone / t.bytesTotal) * 100) : 0;
  const moving = t.uploading > 0 && rate > 0;
  const blocked = useApp((s) => s.blocked !== null);
  const hold = useApp((s) => s.hold);
  const head = queueHeadline(t, { blocked, pausedUntil: hold ? (hold.until ? clockTime(Date.parse(hold.until)) : 'resumed') : undefined });
  return (
    <div className={`overall ${head.tone}`}>
      <div className="overall-line">
        <span className="overall-pct" data-testid="queue-percent">
          {pct}%
        </span>
        <span className={`overall-state ${head.tone}`} data-testid="queue-state">
          {head.text}
        </span>
        <progress max={100} value={pct} aria-label="Whole queue progress" />
      </div>
      <div className="summary" data-testid="queue-summary">
        {t.completed} of {t.files - t.cancelled} files completed · {formatBytes(t.bytesDone)} of {formatBytes(t.bytesTotal)}
        {moving ? ` · ${formatBytes(rate)}/s · about ${formatEta(t.bytesRemaining / rate)} left` : t.uploading > 0 ? ' · starting…' : ''}
      </div>
      <div className="counts" data-testid="queue-counts">
        <span className="count-ok">{t.completed} completed</span> · <span>{t.uploading} uploading</span> · <span>{t.queued} queued</span> ·{' '}
        <span className={t.retrying ? 'count-warn' : undefined}>{t.retrying} waiting to retry</span> ·{' '}
        <span className={t.needYou ? 'count-err' : undefined}>{t.needYou} need you</span>
        {t.paused > 0 && <> · <span>{t.paused} paused</span></>}
      </div>
      {keptAwake && (
        <p className="kept-awake" data-testid="kept-awake">
          <span aria-hidden="true">☀</span> Keeping this computer awake until the queue is done; closing the window does not stop the uploads.
        </p>
      )}
    </div>
  );
}
