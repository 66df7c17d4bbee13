import type { MouseEvent } from 'react';
import { memo, useState } from 'react';
import { copyStateOf } from '../../cards-slice.js';
import { formatBytes } from '../../display-format.js';
import type { DraftCapture } from '../../placement.js';
import { draftLabel, nameOfPlacement } from '../../placement.js';
import { useApp } from '../../store.js';
import { Thumbnail } from '../Thumbnail.js';
import { COLUMN_COUNT, COPY_WORDS, clock, duration, lenses } from './capture-row-words.js';
import { TimeEditor } from './TimeEditor.js';

/** One empty list for a window without settings yet: a selector answering a new `[]` would redraw the row on every store update. */
const NO_STRUCTURES: readonly never[] = [];

/**
 * One capture of the card: recorded time (local), recording, lenses, duration, camera, size, the
 * place chosen and the type. The time opens an editor in local time with its UTC offset
 * What is kept stays ISO 8601 with a zone. `tabCol` is the column whose
 * control is the table's tab stop (0 the checkbox, 1 the time), or null when it is in another row.
 *
 * Memoised: the table redraws a row only when its own draft object or tab stop changes (the drafts
 * slice replaces only the drafts it changed), and the row's own selectors (selected, copy state)
 * redraw it alone; an import event or another row's change leaves it as it is.
 */
export const CaptureRow = memo(function CaptureRow({
  draft,
  tabCol = null,
}: {
  draft: DraftCapture;
  tabCol?: number | null;
}) {
  const { proposal: p, form } = draft;
  const key = p.key;
  const checked = useApp((s) => s.selected.has(key));
  const structures = useApp((s) => s.settings?.structures ?? NO_STRUCTURES);
  const [editing, setEditing] = useState(false);
  // A string, so the row re-renders only when its own copy's state changes.
  const copy = useApp((s) =>
    copyStateOf(
      s.imports,
      p.files.map((f) => f.path),
    ),
  );
  const place = nameOfPlacement(structures, form);
  const edited = form.capturedAt !== p.capturedAt;
  const time = clock(form.capturedAt);
  // Insta360 names end in the segment number (…_00_012.insv), the number operators read off the camera.
  const segment = /_(\d{3})\.insv$/i.exec(p.files[0]!.name)?.[1];
  const recording = segment ? `segment ${segment}` : p.files[0]!.name;
  const size = p.files.reduce((n, f) => n + f.size, 0);

  const onSelect = (e: MouseEvent<HTMLInputElement>) => useApp.getState().toggleDraft(key, e.shiftKey);
  return (
    <>
      <tr className={checked ? 'selected' : undefined} data-testid="capture-row" data-key={key} data-nav={key}>
        <td>
          <input
            type="checkbox"
            data-col={0}
            tabIndex={tabCol === 0 ? 0 : -1}
            checked={checked}
            onClick={onSelect}
            onChange={() => undefined}
            aria-label={`Select ${draftLabel(draft)}`}
          />
        </td>
        <td>
          <button
            type="button"
            className="link time"
            data-col={1}
            tabIndex={tabCol === 1 ? 0 : -1}
            aria-expanded={editing}
            aria-label={`Capture time ${time}${edited ? ', edited' : ''}: change`}
            onClick={() => setEditing(!editing)}
          >
            {time}
            {edited && ' ✎'}
          </button>
        </td>
        <td className="recording" title={p.files.map((f) => f.name).join('\n')}>
          {/* One line: a long name is cut to "…", never the words after it (· Copying, ⚠ warning). */}
          <div className="recording-line">
            <Thumbnail path={p.files[0]!.path} name={p.files[0]!.name} />
            <span className="recording-name">{recording}</span>
            {copy && (
              <span
                className={`copy-state ${copy}`}
                data-testid="copy-state"
                data-state={copy}
                title={COPY_WORDS[copy][1]}
              >
                {' '}
                · {COPY_WORDS[copy][0]}
              </span>
            )}
            {p.warnings?.length ? (
              // Said before Register: the recording goes up as it is, a person knows to look at it.
              <span
                className="capture-warning"
                data-testid="capture-warning"
                title={p.warnings.join('\n')}
                aria-label={`Warning: ${p.warnings.join(' ')}`}
              >
                {' '}
                ⚠ {p.warnings.length === 1 ? 'warning' : `${p.warnings.length} warnings`}
              </span>
            ) : null}
          </div>
        </td>
        <td className="num">{lenses(p.kind)}</td>
        <td className="num">{duration(p.media.durationSeconds)}</td>
        <td className="camera" title={p.media.camera?.model}>
          {p.media.camera?.model ?? '—'}
        </td>
        <td className="num">{formatBytes(size)}</td>
        <td className={place ? 'place' : 'place unset'} title={place}>
          {place ?? (copy === 'uploaded' || copy === 'queued' ? '—' : 'Not chosen')}
        </td>
        {/* The type shows once chosen with a place: never a default that looks chosen. */}
        <td>{!form.structure ? '—' : form.type === 'interior' ? 'Interior' : 'Exterior'}</td>
      </tr>
      {editing && (
        <tr className="time-editor">
          <td />
          <td colSpan={COLUMN_COUNT - 1}>
            <TimeEditor
              iso={form.capturedAt}
              onChange={(iso) => useApp.getState().setCapturedAt(key, iso)}
              onDone={() => setEditing(false)}
            />
          </td>
        </tr>
      )}
    </>
  );
});
