import type {
  EventName,
  EventPayload,
  QueueCapture,
  QueueFile,
  QueueHoldView,
  QueueTotals,
  QueueView,
} from '../../shared/ipc.js';
import type { EngineEvent } from '../engine/engine.js';
import type { FileProgress, Outage } from '../engine/progress/progress.js';
import type { QueuedCapture, QueuedFile, UploadQueue } from '../queue/queue.js';
import type { StoredTotals } from '../queue/totals.js';
import { committedTotals } from '../queue/totals.js';
import { fileViewRows } from '../queue/reader.js';
import { RemovedCards } from '../queue/removed-cards.js';

/** How often at most the committed totals are read again while only progress moves (ms). */
const TOTALS_REFRESH_MS = 2000;
/** Beyond this many changed files a flush reads the whole files table once instead of row by row. */
const BULK_READ = 500;

/**
 * The queue as the desktop app's screen sees it: committed rows from the queue database with the
 * live bytes of files uploading laid over them, and totals from one aggregate query.
 *
 * Events carry what changed (CONVENTIONS.md, "Renderer state and events"): engine events are
 * gathered for `flushMs` and sent as one `capture:event.rows` with the rows as committed then (a
 * burst such as "clear completed" on 10,000 files is one message, not 10,000; a person's batch is
 * one engine event and one message), and progress goes out as `capture:event.progress` with the
 * files that moved and fresh totals. Each rows message says the queue-wide hold in force. Nothing
 * asks the renderer to reload the whole queue.
 */
export class LiveQueue {
  private readonly live = new Map<number, FileProgress>();
  private rate = 0;
  private outage: Outage | null = null;
  /** Bytes storage lost since the start: parts its own list lacked after it acknowledged them (the engine's `lost` events). */
  private lost = 0;
  /** Warnings kept with captures, by capture row: read at a full view and when captures are queued (the only time they are added). */
  private warned?: Map<number, string[]>;
  private stored?: { at: number; totals: StoredTotals };
  private readonly changedFiles = new Set<number>();
  private readonly changedCaptures = new Set<number>();
  /** Files whose last event left them not uploading: progress ticks naming them are late. */
  private readonly stopped = new Set<number>();
  private timer?: NodeJS.Timeout;
  private holdChanged = false;

  /** `hold` reads the queue-wide hold in force (UploadEngine.holds.current). */
  constructor(
    private readonly queue: UploadQueue,
    private readonly blocked: () => string | null,
    private readonly hold: () => QueueHoldView | null,
    private readonly emit: <E extends EventName>(event: E, payload: EventPayload<E>) => void,
    private readonly flushMs = 50,
  ) {}

  /** Takes one engine event: progress goes out at once (the engine already paces it), row changes after `flushMs`. */
  onEngine(e: EngineEvent): void {
    switch (e.type) {
      case 'progress': {
        // A tick can name a file that has just stopped (paused, failed, completed): its bytes of a
        // part cut off are not stored, so the file keeps what the queue holds for it.
        const moving = e.files.filter((f) => !this.stopped.has(f.fileId));
        for (const f of moving) this.live.set(f.fileId, f);
        this.rate = e.overall.bytesPerSecond;
        this.outage = e.overall.outage;
        this.emit('capture:event.progress', {
          files: moving.map((f) => ({
            id: f.fileId,
            bytesSent: f.bytesSent,
            bytesInFlight: f.bytesInFlight,
            partsDone: f.partsDone,
            partsTotal: f.partsTotal,
            bytesPerSecond: f.bytesPerSecond,
            etaSeconds: f.etaSeconds,
          })),
          totals: this.totals(),
        });
        return;
      }
      case 'file':
        if (e.state === 'uploading') this.stopped.delete(e.fileId);
        else {
          this.live.delete(e.fileId);
          this.stopped.add(e.fileId);
        }
        this.changedFiles.add(e.fileId);
        this.changedCaptures.add(e.captureRow);
        break;
      case 'capture':
        // A capture's files go with it, so the screen never holds a capture without its files.
        if (!this.changedCaptures.has(e.captureRow))
          for (const f of this.queue.filesOf(e.captureRow)) this.changedFiles.add(f.id);
        this.changedCaptures.add(e.captureRow);
        break;
      case 'removed':
        if (!this.queue.capture(e.captureRow)) this.warned?.delete(e.captureRow);
        for (const id of e.fileIds) {
          this.live.delete(id);
          this.stopped.delete(id);
          this.changedFiles.add(id);
        }
        this.changedCaptures.add(e.captureRow);
        break;
      case 'batch':
        // None of a batch's files is left uploading: their live bytes are over.
        for (const id of e.fileIds) {
          this.live.delete(id);
          this.stopped.add(id);
          this.changedFiles.add(id);
        }
        for (const c of e.captureRows) {
          this.changedCaptures.add(c);
          if (this.warned?.has(c) && !this.queue.capture(c)) this.warned.delete(c); // cleared from the list
        }
        break;
      case 'lost':
        // Only the engine's word counts (storage's own list of the parts, §4.9): bytes done that
        // go back for any other reason (a file stopped before its last acknowledgements were
        // committed, restarted, a card put back) are no loss.
        this.lost += e.bytes;
        this.changedFiles.add(e.fileId);
        this.changedCaptures.add(e.captureRow);
        break;
      case 'hold':
        this.holdChanged = true;
        break;
      case 'blocked':
        break;
      default:
        return;
    }
    // The committed totals changed with the row: read them again before the next tick uses them
    // (a stale "1 uploading" would subtract a paused file's stored bytes from the whole queue).
    this.stored = undefined;
    this.schedule();
  }

  /** Marks rows as changed by something outside the engine (captures just queued); they go out with the next flush. */
  touched(captureRows: readonly number[]): void {
    this.warned = this.queue.activity.warnings();
    for (const c of captureRows) {
      this.changedCaptures.add(c);
      for (const f of this.queue.filesOf(c)) this.changedFiles.add(f.id);
    }
    this.schedule();
  }

  /** Sends the changes gathered so far now (tests and shutdown). */
  flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    if (this.changedFiles.size === 0 && this.changedCaptures.size === 0 && !this.holdChanged) return;
    this.holdChanged = false;
    const files: QueueFile[] = [];
    const captures: QueueCapture[] = [];
    const removed = { captures: [] as number[], files: [] as number[] };
    if (this.changedFiles.size > BULK_READ) {
      // One read of the table, as committed, for a batch (10,000 files paused).
      const all = new Map(this.allFileViews().map((f) => [f.id, f]));
      for (const id of this.changedFiles) {
        const f = all.get(id);
        if (f) files.push(f);
        else removed.files.push(id);
      }
    } else {
      const cards = this.cardsWaited();
      for (const id of this.changedFiles) {
        const f = this.queue.file(id);
        if (f) files.push(this.fileView(f, cards));
        else removed.files.push(id);
      }
    }
    for (const id of this.changedCaptures) {
      const c = this.queue.capture(id);
      if (c) captures.push(captureView(c, this.warnings().get(c.id)));
      else removed.captures.push(id);
    }
    this.changedFiles.clear();
    this.changedCaptures.clear();
    this.stored = undefined;
    if (!files.some((f) => f.state === 'uploading') && this.live.size === 0) this.rate = 0;
    this.emit('capture:event.rows', {
      files,
      captures,
      removed,
      totals: this.totals(),
      blocked: this.blocked(),
      hold: this.hold(),
    });
  }

  /** The whole queue with live progress: one query for captures, one for files (`keptAwake` is the app's to add). */
  view(): Omit<QueueView, 'keptAwake'> {
    this.stored = undefined; // a full read: totals as committed now
    this.warned = this.queue.activity.warnings();
    const warned = this.warned;
    return {
      captures: this.queue.captures().map((c) => captureView(c, warned.get(c.id))),
      files: ((cards) => this.queue.allFiles().map((f) => this.fileView(f, cards)))(this.cardsWaited()),
      blocked: this.blocked(),
      hold: this.hold(),
      totals: this.totals(),
    };
  }

  /**
   * The queue's totals: committed figures (read again after a change, or every 2 s) with the
   * acknowledged bytes of files uploading, their bytes on the wire apart, the outage seen, and
   * the bytes storage lost since the start (parts its own list lacked after it acknowledged them).
   */
  totals(now = Date.now()): QueueTotals {
    if (!this.stored || now - this.stored.at > TOTALS_REFRESH_MS)
      this.stored = { at: now, totals: this.queue.totals() };
    const t = this.stored.totals;
    let liveSent = 0;
    let inFlight = 0;
    for (const p of this.live.values()) {
      liveSent += p.bytesSent;
      inFlight += p.bytesInFlight;
    }
    // Files uploading count with their live (acknowledged) bytes instead of what the queue holds for them.
    const moved = t.uploading > 0 ? liveSent - t.bytesStoredUploading : 0;
    const committed = committedTotals(t, moved);
    return {
      ...committed,
      // Nothing is acknowledged during an outage: no speed, and no ETA is guessed from an old one.
      bytesPerSecond: t.uploading > 0 && !this.outage ? this.rate : 0,
      bytesInFlight: t.uploading > 0 ? inFlight : 0,
      bytesLost: this.lost,
      outage: this.outage,
      // Those of this batch, as the committed figure counts them (docs/progress-batch.md).
      capturesWarned: [...this.warnings().keys()].filter((row) => row >= t.batchFrom).length,
    };
  }

  /** The warnings kept with captures, read once and then kept up to date. */
  private warnings(): Map<number, string[]> {
    this.warned ??= this.queue.activity.warnings();
    return this.warned;
  }

  /** Stops the pending flush (the queue is closing). */
  close(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }

  private schedule(): void {
    if (this.timer) return;
    this.timer = setTimeout(() => this.flush(), this.flushMs);
    this.timer.unref?.();
  }

  /**
   * Every file as the screen gets it, shaped by SQLite (one object per row instead of a row, a
   * QueuedFile and a view), with live bytes over the files uploading; as fileView gives them.
   */
  private allFileViews(): QueueFile[] {
    const views = fileViewRows<QueueFile>(this.queue.db);
    const cards = this.cardsWaited();
    for (const v of views) {
      v.awaitingCopy = Boolean(v.awaitingCopy); // SQLite's 0 or 1
      const card = v.state === 'completed' || v.state === 'cancelled' ? undefined : cards.get(v.id);
      if (card !== undefined) v.waitingForCard = card;
      const live = v.state === 'uploading' ? this.live.get(v.id) : undefined;
      if (live)
        Object.assign(v, {
          bytesSent: live.bytesSent,
          bytesInFlight: live.bytesInFlight,
          partsDone: live.partsDone,
          bytesPerSecond: live.bytesPerSecond,
          etaSeconds: live.etaSeconds,
        });
    }
    return views;
  }

  /** The files waiting for a card pulled out (main/queue/removed-cards.ts), by id, with the card's name. */
  private cardsWaited(): Map<number, string> {
    this.removedCards ??= new RemovedCards(this.queue.db, this.queue.meta);
    return new Map(this.removedCards.list().flatMap((c) => c.files.map((id) => [id, c.name] as const)));
  }

  private removedCards?: RemovedCards;

  private fileView(f: QueuedFile, cards = this.cardsWaited()): QueueFile {
    const live = f.state === 'uploading' ? this.live.get(f.id) : undefined;
    const done = f.state === 'completed';
    const card = f.state === 'completed' || f.state === 'cancelled' ? undefined : cards.get(f.id);
    return {
      id: f.id,
      captureRow: f.captureRow,
      fileName: f.fileName,
      path: f.path,
      size: f.size,
      state: f.state,
      error: f.error,
      bytesSent: done ? f.size : (live?.bytesSent ?? f.storedBytes),
      bytesInFlight: live?.bytesInFlight ?? 0,
      partsDone: done ? (f.totalParts ?? 0) : (live?.partsDone ?? f.storedParts),
      partsTotal: f.totalParts ?? 0,
      bytesPerSecond: live?.bytesPerSecond ?? 0,
      etaSeconds: live?.etaSeconds ?? null,
      retryAt: f.state === 'pending' ? f.nextAttemptAt : null,
      attempts: f.attempts,
      replacedBy: f.replacedBy,
      awaitingCopy: f.awaitingCopy,
      ...(card !== undefined && { waitingForCard: card }),
    };
  }
}

/** A capture row as the screen gets it: what it is registered with, so a refused one can be corrected, and its warnings. */
function captureView(c: QueuedCapture, warnings?: string[]): QueueCapture {
  return {
    ...(warnings?.length ? { warnings } : {}),
    id: c.id,
    label: c.label,
    state: c.state,
    error: c.error,
    retryAt: c.state === 'queued' ? c.nextAttemptAt : null,
    captureId: c.captureId,
    structure: c.structure,
    design: c.design,
    type: c.request.type === 'exterior' ? 'exterior' : 'interior',
    capturedAt: c.request.captureDateTime,
    priority: c.priority,
  };
}
