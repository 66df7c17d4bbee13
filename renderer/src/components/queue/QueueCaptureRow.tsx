import type { CSSProperties } from 'react';
import { useEffect, useRef } from 'react';
import { useNow } from '../../use-now.js';
import { captureFullName, captureLabelParts } from '../../../../shared/capture-label.js';
import { formatBytes, formatTime } from '../../display-format.js';
import { useApp } from '../../store.js';
import { Thumbnail } from '../Thumbnail.js';
import type { RowAria } from './list-rows.js';
import { captureNeedsYou } from './list-rows.js';
import { CaptureRowActions } from './CaptureRowActions.js';
import { captureStateText, doingClass, useCaptureSum, usePlaceName } from './capture-row-state.js';

/**
 * A capture's line in the queue: where it goes (structure and design by name), when it was
 * recorded, its files' progress together, and what happens next; the whole name on hover and in
 * its accessible label. Its files follow as nested rows once opened (a disclosure);
 * "To front" moves it to the front of the queue, "Move back" to its place by age.
 * `linked`: the row a link from the office's day view asked for, marked (aria-current).
 */
export function CaptureRow({
  id,
  style,
  aria,
  linked = false,
}: {
  id: number;
  style: CSSProperties;
  aria: RowAria;
  linked?: boolean;
}) {
  const c = useApp((s) => s.captures[id]);
  // Said relative to now ("Retrying at 14:11" becomes "Retry due since 14:11"), so renewed while the capture waits.
  const now = useNow(5000, c !== undefined && c.state !== 'completed');
  // Where part requests fail now, if they do (the headline's "Waiting for storage").
  const outage = useApp((s) => s.totals.outage?.where ?? null);
  const sum = useCaptureSum(id, now, outage);
  // The first file's first frame, as in the registration table.
  const first = useApp((s) => s.files[s.filesOf[id]?.[0] ?? -1]);
  // A string, so the row re-renders only when its files' names change, not while bytes move.
  const fileNames = useApp((s) => (s.filesOf[id] ?? []).flatMap((f) => s.files[f]?.fileName ?? []).join('\n'));
  const opened = useApp((s) => s.folding.detailed || !!s.folding.open[id]);
  const toggle = useApp((s) => s.toggleCapture);
  const place = usePlaceName(c?.structure ?? '', c?.design ?? null);
  // The list scrolls to a linked row; the page too must bring it into view (the queue may sit
  // below the fold, under the headline, warnings and messages).
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (linked) ref.current?.scrollIntoView({ block: 'nearest' });
  }, [linked]);
  if (!c) return <div style={style} {...aria} />;
  const pct = sum.size ? Math.floor((sum.sent / sum.size) * 100) : 0;
  const front = (c.priority ?? 0) > 0;
  const kind = c.type === 'exterior' ? 'Exterior' : 'Interior';
  // The whole name and place on hover and for screen readers: the row itself may cut them short.
  const full = `${c.label} · ${place} · ${kind} · recorded ${formatTime(c.capturedAt)}`;
  // The camera's own file names too, on hover: the label is the time the platform got, not theirs.
  const names = fileNames ? fileNames.split('\n') : [];
  const label = captureLabelParts(c.label);
  const state = captureStateText(c, sum.doing, now);
  return (
    <div
      ref={ref}
      className={`capture-row ${c.state}${linked ? ' linked' : ''}`}
      style={style}
      {...aria}
      aria-current={linked ? 'true' : undefined}
      aria-label={full}
      data-testid="queue-capture"
      data-capture={c.label}
      data-capture-row={id}
      data-state={c.state}
      data-warnings={c.warnings?.length || undefined}
      data-front={front || undefined}
    >
      <button
        className="disclosure"
        aria-expanded={opened}
        onClick={() => toggle(id)}
        aria-label={`Files of ${c.label} (${sum.count})`}
        title={`${opened ? 'Fold' : 'Show'} the ${sum.count} file${sum.count === 1 ? '' : 's'} of ${c.label}`}
      >
        <span aria-hidden="true">{opened ? '▾' : '▸'}</span>
      </button>
      {first ? <Thumbnail path={first.path} name={first.fileName} /> : <span className="thumb-slot" />}
      <div className="name" title={captureFullName(full, names)}>
        <strong className="capture-title">
          {front && (
            <span className="front-mark" title="Moved to the front of the queue">
              ⇡{' '}
            </span>
          )}
          {/* The date every capture of a card shares gives way first; the time and segment never do. */}
          <span className="label-common">{label.common}</span>
          {/* A name without the date (a video named by a person) is cut at its end, as any long name. */}
          <span className={label.common ? 'label-distinct' : 'label-rest'}>{label.distinct}</span>
          <span className="label-rest">{label.rest}</span>
          {c.warnings?.length ? (
            // Marked in the queue as at registration; the words are in the list of captures with warnings.
            <span
              className="capture-warning"
              title={c.warnings.join('\n')}
              aria-label={`, warning: ${c.warnings.join(' ')}`}
            >
              {' '}
              ⚠
            </span>
          ) : null}
        </strong>
        <span className="muted">
          {place} · {kind} · recorded {formatTime(c.capturedAt)}
        </span>
      </div>
      <progress max={100} value={pct} aria-label={`${c.label} progress`} />
      <div className="stats">
        <span
          className={`state ${captureNeedsYou(c) ? 'failed' : c.state === 'registered' ? doingClass(sum.doing) : c.state}`}
        >
          {state}
        </span>
        <span>
          {sum.done} of {sum.count} file{sum.count === 1 ? '' : 's'} · {formatBytes(sum.sent)} of{' '}
          {formatBytes(sum.size)}
        </span>
      </div>
      <CaptureRowActions capture={c} done={sum.done} count={sum.count} />
    </div>
  );
}
