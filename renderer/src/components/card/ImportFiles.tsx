import { memo, useState } from 'react';
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

/**
 * An import's recordings' files under a disclosure: each one's name, size, state in words and own
 * progress. The rows are made only while it is open, and each is redrawn only when what it shows
 * changed: every import event brings a new view of every file (a card has hundreds).
 */
export function ImportFiles({ files }: { files: readonly ImportFileView[] }) {
  const [open, setOpen] = useState(false);
  if (files.length === 0) return null;
  return (
    <details open={open} onToggle={(e) => setOpen(e.currentTarget.open)}>
      <summary>Files ({files.length})</summary>
      {open && (
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
              <FileRow key={f.source} file={f} />
            ))}
          </tbody>
        </table>
      )}
    </details>
  );
}

/** One file of ImportFiles; equal when its name, size, state and bytes are (a new view's object of an unchanged file). */
const FileRow = memo(
  function FileRow({ file: f }: { file: ImportFileView }) {
    return (
      <tr data-state={f.state}>
        <th scope="row">{f.name}</th>
        <td>{formatBytes(f.size)}</td>
        <td>{stateOf(f)}</td>
        <td>
          <progress max={Math.max(1, f.size)} value={f.bytesDone} aria-label={`${f.name} copied`} />
        </td>
      </tr>
    );
  },
  (a, b) =>
    a.file.name === b.file.name &&
    a.file.size === b.file.size &&
    a.file.state === b.file.state &&
    a.file.bytesDone === b.file.bytesDone &&
    a.file.already === b.file.already,
);
