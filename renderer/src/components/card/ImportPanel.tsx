import type { ImportFileView, ImportView } from '../../../../shared/ipc.js';
import { useState } from 'react';
import { useApp } from '../../store.js';
import { formatBytes, formatCopyProgress } from '../../display-format.js';
import { describeKnownCard } from '../../../../shared/card-offer.js';

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;
const percent = (done: number, total: number) => (total > 0 ? Math.floor((done / total) * 100) : 100);

/** What a file copied by an earlier import says: its recording uploaded, waiting to upload, or copied and not placed. */
const ALREADY = { uploaded: 'Already uploaded', queued: 'Already queued', copied: 'Already copied' } as const;

/** A file's state in words: Waiting, Copying 45 %, Verified, Not verified, Already uploaded / queued / copied. */
function stateOf(f: ImportFileView): string {
  if (f.state === 'copying')
    return f.bytesDone >= f.size ? 'Reading back' : `Copying ${percent(f.bytesDone, f.size)} %`;
  if (f.state === 'known') return ALREADY[f.already ?? 'copied'];
  return { waiting: 'Waiting', verified: 'Verified', failed: 'Not verified' }[f.state];
}

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
  const eject = useApp((s) => s.ejectImport);
  const [ejecting, setEjecting] = useState(false);
  const [ejected, setEjected] = useState<{ ejected: boolean; message: string } | null>(null);
  const onEject = async () => {
    setEjecting(true);
    setEjected(await eject(view.id));
    setEjecting(false);
  };
  const copied = view.files.filter((f) => f.state !== 'known');
  const verified = copied.filter((f) => f.state === 'verified').length;
  const failed = view.files.filter((f) => f.state === 'failed');
  const known = view.known?.known ? describeKnownCard(view.known) : '';
  const titleId = `import-${view.id}-title`;
  return (
    <article className={`import ${view.phase}`} aria-labelledby={titleId} data-testid="import">
      <div className="import-head">
        <h2 id={titleId}>{view.phase === 'copying' ? `Importing ${view.cardName}` : `Import of ${view.cardName}`}</h2>
        {view.phase !== 'copying' && (
          <button className="link" onClick={() => void dismiss(view.id)}>
            Dismiss
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
          Card safe to remove: {plural(copied.length, 'file')} ({formatBytes(view.bytesTotal)}) copied and verified in{' '}
          {view.destination}. Place the recordings below to upload them from the copies.
        </p>
      )}
      {view.safeToRemove && copied.length === 0 && (
        <p className="card-safe" role="status" data-testid="card-safe">
          Card safe to remove: every recording on it has a verified copy in the library.
        </p>
      )}
      {view.safeToRemove && (
        <div className="card-eject">
          <button
            aria-label={`Eject ${view.cardName}`}
            disabled={ejecting || ejected?.ejected === true}
            onClick={() => void onEject()}
          >
            Eject
          </button>
          {ejected && (
            <p
              role={ejected.ejected ? 'status' : 'alert'}
              className={ejected.ejected ? 'card-safe' : 'card-keep'}
              data-testid="card-eject"
            >
              {ejected.message}
            </p>
          )}
        </div>
      )}
      {view.phase === 'done' && !view.safeToRemove && (
        <div className="card-keep" role="alert" data-testid="card-keep">
          <p>
            Keep the card: {failed.length} of {plural(copied.length, 'file')} {failed.length === 1 ? 'was' : 'were'} not
            verified, even copied twice. Import the card again, or copy{' '}
            {failed.length === 1 ? 'this file' : 'these files'} by hand:
          </p>
          <ul>
            {failed.map((f) => (
              <li key={f.source}>
                <strong>{f.name}</strong>: {f.error}
              </li>
            ))}
          </ul>
          <p>
            Recordings placed from {failed.length === 1 ? 'this file' : 'these files'} upload straight from the card:
            keep it in the reader until they finish.
          </p>
        </div>
      )}
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
      {view.files.length > 0 && (
        <details>
          <summary>Files ({view.files.length})</summary>
          <table className="import-files">
            <thead>
              <tr>
                <th scope="col">File</th>
                <th scope="col">Size</th>
                <th scope="col">State</th>
                <th scope="col">Copied</th>
              </tr>
            </thead>
            <tbody>
              {view.files.map((f) => (
                <tr key={f.source} data-state={f.state}>
                  <th scope="row">{f.name}</th>
                  <td>{formatBytes(f.size)}</td>
                  <td>{stateOf(f)}</td>
                  <td>
                    <progress max={Math.max(1, f.size)} value={f.bytesDone} aria-label={`${f.name} copied`} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </details>
      )}
    </article>
  );
}
