import { useEffect, useMemo, useState } from 'react';
import type { SiteWalk } from '../../../../shared/registration.js';
import { localDate, localTime } from '../../../../shared/when.js';
import { formatBytes } from '../../display-format.js';
import type { DraftCapture } from '../../placement.js';
import { isReady, nameOfPlacement } from '../../placement.js';
import { useApp } from '../../store.js';
import { COLUMN_COUNT, clock } from './capture-row-words.js';
import { CaptureRow } from './RegisterCaptureRow.js';
import { SelectMany } from './SelectMany.js';
import type { TableSpot } from './table-keys.js';
import { onTableKey, spotOf } from './table-keys.js';
import { WalkPlacer } from './WalkPlacer.js';

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
/** The local day (YYYY-MM-DD) of an ISO 8601 time; the time itself when unreadable. */
const localDay = (iso: string) => {
  const d = new Date(iso);
  return Number.isNaN(d.getTime())
    ? iso
    : `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;
};
const bytesOf = (ds: DraftCapture[]) => ds.reduce((n, d) => n + d.proposal.files.reduce((m, f) => m + f.size, 0), 0);

/** One empty list for a window without settings yet (a selector answering a new `[]` would redraw on every update). */
const NO_STRUCTURES: readonly never[] = [];
/** The place column's width between these (px): "Not chosen" at least; past the most, a name ends in "…" (whole on hover). */
const PLACE_MIN_PX = 140;
const PLACE_MAX_PX = 320;
/** The recorded time's column at least (px): a 24-hour "22 Nov 08:00:00". */
const TIME_MIN_PX = 134;
/** The cells' padding and border across (px), styles.css `.capture-table td`. */
const CELL_PX = 18;
let measuring: CanvasRenderingContext2D | null | undefined;
/**
 * Rows (captures, then those that cannot be registered) drawn in one frame when a card is listed,
 * the next as many CHUNK_MS later, until all are: a hundred rows drawn at once were one task of
 * 50-380 ms of script and 75-450 ms of style and layout on a 2-core machine, the window drawing
 * nothing meanwhile (scripts/bench/app-import.ts). The first rows fill the screen; the others,
 * below the fold, follow within about a tenth of a second.
 */
const CHUNK_ROWS = 25;
const CHUNK_MS = 16;

/**
 * The width in px `text` takes in the table's font (14px, the page's family): the place column is
 * as wide as the widest place chosen, so that what was just chosen reads whole (the columns are
 * fixed: styles.css `.capture-table`).
 */
function textWidth(text: string): number {
  measuring ??= document.createElement('canvas').getContext('2d');
  if (!measuring) return text.length * 8;
  measuring.font = `14px ${getComputedStyle(document.body).fontFamily}`;
  return Math.ceil(measuring.measureText(text).width);
}

/**
 * The widest recorded time the column may show for recordings on these days (YYYY-MM-DD, local),
 * edited (✎) or not: the locale's format decides it, the table's digits being all one width
 * (tabular, styles.css; measured as zeros, among the widest digits of any font), so a time of
 * each day before and after noon stands for them all ("Nov 22 10:22:22 PM" in en-US).
 */
function widestTime(days: string): number {
  return Math.max(
    ...days
      .split('\n')
      .filter((day) => /^\d{4}-\d{2}-\d{2}$/.test(day))
      .flatMap((day) =>
        [10, 22].map((h) => textWidth(`${clock(new Date(`${day}T${h}:22:22`).toISOString()).replace(/\d/g, '0')} ✎`)),
      ),
  );
}

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
  // How many rows are drawn: CHUNK_ROWS more each CHUNK_MS until every one is; back to the first
  // rows when the list empties, so that the next card is drawn the same way.
  const rowCount = all.length + blocked.length;
  const [limit, setLimit] = useState(CHUNK_ROWS);
  useEffect(() => {
    if (rowCount === 0 && limit !== CHUNK_ROWS) setLimit(CHUNK_ROWS);
    if (limit >= rowCount) return;
    const timer = setTimeout(() => setLimit((n) => n + CHUNK_ROWS), CHUNK_MS);
    return () => clearTimeout(timer);
  }, [limit, rowCount]);
  // Each walk's first row's place among the rows.
  const offsets = walks.map((_, i) => walks.slice(0, i).reduce((n, w) => n + w.items.length, 0));
  const blockedShown = Math.max(0, Math.min(blocked.length, limit - all.length));
  const structures = useApp((s) => s.settings?.structures ?? NO_STRUCTURES);
  // The places chosen, as one string: measured again only when they change.
  const places = [...new Set(walks.flatMap((w) => w.items.map((d) => nameOfPlacement(structures, d.form) ?? '')))]
    .sort()
    .join('\n');
  // The days recorded on (local), as one string: the time column is measured again only when they change.
  const days = [...new Set(walks.flatMap((w) => w.items.map((d) => localDay(d.form.capturedAt))))].sort().join('\n');
  const timeWidth = useMemo(() => Math.max(TIME_MIN_PX, widestTime(days) + CELL_PX), [days]);
  const placeWidth = useMemo(
    () => Math.min(PLACE_MAX_PX, Math.max(PLACE_MIN_PX, ...places.split('\n').map((p) => textWidth(p) + CELL_PX))),
    [places],
  );
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
            <th scope="col" style={{ width: timeWidth }}>
              Recorded
            </th>
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
            <th scope="col" style={{ width: placeWidth }}>
              Structure · design
            </th>
            <th scope="col">Type</th>
          </tr>
        </thead>
        {walks.map(
          (w, i) =>
            offsets[i]! < limit && (
              <tbody key={w.number} aria-label={`Site walk ${w.number}`}>
                <tr className="walk-head" data-nav={`walk:${w.number}`}>
                  <th colSpan={COLUMN_COUNT} scope="colgroup">
                    <SelectMany
                      keys={w.items.map((d) => d.proposal.key)}
                      label={`Select site walk ${w.number}`}
                      tabIndex={tabOf(`walk:${w.number}`)}
                    />
                    <span className="walk-title">Site walk {w.number}</span>
                    <WalkPlacer
                      walk={w.number}
                      keys={w.items.map((d) => d.proposal.key)}
                      tabIndex={tabOf(`walk:${w.number}`, 1)}
                      unplaced={w.items.some((d) => !isReady(d, structures))}
                    />
                    <span className="muted">
                      {Number.isNaN(w.start)
                        ? 'recording time unknown'
                        : `${day(w.start)}, ${hm(w.start, w.start)}–${hm(w.end, w.start)}`}{' '}
                      · {w.items.length} capture
                      {w.items.length === 1 ? '' : 's'} · {formatBytes(bytesOf(w.items))}
                    </span>
                  </th>
                </tr>
                {w.items.slice(0, limit - offsets[i]!).map((d) => (
                  <CaptureRow key={d.proposal.key} draft={d} tabCol={stop.key === d.proposal.key ? stop.col : null} />
                ))}
              </tbody>
            ),
        )}
        {blockedShown > 0 && (
          <tbody aria-label="Cannot be registered">
            <tr className="walk-head">
              <th colSpan={COLUMN_COUNT} scope="colgroup">
                <span className="walk-title">Cannot be registered</span>{' '}
                <span className="muted">{blocked.length} · nothing is sent for these</span>
              </th>
            </tr>
            {blocked.slice(0, blockedShown).map((b) => (
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
