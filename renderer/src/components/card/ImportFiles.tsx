import type { ImportFileView } from '../../../../shared/ipc.js';
import { formatBytes } from '../../display-format.js';

/** Whole percent of `done` over `total` (100 for nothing to do). */
export const percent = (done: number, total: number) => (total > 0 ? Math.floor((done / total) * 100) : 100);

/** What a file copied by an earlier import says: its recording uploaded, waiting to upload, or copied and not placed. */
const ALREADY = { uploaded: 'Already uploaded', queued: 'Already queued', copied: 'Already copied' } as const;

/** A file's state in words: Waiting, Copying 45 %, Verified, Not verified, Already uploaded / queued / copied. */
function stateOf(f: ImportFileView): string {
  if (f.state === 'copying')
    return f.bytesDone >= f.size ? 'Reading back' : `Copying ${percent(f.bytesDone, f.size)} %`;
  if (f.state === 'known') return ALREADY[f.already ?? 'copied'];
  return { waiting: 'Waiting', verified: 'Verified', failed: 'Not verified' }[f.state];
}

/** An import's recordings' files under a disclosure: each one's name, size, state in words and own progress. */
export function ImportFiles({ files }: { files: readonly ImportFileView[] }) {
  if (files.length === 0) return null;
  return (
    <details>
      <summary>Files ({files.length})</summary>
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
          {files.map((f) => (
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
  );
}
