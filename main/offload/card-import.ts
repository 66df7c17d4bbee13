import { basename } from 'node:path';
import { formatBytes } from '../../shared/format.js';
import type { ImportFileView, ImportView } from '../../shared/ipc.js';
import type { AfterWrite } from './copy.js';
import type { OffloadedFile, OffloadJournal } from './offload.js';
import { NotEnoughSpaceError, offloadCard } from './offload.js';
import type { OffloadOptions } from './offload.js';
import { recordingQueueState, summarizeKnown } from './known-copies.js';

// The desktop app's import of a card: main/offload's verified offload, followed as
// a screen shows it (every file's bytes and state, the whole card's bytes), with the record kept.

/** What runCardImport needs: the import's id, the card's root, the library folder, and where each new view goes. */
export interface CardImportOptions {
  id: number;
  root: string;
  library: string;
  /**
   * Each new view of the import: at most one per `throttleMs`, whatever changed (bytes, a file's
   * state, a recording verified), the last one never lost; the end (done, failed, stopped) at once.
   */
  onUpdate: (view: ImportView) => void;
  /**
   * Keeps the offload's record as it goes (the queue's `offloads` tables, main/offload/record.ts
   * OffloadRecorder): its start, each file as it is checked, its end (main/offload/offload.ts).
   */
  journal?: OffloadJournal;
  /**
   * Milliseconds between views (default 100: ten a second). Each view is the whole card (every
   * file's row), and the window redraws on each: a card of 100 recordings changes a file's state
   * some 600 times, and a view sent for each of those kept the window's main thread and the page
   * bridge busy past the copy's end. 0 sends every change at once.
   */
  throttleMs?: number;
  now?: () => Date;
  /** The clock the copy's rate is measured with, in ms (offloadCard's `clock`). */
  clock?: () => number;
  /** Test seams of offloadCard (copy.ts): damage a copy before it is read back; a small disk. */
  afterWrite?: AfterWrite;
  freeBytes?: (folder: string) => Promise<number>;
  /**
   * Bytes per upload part (§4.6) to compute each copy's part MD5s for in the copy pass
   * (main/offload/part-md5.ts); none when not given.
   */
  partSize?: number;
  /**
   * Called once per recording as soon as all of its files are copied and checked (verified or
   * not), before the view that says so: where the part MD5s are kept and the recording's held
   * uploads are moved to its copies (main/service/card-imports.ts). Awaited; an error it throws is
   * reported through the view's failing import, so it should not throw.
   */
  onRecording?: (files: OffloadedFile[]) => Promise<void> | void;
  /**
   * Finds the card's recordings whose verified copies are in the library already (offloadCard's
   * `knownCopies`, main/offload/known-copies.ts findKnownCopies on the queue): they are listed as
   * `known` with what the queue holds of them, and not copied again. Without it every recording is copied.
   */
  knownCopies?: OffloadOptions['knownCopies'];
  /** Copy the whole card after its recordings (offloadCard's `wholeCard`): the view's `others` counts them. */
  wholeCard?: boolean;
  /** Aborting it stops the import within a second, its half-written copies removed (offloadCard's `signal`); the view ends `failed`. */
  signal?: AbortSignal;
}

/**
 * What a stopped import leaves, said as it is: offloadCard removed the half-written copies
 * (main/offload/copy.ts), so a file caught copying is back to waiting with nothing of it kept;
 * the verified copies stay. Updates `view`'s rows and bytes to match, and answers the sentence.
 */
function stoppedSentence(view: ImportView): string {
  for (const row of view.files)
    if (row.state === 'copying')
      Object.assign(row, { state: 'waiting', bytesDone: 0 } satisfies Partial<ImportFileView>);
  Object.assign(view, {
    bytesDone: view.files.reduce((n, r) => n + (r.state === 'verified' ? r.size : 0), 0),
    bytesPerSecond: 0,
    secondsLeft: null,
  });
  const count = (state: ImportFileView['state']) => view.files.filter((r) => r.state === state).length;
  const files = (n: number) => `${n} file${n === 1 ? '' : 's'}`;
  const kept = count('verified');
  const notCopied = count('waiting') + count('failed');
  const keptPart = kept ? `${files(kept)} verified and kept${view.destination ? ` in ${view.destination}` : ''}; ` : '';
  return `Import stopped: ${keptPart}nothing copied for ${files(notCopied)} (no partial copy left).`;
}

/** The import's first view: copying, nothing planned yet (ImportView's fields, times ISO 8601). */
function firstView(o: CardImportOptions, now: () => Date): ImportView {
  return {
    id: o.id,
    card: o.root,
    cardName: basename(o.root) || o.root,
    destination: null,
    phase: 'copying',
    startedAt: now().toISOString(),
    bytesDone: 0,
    bytesTotal: 0,
    bytesPerSecond: 0,
    secondsLeft: null,
    files: [],
    verifiedCopies: [],
    safeToRemove: false,
    error: null,
    mhlPath: null,
    known: null,
    reportPath: null,
    others: null,
  };
}

/**
 * How views of `view` leave: `send` at once (a copy of it), `soon` at most one per `throttleMs`
 * (0: at once), a change waiting for the next view so the last one is never lost.
 */
function viewSender(view: ImportView, onUpdate: (v: ImportView) => void, throttleMs: number) {
  let timer: NodeJS.Timeout | undefined;
  let lastSent = 0;
  const send = () => {
    clearTimeout(timer);
    timer = undefined;
    lastSent = Date.now();
    onUpdate(structuredClone(view));
  };
  const soon = () => {
    if (throttleMs === 0) return send();
    if (timer) return;
    timer = setTimeout(send, Math.max(0, throttleMs - (Date.now() - lastSent)));
  };
  return { send, soon };
}

/** A file's row once its copy was checked: verified with all its bytes, or failed with the error that names it. */
function settleRow(row: ImportFileView, f: OffloadedFile): void {
  row.state = f.verified ? 'verified' : 'failed';
  row.bytesDone = f.verified ? f.size : row.bytesDone;
  row.error = f.verified ? null : (f.error ?? `${f.source}: not verified.`);
}

/** The rows of recordings found in the library already (offloadCard's onKnown): listed, never copied. */
function knownRows(recordings: Parameters<NonNullable<OffloadOptions['onKnown']>>[0]): ImportFileView[] {
  return recordings.flatMap((copies) => {
    const already = recordingQueueState(copies) ?? 'copied';
    return copies.map(
      (c): ImportFileView => ({
        source: c.source,
        name: basename(c.source),
        size: c.size,
        bytesDone: c.size,
        state: 'known',
        error: null,
        already,
      }),
    );
  });
}

/** The sentence a failed import ends with: stopped, no room in the library, or what went wrong. */
function failureSentence(err: unknown, o: CardImportOptions, view: ImportView): string {
  if (o.signal?.aborted) return stoppedSentence(view);
  if (err instanceof NotEnoughSpaceError)
    return `Not enough free space in ${err.library}: the recordings need ${formatBytes(err.needed)}, ${formatBytes(err.free)} are free. Free some space, or choose another library folder in Settings.`;
  return `The card ${o.root} could not be imported: ${(err as Error).message}`;
}

/** offloadCard's options of an import: its own, passed through as given. */
function passedOptions(o: CardImportOptions, now: () => Date): OffloadOptions {
  return {
    library: o.library,
    now,
    ...(o.clock ? { clock: o.clock } : {}),
    ...(o.afterWrite ? { afterWrite: o.afterWrite } : {}),
    ...(o.freeBytes ? { freeBytes: o.freeBytes } : {}),
    ...(o.partSize ? { partSize: o.partSize } : {}),
    ...(o.journal ? { journal: o.journal } : {}),
    ...(o.signal ? { signal: o.signal } : {}),
    ...(o.knownCopies ? { knownCopies: o.knownCopies } : {}),
    ...(o.wholeCard ? { wholeCard: true } : {}),
  };
}

/**
 * offloadCard's callbacks that keep `view` as the offload goes: the plan's rows waiting, a file's
 * bytes and state as it copies and verifies, the recordings offered as each one's files all
 * verify, the other files counted; each change sent through `soon`.
 */
function viewKeeper(o: CardImportOptions, view: ImportView, soon: () => void): Partial<OffloadOptions> {
  let known: ImportFileView[] = [];
  const byPath = new Map<string, ImportFileView>();
  const settle = (f: OffloadedFile) => {
    const row = byPath.get(f.source);
    if (row) settleRow(row, f);
  };
  let previous = 0;
  return {
    onOther: (f) => {
      if (!view.others) return;
      view.others[f.verified ? 'verified' : 'failed']++;
      soon();
    },
    onKnown: (recordings, total) => {
      view.known = summarizeKnown(total, recordings);
      known = knownRows(recordings);
      view.files = [...known];
      view.destination = view.known.destination;
      soon();
    },
    onPlan: (files, destination, others) => {
      view.destination = destination;
      const otherBytes = others.reduce((n, f) => n + f.size, 0);
      view.bytesTotal = files.reduce((n, f) => n + f.size, 0) + otherBytes;
      view.others = others.length ? { files: others.length, bytes: otherBytes, verified: 0, failed: 0 } : null;
      view.files = [
        ...known,
        ...files.map(
          (f): ImportFileView => ({
            source: f.path,
            name: basename(f.path),
            size: f.size,
            bytesDone: 0,
            state: 'waiting',
            error: null,
          }),
        ),
      ];
      for (const row of view.files) if (row.state !== 'known') byPath.set(row.source, row);
      soon();
    },
    onProgress: (p) => {
      // offloadCard's figure is cumulative over both lanes; the step since the last call is this file's.
      const step = Math.max(0, p.bytesDone - previous);
      previous = p.bytesDone;
      view.bytesDone = p.bytesDone;
      view.bytesPerSecond = p.bytesPerSecond;
      view.secondsLeft = p.secondsLeft;
      const row = byPath.get(p.file);
      if (!row) return soon();
      row.bytesDone = Math.min(row.size, row.bytesDone + step);
      if (row.state === 'waiting') row.state = 'copying';
      soon();
    },
    onFile: (f) => {
      settle(f);
      soon();
    },
    onRecording: async (files) => {
      await o.onRecording?.(files);
      for (const f of files) settle(f);
      if (files.every((f) => f.verified)) view.verifiedCopies.push(...files.map((f) => f.copy));
      soon();
    },
  };
}

/**
 * Copies the card at `root` into the library with verification (main/offload/offload.ts: XXH64 while
 * reading, the copy read back, a file that fails copied once more, the ASC MHL beside the copies),
 * reporting its progress as ImportView: every file waiting, copying, verified or failed with the
 * error that names it, and `verifiedCopies` growing as each recording's files all verify, so the
 * app can offer them for placement before the rest of the card is copied. `safeToRemove` only
 * when every file verified. Never throws: a card without recordings, a library without room or a
 * library that cannot be written end the import with phase `failed` and a sentence saying why.
 * Answers the last view.
 */
export async function runCardImport(o: CardImportOptions): Promise<ImportView> {
  const now = o.now ?? (() => new Date());
  const view = firstView(o, now);
  const { send, soon } = viewSender(view, o.onUpdate, o.throttleMs ?? 100);
  try {
    const result = await offloadCard(o.root, { ...passedOptions(o, now), ...viewKeeper(o, view, soon) });
    const rows = new Map(view.files.map((r) => [r.source, r]));
    for (const f of result.files) {
      const row = rows.get(f.source);
      if (row && row.state !== 'known') settleRow(row, f);
    }
    Object.assign(view, {
      phase: 'done',
      bytesDone: result.bytes + result.otherBytes,
      secondsLeft: 0,
      destination: result.destination,
      mhlPath: result.mhlPath ?? null,
      reportPath: result.reportPath ?? null,
      safeToRemove: result.verified,
    });
  } catch (err) {
    view.phase = 'failed';
    view.error = failureSentence(err, o, view);
  }
  send();
  return view;
}
