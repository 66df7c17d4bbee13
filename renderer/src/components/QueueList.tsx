import { useEffect, useMemo, useState } from 'react';
import type { RowComponentProps } from 'react-window';
import { List, useListRef } from 'react-window';
import { wholeQueueCounts } from '../../../shared/batch-progress.js';
import { useApp } from '../store.js';
import { ActivityLog } from './queue/ActivityLog.js';
import { Attention } from './queue/Attention.js';
import { BandwidthLimit, PauseUntil } from './queue/BandwidthLimit.js';
import { BatchRow } from './queue/BatchRow.js';
import { CaptureRow } from './queue/QueueCaptureRow.js';
import { FileRow } from './queue/FileRow.js';
import { Overall } from './queue/Overall.js';
import { QueueTools } from './queue/QueueTools.js';
import { Summary } from './queue/Summary.js';
import { Warnings } from './queue/Warnings.js';
import { takeLinkedCapture } from './records/queue-link.js';
import type { QueueRow } from './queue/list-rows.js';
import { ROW_HEIGHT, queueRows } from './queue/list-rows.js';
import './queue/queue.css';

function Row({
  index,
  style,
  rows,
  linked,
  ariaAttributes,
}: RowComponentProps<{ rows: QueueRow[]; linked: number | null }>) {
  const r = rows[index]!;
  if (r.kind === 'batch')
    return <BatchRow batch={r.key} ids={r.ids} open={r.open} style={style} aria={ariaAttributes} />;
  return r.kind === 'capture' ? (
    <CaptureRow id={r.id} style={style} aria={ariaAttributes} linked={r.id === linked} />
  ) : (
    <FileRow id={r.id} style={style} aria={ariaAttributes} />
  );
}

/**
 * The upload queue by capture, filling the window: the whole queue's bar and counts, filters,
 * "Show every file", "Clear completed", and a windowed list, so 10,000 files stay smooth: one
 * line per capture (its files folded inside until opened), captures at work first, completed
 * ones folded into one line per batch. The list's
 * layout follows `rowsVersion` (rows added, removed, or changing state), never a progress tick.
 */
export function QueueList() {
  const rowsVersion = useApp((s) => s.rowsVersion);
  const filter = useApp((s) => s.filter);
  const setFilter = useApp((s) => s.setFilter);
  const control = useApp((s) => s.control);
  const blocked = useApp((s) => s.blocked);
  const totals = useApp((s) => s.totals);
  const folding = useApp((s) => s.folding);
  const rows = useMemo(() => {
    const s = useApp.getState();
    return queueRows(s.captureOrder, s.filesOf, s.captures, s.files, filter, folding);
    // rowsVersion stands for the rows' structure: the rows are read from the store when it moves.
  }, [rowsVersion, filter, folding]);
  // A capture linked from the office's day view: shown under any filter, scrolled to and marked.
  const listRef = useListRef(null);
  const [linked] = useState(() => takeLinkedCapture());
  useEffect(() => {
    if (linked === null) return;
    const index = rows.findIndex((r) => r.kind === 'capture' && r.id === linked);
    const folded = rows.find((r) => r.kind === 'batch' && !r.open && r.ids.includes(linked));
    if (folded?.kind === 'batch') {
      useApp.getState().toggleBatch(folded.key);
      return;
    }
    if (index < 0) {
      if (filter !== 'all') setFilter('all');
      return;
    }
    listRef.current?.scrollToRow({ index, align: 'start' });
  }, [linked, rows, filter, setFilter, listRef]);
  const whole = wholeQueueCounts(totals);

  return (
    <section className="queue" aria-label="Upload queue">
      <header>
        {/* Focused when the queue is where a person goes next (the card registered): the queue is
            then shown from its top, its first rows in view, not only its heading at the bottom. */}
        <h2
          id="queue-title"
          tabIndex={-1}
          onFocus={(e) => e.currentTarget.closest('section')?.scrollIntoView({ block: 'start' })}
        >
          Queue
        </h2>
        <div className="actions">
          <BandwidthLimit />
          <PauseUntil />
          <button onClick={() => void control('pause', { all: true })}>Pause all</button>
          <button onClick={() => void control('resume', { all: true })}>Resume all</button>
          <button
            disabled={totals.failed + totals.retrying + totals.cancelled === 0}
            title="Send again every file that failed, was cancelled, or waits for its retry time"
            onClick={() => void control('retry', { all: true })}
          >
            Retry all now
          </button>
        </div>
      </header>
      <Overall />
      {blocked && (
        <div className="attention blocked" role="alert" data-testid="queue-blocked">
          <strong>Uploads stopped:</strong> {blocked} Correct it in Settings; nothing queued is lost.
        </div>
      )}
      <Attention />
      <Warnings />
      <QueueTools />
      {rows.length === 0 ? (
        <p className="muted">{whole.files === 0 ? 'Nothing queued yet.' : 'Nothing to show under this filter.'}</p>
      ) : (
        <List
          listRef={listRef}
          className="queue-list"
          rowComponent={Row}
          rowCount={rows.length}
          rowHeight={ROW_HEIGHT}
          rowProps={{ rows, linked }}
        />
      )}
      <Summary />
      <ActivityLog />
    </section>
  );
}
