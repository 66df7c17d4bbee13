import type { CSSProperties } from 'react';
import { useEffect, useRef } from 'react';
import { useShallow } from 'zustand/react/shallow';
import { retryTime, retryWait } from '../../../../shared/queue-state.js';
import { useNow } from '../../use-now.js';
import type { QueueCapture } from '../../../../shared/ipc.js';
import { captureFullName, captureLabelParts } from '../../../../shared/capture-label.js';
import { formatBytes, formatTime } from '../../display-format.js';
import { useApp } from '../../store.js';
import { Thumbnail } from '../Thumbnail.js';
import type { RowAria } from './list-rows.js';
import { captureNeedsYou, registeredCaptureState } from './list-rows.js';

const CAPTURE_STATE: Record<QueueCapture['state'], string> = {
  queued: 'Waiting to be registered',
  registering: 'Registering',
  registration_unknown: 'Needs you: registration unknown',
  registered: 'Uploading', // said from its files: see registeredCaptureState
  completed: 'Completed',
  failed: 'Needs you',
  rejected: 'Needs you: refused by the service',
};

/** The colour class of what a registered capture is doing (its first word). */
const DOING_CLASS: Record<string, string> = {
  Retrying: 'retrying',
  Retry: 'retrying',
  Paused: 'paused',
  Needs: 'failed',
  Completed: 'completed',
};
/** The colour class of what a registered capture is doing: an outage's wait is coloured as a retry is. */
const doingClass = (doing: string) =>
  doing.startsWith('Waiting for storage') || doing.startsWith('Waiting for the gateway')
    ? 'retrying'
    : DOING_CLASS[doing.split(' ')[0]!];

/** A capture's structure and design by the names people gave them (ids when not named in settings). */
export function usePlaceName(structureId: string, designId: string | null): string {
  return useApp((s) => {
    const st = s.settings?.structures.find((x) => x.id === structureId);
    const design = designId ? (st?.designs.find((d) => d.id === designId)?.name ?? designId) : null;
    return `${st?.name ?? structureId}${design ? ` · ${design}` : ''}`;
  });
}

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
  const sum = useApp(
    useShallow((s) => {
      let size = 0;
      let sent = 0;
      let done = 0;
      const ids = s.filesOf[id] ?? [];
      const files = [];
      for (const f of ids) {
        const file = s.files[f];
        if (!file || file.state === 'cancelled') continue;
        files.push(file);
        size += file.size;
        sent += file.bytesSent;
        if (file.state === 'completed') done++;
      }
      // A string, so the shallow comparison keeps the row still while only bytes move.
      return {
        size,
        sent,
        done,
        count: ids.length,
        doing: registeredCaptureState(files, (ms) => retryWait(ms, now), outage),
      };
    }),
  );
  const remove = useApp((s) => s.removeCapture);
  // The first file's first frame, as in the registration table.
  const first = useApp((s) => s.files[s.filesOf[id]?.[0] ?? -1]);
  // A string, so the row re-renders only when its files' names change, not while bytes move.
  const fileNames = useApp((s) => (s.filesOf[id] ?? []).flatMap((f) => s.files[f]?.fileName ?? []).join('\n'));
  const opened = useApp((s) => s.folding.detailed || !!s.folding.open[id]);
  const toggle = useApp((s) => s.toggleCapture);
  const move = useApp((s) => s.moveCapture);
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
  const state =
    c.state === 'queued' && c.retryAt !== null
      ? `Not registered yet: trying again ${retryTime(c.retryAt, now) === 'any moment' ? 'any moment' : `at ${retryTime(c.retryAt, now)}`}`
      : c.state === 'registered'
        ? sum.doing
        : CAPTURE_STATE[c.state];
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
      <div className="actions">
        {c.state !== 'completed' && sum.done < sum.count && (
          // "The site manager needs floor 3 first": its uploads go first, at once.
          <button
            className="link"
            aria-label={
              front ? `Move ${c.label} back to its place in the queue` : `Move ${c.label} to the front of the queue`
            }
            onClick={() => void move(c.id, !front)}
          >
            {front ? 'Move back' : 'To front'}
          </button>
        )}
        <button
          className="link"
          aria-label={`Remove capture ${c.label}`}
          onClick={() => {
            // The capture is the unit the platform knows: its files go together, and only here.
            if (
              window.confirm(
                `Remove "${c.label}" (${sum.count} file${sum.count === 1 ? '' : 's'}) from this computer's upload queue? Nothing changes at the platform.`,
              )
            ) {
              void remove(c.id);
            }
          }}
        >
          Remove
        </button>
      </div>
    </div>
  );
}
