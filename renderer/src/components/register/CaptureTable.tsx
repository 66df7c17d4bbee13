import { useState } from 'react';
import type { SiteWalk } from '../../../../shared/registration.js';
import { localDate, localTime } from '../../../../shared/when.js';
import { formatBytes } from '../../display-format.js';
import type { DraftCapture } from '../../placement.js';
import { COLUMN_COUNT } from './capture-row-words.js';
import { CaptureRow } from './RegisterCaptureRow.js';
import { SelectMany } from './SelectMany.js';
import type { TableSpot } from './table-keys.js';
import { onTableKey, spotOf } from './table-keys.js';

/** A row for a recording that cannot be registered, with the reason (a lone lens, a refused group, already queued). */
export interface BlockedRow {
  key: string;
  names: string[];
  reason: string;
}

// The walk's day, then its times in the one format; a time is measured against the
// walk's own day, so its date shows only when the walk crosses midnight.
const day = (ms: number) => localDate(new Date(ms).toISOString(), { weekday: true });
const hm = (ms: number, start: number) => localTime(ms, { now: start });
const bytesOf = (ds: DraftCapture[]) => ds.reduce((n, d) => n + d.proposal.files.reduce((m, f) => m + f.size, 0), 0);

/**
 * The card as a table: one row per capture, grouped into site walks by gaps in
 * recording time, each walk and the whole card selectable at once; the recordings that cannot be
 * registered follow with their reasons. The table is one tab stop: its keys (table-keys.ts,
 *) move between rows and select ranges, described to screen readers by `hintId`.
 */
export function CaptureTable({
  walks,
  blocked,
  hintId,
}: {
  walks: SiteWalk<DraftCapture>[];
  blocked: BlockedRow[];
  hintId?: string;
}) {
  const all = walks.flatMap((w) => w.items.map((d) => d.proposal.key));
  const [spot, setSpot] = useState<TableSpot | null>(null);
  // The tab stop: the control last focused while its row is listed, else the first capture's checkbox.
  const reachable =
    spot && (spot.key === 'all' || walks.some((w) => `walk:${w.number}` === spot.key) || all.includes(spot.key));
  const stop: TableSpot = reachable ? spot : { key: all[0] ?? 'all', col: 0 };
  const tabOf = (key: string, col = 0) => (stop.key === key && stop.col === col ? 0 : -1);
  return (
    <div className="capture-table-wrap">
      <table
        className="capture-table"
        aria-label="Captures to register"
        aria-describedby={hintId}
        onKeyDown={onTableKey}
        onFocus={(e) => {
          const at = spotOf(e.target);
          if (at && (at.key !== spot?.key || at.col !== spot.col)) setSpot(at);
        }}
      >
        <thead>
          <tr data-nav="all">
            <th scope="col">
              <SelectMany keys={all} label="Select all captures" tabIndex={tabOf('all')} />
            </th>
            <th scope="col">Recorded</th>
            <th scope="col">Recording</th>
            <th scope="col" className="num">
              Lenses
            </th>
            <th scope="col" className="num">
              Duration
            </th>
            <th scope="col">Camera</th>
            <th scope="col" className="num">
              Size
            </th>
            <th scope="col">Structure · design</th>
            <th scope="col">Type</th>
          </tr>
        </thead>
        {walks.map((w) => (
          <tbody key={w.number} aria-label={`Site walk ${w.number}`}>
            <tr className="walk-head" data-nav={`walk:${w.number}`}>
              <th colSpan={COLUMN_COUNT} scope="colgroup">
                <SelectMany
                  keys={w.items.map((d) => d.proposal.key)}
                  label={`Select site walk ${w.number}`}
                  tabIndex={tabOf(`walk:${w.number}`)}
                />
                <span className="walk-title">Site walk {w.number}</span>
                <span className="muted">
                  {Number.isNaN(w.start)
                    ? 'recording time unknown'
                    : `${day(w.start)}, ${hm(w.start, w.start)}–${hm(w.end, w.start)}`}{' '}
                  · {w.items.length} capture
                  {w.items.length === 1 ? '' : 's'} · {formatBytes(bytesOf(w.items))}
                </span>
              </th>
            </tr>
            {w.items.map((d) => (
              <CaptureRow key={d.proposal.key} draft={d} tabCol={stop.key === d.proposal.key ? stop.col : null} />
            ))}
          </tbody>
        ))}
        {blocked.length > 0 && (
          <tbody aria-label="Cannot be registered">
            <tr className="walk-head">
              <th colSpan={COLUMN_COUNT} scope="colgroup">
                <span className="walk-title">Cannot be registered</span>{' '}
                <span className="muted">{blocked.length} · nothing is sent for these</span>
              </th>
            </tr>
            {blocked.map((b) => (
              <tr key={b.key} className="blocked" data-testid="blocked-row">
                <td />
                <td colSpan={3} className="recording">
                  {b.names.join(', ')}
                </td>
                <td colSpan={COLUMN_COUNT - 4} className="error">
                  {b.reason}
                </td>
              </tr>
            ))}
          </tbody>
        )}
      </table>
    </div>
  );
}
