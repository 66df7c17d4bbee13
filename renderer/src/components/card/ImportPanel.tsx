import type { ImportView } from '../../../../shared/ipc.js';
import { useState } from 'react';
import { useApp } from '../../store.js';
import { formatBytes, formatCopyProgress } from '../../display-format.js';
import { describeKnownCard } from '../../../../shared/card-offer.js';
import { CardKeep } from './CardKeep.js';
import { ImportEject } from './ImportEject.js';
import { ImportFiles, percent } from './ImportFiles.js';

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/**
 * One card's import: the whole card's bytes copied and files verified (while copying, with the
 * copy's speed and time left: "412 MiB of 1.2 GiB · 87.0 MiB/s · about 9 s left"), each file's
 * own progress under a disclosure, then "Card safe to remove" when every file was read back with
 * the card's hash with **Eject** beside it (main/card/eject.ts; what it did, or what to do when the
 * card is busy, is said under it), or "Keep the card" naming each file that failed twice. The card's recordings
 * are in the registration list from the start (cards-slice.ts): the panel says they
 * can be placed at once and upload from their verified copies.
 */
export function ImportPanel({ view }: { view: ImportView }) {
  const dismiss = useApp((s) => s.dismissImport);
  const stop = useApp((s) => s.stopImport);
  const [stopping, setStopping] = useState(false);
  const copied = view.files.filter((f) => f.state !== 'known');
  const verified = copied.filter((f) => f.state === 'verified').length;
  // The rest of the card, copied whole after the recordings: counted, not listed ("Copy the whole card").
  const others = view.others
    ? ` and ${plural(view.others.files, 'other file')} (previews, thumbnails, MISC: the whole card)`
    : '';
  const known = view.known?.known ? describeKnownCard(view.known) : '';
  const titleId = `import-${view.id}-title`;
  return (
    <article className={`import ${view.phase}`} aria-labelledby={titleId} data-testid="import">
      <div className="import-head">
        <h2 id={titleId}>{view.phase === 'copying' ? `Importing ${view.cardName}` : `Import of ${view.cardName}`}</h2>
        {view.phase !== 'copying' ? (
          <button className="link" onClick={() => void dismiss(view.id)}>
            Dismiss
          </button>
        ) : (
          // Stops within a second: verified copies stay, half-written ones are removed (cards.stop).
          <button disabled={stopping} onClick={() => (setStopping(true), void stop(view.id))}>
            {stopping ? 'Stopping…' : 'Stop import'}
          </button>
        )}
      </div>
      {known && (
        <p className="card-known" role="status" data-testid="card-known">
          {known}.{' '}
          {copied.length ? 'Only the new recordings are copied.' : 'Nothing new on the card: nothing is copied.'}
        </p>
      )}
      {view.phase !== 'failed' && copied.length > 0 && (
        <>
          <progress
            max={Math.max(1, view.bytesTotal)}
            value={Math.min(view.bytesDone, view.bytesTotal)}
            aria-label={`Import of ${view.cardName}`}
          />
          <p data-testid="import-summary">
            {percent(view.bytesDone, view.bytesTotal)} %{' · '}
            {view.phase === 'copying'
              ? formatCopyProgress(view.bytesDone, view.bytesTotal, view.bytesPerSecond, view.secondsLeft)
              : `${formatBytes(view.bytesDone)} of ${formatBytes(view.bytesTotal)} copied`}
            {' · '}
            {verified} of {plural(copied.length, 'file')} verified
            {view.others && ` · ${view.others.verified} of ${plural(view.others.files, 'other file')} verified`}
          </p>
        </>
      )}
      {view.phase === 'copying' && (
        <p className="muted">
          Keep the card in the reader until it says it is safe to remove. Place the recordings below now: each one
          uploads from its copy once verified, never from the card.
        </p>
      )}
      {view.safeToRemove && copied.length > 0 && (
        <p className="card-safe" role="status" data-testid="card-safe">
          Card safe to remove: {plural(copied.length, 'file')}
          {others} ({formatBytes(view.bytesTotal)}) copied and verified in {view.destination}. Place the recordings
          below to upload them from the copies.
        </p>
      )}
      {view.safeToRemove && copied.length === 0 && (
        <p className="card-safe" role="status" data-testid="card-safe">
          Card safe to remove: every recording on it has a verified copy in the library.
        </p>
      )}
      {view.safeToRemove && <ImportEject view={view} />}
      {view.phase === 'done' && !view.safeToRemove && <CardKeep view={view} />}
      {view.phase === 'done' && view.reportPath && (
        <p className="muted" data-testid="import-report">
          Transfer report: {view.reportPath}
        </p>
      )}
      {view.phase === 'failed' && (
        <p className="card-keep" role="alert" data-testid="card-keep">
          {view.error}
        </p>
      )}
      <ImportFiles files={view.files} />
    </article>
  );
}
