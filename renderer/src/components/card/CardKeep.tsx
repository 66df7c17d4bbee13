import type { ImportView } from '../../../../shared/ipc.js';

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/**
 * "Keep the card" after an import that did not verify every file: each recording's file that failed
 * twice with why, and how many of the card's other files (previews, thumbnails, MISC, copied with
 * "Copy the whole card") failed, named in the transfer report.
 */
export function CardKeep({ view }: { view: ImportView }) {
  const copied = view.files.filter((f) => f.state !== 'known');
  const failed = view.files.filter((f) => f.state === 'failed');
  const others = view.others;
  return (
    <div className="card-keep" role="alert" data-testid="card-keep">
      {failed.length > 0 && (
        <p>
          Keep the card: {failed.length} of {plural(copied.length, 'file')} {failed.length === 1 ? 'was' : 'were'} not
          verified, even copied twice. Import the card again, or copy{' '}
          {failed.length === 1 ? 'this file' : 'these files'} by hand:
        </p>
      )}
      {failed.length > 0 && (
        <ul>
          {failed.map((f) => (
            <li key={f.source}>
              <strong>{f.name}</strong>: {f.error}
            </li>
          ))}
        </ul>
      )}
      {failed.length > 0 && (
        <p>
          Recordings placed from {failed.length === 1 ? 'this file' : 'these files'} upload straight from the card: keep
          it in the reader until they finish.
        </p>
      )}
      {others && others.failed > 0 && (
        <p>
          Keep the card: {others.failed} of its {plural(others.files, 'other file')} (previews, thumbnails, MISC){' '}
          {others.failed === 1 ? 'was' : 'were'} not verified, even copied twice; the transfer report names{' '}
          {others.failed === 1 ? 'it' : 'them'}. Import the card again before formatting it.
        </p>
      )}
    </div>
  );
}
