import type { AddCaptureResult } from '../../api/schemas.js';
import type { ActivityKind } from '../../queue/activity.js';
import type { CaptureState, FileState, QueuedCapture, QueuedFile, UploadQueue } from '../../queue/queue.js';
import type { EngineEvent } from '../events.js';

/** S3's limit on the parts of one multipart upload. */
export const MAX_PARTS = 10_000;

/** A log line to write with a state change. */
export interface Note {
  kind: ActivityKind;
  message: string;
  /** When it happened (ISO 8601), when not now: an outage starts at its last sign of life. */
  at?: string;
}

type FileChange = Parameters<UploadQueue['moveFile']>[3];

/**
 * The one way the engine changes the queue: each change is committed together with its activity
 * line in one transaction, and only then announced (with the committed row) to listeners. Moves
 * are conditional ("from these states"), so work that unwinds after a person paused, cancelled or
 * removed something never overwrites what the person decided.
 */
export class Transitions {
  constructor(
    private readonly queue: UploadQueue,
    private readonly emit: (e: EngineEvent) => void,
  ) {}

  /** Moves a file from one of `from` to `to`; answers whether it moved. See UploadQueue.moveFile. */
  file(id: number, from: FileState[], to: FileState, change: FileChange = {}, note?: Note): boolean {
    const q = this.queue;
    const moved = q.transaction(() => {
      if (!q.moveFile(id, from, to, change)) return undefined;
      const f = q.file(id)!;
      return {
        f,
        entry: note && q.activity.add({ captureRow: f.captureRow, fileId: id, subject: f.fileName, ...note }),
      };
    })();
    if (!moved) return false;
    const { f, entry } = moved;
    this.emit({
      type: 'file',
      fileId: id,
      captureRow: f.captureRow,
      fileName: f.fileName,
      state: f.state,
      error: f.error,
      transient: f.transient,
      file: f,
    });
    if (entry) this.emit({ type: 'activity', entry });
    return true;
  }

  /** Moves a capture from one of `from` to `to`; `retryAt` (ms since epoch) schedules another registration. Answers whether it moved. */
  capture(
    id: number,
    from: CaptureState[],
    to: CaptureState,
    error: string | null,
    retryAt?: number,
    note?: Note,
  ): boolean {
    const q = this.queue;
    const moved = q.transaction(() => {
      if (!q.schedule.moveCapture(id, from, to, error, retryAt)) return undefined;
      const c = q.capture(id)!;
      return { c, entry: note && q.activity.add({ captureRow: id, fileId: null, subject: c.label, ...note }) };
    })();
    if (!moved) return false;
    this.announceCapture(moved.c);
    if (moved.entry) this.emit({ type: 'activity', entry: moved.entry });
    return true;
  }

  /** Announces a file as it is now (after a change made elsewhere, such as its card's paths remapped). */
  announceFile(f: QueuedFile): void {
    this.emit({
      type: 'file',
      fileId: f.id,
      captureRow: f.captureRow,
      fileName: f.fileName,
      state: f.state,
      error: f.error,
      transient: f.transient,
      file: f,
    });
  }

  /** Announces a capture as it is now (after a change made elsewhere, such as a claim). */
  announceCapture(c: QueuedCapture): void {
    this.emit({ type: 'capture', captureRow: c.id, label: c.label, state: c.state, error: c.error, capture: c });
  }

  /**
   * Stores an add-capture answer (§4.4): the manifest and the activity line. The 10,000-part
   * limit (S3's) is checked with the part size of this very answer, never one an earlier
   * registration gave: when any file of the capture cannot fit, every file of it fails with one
   * sentence for the capture (captureTooLarge) before any byte is sent, so no lens is uploaded
   * alone (docs/decisions/0010-whole-capture.md). Throws what UploadQueue.saveRegistration
   * throws (manifest not matching the files).
   */
  registered(c: QueuedCapture, result: AddCaptureResult): void {
    const q = this.queue;
    const entries = q.transaction(() => {
      q.saveRegistration(c.id, result.capture.captureId, result.uploadManifest);
      const added = [
        q.activity.add({
          captureRow: c.id,
          fileId: null,
          subject: c.label,
          kind: 'registered',
          message: `Registered as capture ${result.capture.captureId}`,
        }),
      ];
      const sentence = captureTooLarge(q.filesOf(c.id));
      if (sentence) {
        for (const f of q.filesOf(c.id)) q.moveFile(f.id, ['pending'], 'failed', { error: sentence });
        added.push(
          q.activity.add({ captureRow: c.id, fileId: null, subject: c.label, kind: 'failed', message: sentence }),
        );
      }
      return added;
    })();
    this.announceCapture(q.capture(c.id)!);
    for (const f of q.filesOf(c.id)) {
      this.emit({
        type: 'file',
        fileId: f.id,
        captureRow: c.id,
        fileName: f.fileName,
        state: f.state,
        error: f.error,
        transient: f.transient,
        file: f,
      });
    }
    for (const entry of entries) this.emit({ type: 'activity', entry });
  }

  /** Marks the capture completed once every file is, with its log line. */
  completeCaptureIfDone(id: number): void {
    const q = this.queue;
    const entry = q.transaction(() => {
      const c = q.capture(id);
      if (!c || c.state === 'completed' || !q.completeCaptureIfDone(id)) return undefined;
      return q.activity.add({
        captureRow: id,
        fileId: null,
        subject: c.label,
        kind: 'capture-completed',
        message: 'Every file of the capture is uploaded',
      });
    })();
    if (!entry) return;
    this.announceCapture(q.capture(id)!);
    this.emit({ type: 'activity', entry });
  }

  /**
   * Parts of `f` that storage acknowledged are no longer in storage's own list of the upload's
   * parts (§4.9 status read, synced from ListParts): forgets their ETags (so they are sent again)
   * with a log line, in one transaction, then announces the loss (`lost`, with its bytes) once.
   * `lost`: each part's number and size (bytes). Throws SqliteError when the queue cannot be written.
   */
  partsLost(f: QueuedFile, lost: readonly { partNumber: number; size: number }[]): void {
    if (lost.length === 0) return;
    const q = this.queue;
    const partNumbers = lost.map((p) => p.partNumber);
    const bytes = lost.reduce((n, p) => n + p.size, 0);
    const message = `Storage no longer holds part${lost.length === 1 ? '' : 's'} ${partNumbers.join(', ')} (${(bytes / 1024 ** 2).toFixed(1)} MiB) it had confirmed; sending ${lost.length === 1 ? 'it' : 'them'} again`;
    const entry = q.transaction(() => {
      q.batch.forgetParts(f.id, partNumbers);
      return q.activity.add({
        captureRow: f.captureRow,
        fileId: f.id,
        subject: f.fileName,
        kind: 'parts-lost',
        message,
      });
    })();
    this.emit({ type: 'lost', fileId: f.id, captureRow: f.captureRow, fileName: f.fileName, partNumbers, bytes });
    this.emit({ type: 'activity', entry });
  }

  /** Removes a capture with its files from the local queue (nothing at the platform changes); answers whether it was there. */
  removeCapture(id: number): boolean {
    const q = this.queue;
    const done = q.transaction(() => {
      const c = q.capture(id);
      if (!c) return undefined;
      const fileIds = q.filesOf(id).map((f) => f.id);
      q.removeCapture(id);
      const entry = q.activity.add({
        captureRow: id,
        fileId: null,
        subject: c.label,
        kind: 'removed',
        message: "Removed from this computer's queue; nothing at the platform changed",
      });
      return { fileIds, entry };
    })();
    if (!done) return false;
    this.emit({ type: 'removed', captureRow: id, fileIds: done.fileIds });
    this.emit({ type: 'activity', entry: done.entry });
    return true;
  }

  /** Removes one file from the local queue (its capture stays; nothing at the platform changes); answers whether it was there. */
  removeFile(id: number): boolean {
    const q = this.queue;
    const done = q.transaction(() => {
      const f = q.file(id);
      if (!f) return undefined;
      q.removeFile(id);
      return {
        f,
        entry: q.activity.add({
          captureRow: f.captureRow,
          fileId: id,
          subject: f.fileName,
          kind: 'removed',
          message: "Removed from this computer's queue; nothing at the platform changed",
        }),
      };
    })();
    if (!done) return false;
    this.emit({ type: 'removed', captureRow: done.f.captureRow, fileIds: [id] });
    this.emit({ type: 'activity', entry: done.entry });
    return true;
  }

  /** Writes a log line about the queue as a whole (blocked, unblocked). */
  note(note: Note, subject = 'queue'): void {
    this.emit({
      type: 'activity',
      entry: this.queue.activity.add({ captureRow: null, fileId: null, subject, ...note }),
    });
  }
}

/**
 * The one sentence that holds a whole capture (shown on each of its files) when a file of it
 * needs more than MAX_PARTS parts at the part size its registration gave (bytes, from the files'
 * rows); undefined when every file fits. Nothing of any file of it is sent.
 */
export function captureTooLarge(
  files: readonly Pick<QueuedFile, 'fileName' | 'size' | 'partSize' | 'totalParts'>[],
): string | undefined {
  const big = files.find((f) => (f.totalParts ?? 0) > MAX_PARTS);
  if (!big) return undefined;
  const partSize = big.partSize!;
  const max = (MAX_PARTS * partSize) / 1024 ** 3;
  const others = files.length > 1 ? `none of the capture's ${files.length} files was sent` : 'nothing of it was sent';
  return (
    `${big.fileName} would need ${Math.ceil(big.size / partSize).toLocaleString('en')} parts of ${(partSize / 1024 ** 2).toFixed(0)} MiB and storage allows ` +
    `${MAX_PARTS.toLocaleString('en')} (${max.toFixed(1)} GiB), so ${others}: split the recording on the camera or with its app, and add the pieces.`
  );
}
