import type { AddCaptureResult } from '../api/schemas.js';
import type { ActivityKind } from '../queue/activity.js';
import type { CaptureState, FileState, QueuedCapture, QueuedFile, UploadQueue } from '../queue/queue.js';
import type { EngineEvent } from './events.js';

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
    const moved = q.db.transaction(() => {
      if (!q.moveFile(id, from, to, change)) return undefined;
      const f = q.file(id)!;
      return { f, entry: note && q.activity.add({ captureRow: f.captureRow, fileId: id, subject: f.fileName, ...note }) };
    })();
    if (!moved) return false;
    const { f, entry } = moved;
    this.emit({ type: 'file', fileId: id, captureRow: f.captureRow, fileName: f.fileName, state: f.state, error: f.error, transient: f.transient, file: f });
    if (entry) this.emit({ type: 'activity', entry });
    return true;
  }

  /** Moves a capture from one of `from` to `to`; `retryAt` (ms since epoch) schedules another registration. Answers whether it moved. */
  capture(id: number, from: CaptureState[], to: CaptureState, error: string | null, retryAt?: number, note?: Note): boolean {
    const q = this.queue;
    const moved = q.db.transaction(() => {
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
    this.emit({ type: 'file', fileId: f.id, captureRow: f.captureRow, fileName: f.fileName, state: f.state, error: f.error, transient: f.transient, file: f });
  }

  /** Announces a capture as it is now (after a change made elsewhere, such as a claim). */
  announceCapture(c: QueuedCapture): void {
    this.emit({ type: 'capture', captureRow: c.id, label: c.label, state: c.state, error: c.error, capture: c });
  }

  /**
   * Stores an add-capture answer (§4.4): the manifest, the part size for later intake checks, the
   * activity line; a file needing more than 10,000 parts (S3's limit) fails at once, before any
   * byte is sent. Throws what UploadQueue.saveRegistration throws (manifest not matching the files).
   */
  registered(c: QueuedCapture, result: AddCaptureResult): void {
    const q = this.queue;
    const tooBig: number[] = [];
    const entry = q.db.transaction(() => {
      q.saveRegistration(c.id, result.capture.captureId, result.uploadManifest);
      const partSize = result.uploadManifest[0]?.partSize;
      if (partSize) q.meta.set('partSize', partSize);
      for (const f of q.filesOf(c.id)) {
        if ((f.totalParts ?? 0) <= MAX_PARTS) continue;
        q.moveFile(f.id, ['pending'], 'failed', { error: tooManyParts(f.fileName, f.size, f.partSize!) });
        tooBig.push(f.id);
      }
      return q.activity.add({ captureRow: c.id, fileId: null, subject: c.label, kind: 'registered', message: `Registered as capture ${result.capture.captureId}` });
    })();
    this.announceCapture(q.capture(c.id)!);
    for (const f of q.filesOf(c.id)) {
      this.emit({ type: 'file', fileId: f.id, captureRow: c.id, fileName: f.fileName, state: f.state, error: f.error, transient: f.transient, file: f });
    }
    this.emit({ type: 'activity', entry });
  }

  /** Marks the capture completed once every file is, with its log line. */
  completeCaptureIfDone(id: number): void {
    const q = this.queue;
    const entry = q.db.transaction(() => {
      const c = q.capture(id);
      if (!c || c.state === 'completed' || !q.completeCaptureIfDone(id)) return undefined;
      return q.activity.add({ captureRow: id, fileId: null, subject: c.label, kind: 'capture-completed', message: 'Every file of the capture is uploaded' });
    })();
    if (!entry) return;
    this.announceCapture(q.capture(id)!);
    this.emit({ type: 'activity', entry });
  }

  /** Removes a capture with its files from the local queue (nothing at the platform changes); answers whether it was there. */
  removeCapture(id: number): boolean {
    const q = this.queue;
    const done = q.db.transaction(() => {
      const c = q.capture(id);
      if (!c) return undefined;
      const fileIds = q.filesOf(id).map((f) => f.id);
      q.removeCapture(id);
      const entry = q.activity.add({ captureRow: id, fileId: null, subject: c.label, kind: 'removed', message: 'Removed from this computer\'s queue; nothing at the platform changed' });
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
    const done = q.db.transaction(() => {
      const f = q.file(id);
      if (!f) return undefined;
      q.removeFile(id);
      return { f, entry: q.activity.add({ captureRow: f.captureRow, fileId: id, subject: f.fileName, kind: 'removed', message: 'Removed from this computer\'s queue; nothing at the platform changed' }) };
    })();
    if (!done) return false;
    this.emit({ type: 'removed', captureRow: done.f.captureRow, fileIds: [id] });
    this.emit({ type: 'activity', entry: done.entry });
    return true;
  }

  /** Writes a log line about the queue as a whole (blocked, unblocked). */
  note(note: Note, subject = 'queue'): void {
    this.emit({ type: 'activity', entry: this.queue.activity.add({ captureRow: null, fileId: null, subject, ...note }) });
  }
}

/** The message for a file that needs more parts than S3 allows at the service's part size (bytes). */
export function tooManyParts(fileName: string, size: number, partSize: number): string {
  const parts = Math.ceil(size / partSize);
  const max = (MAX_PARTS * partSize) / 1024 ** 3;
  return (
    `${fileName} would need ${parts.toLocaleString('en')} parts of ${(partSize / 1024 ** 2).toFixed(0)} MiB; storage allows ${MAX_PARTS.toLocaleString('en')} ` +
    `(${max.toFixed(1)} GiB). Nothing of it was sent: split the recording on the camera or with its app, and add the pieces.`
  );
}
