/**
 * Progress of one file. Bytes, bytes per second, seconds; `etaSeconds` null while unknown.
 * `bytesSent` counts only parts storage acknowledged (its ETag came back); `bytesInFlight` the
 * bytes of parts on the wire whose answer has not come yet (drawn apart, like a buffered bar).
 * Speed and ETA come from acknowledged bytes only.
 */
export interface FileProgress {
  fileId: number;
  captureRow: number;
  fileName: string;
  bytesTotal: number;
  bytesSent: number;
  bytesInFlight: number;
  partsTotal: number;
  partsDone: number;
  bytesPerSecond: number;
  etaSeconds: number | null;
}

/**
 * Why nothing is acknowledged right now: a part request failed for a passing reason at storage or
 * at the gateway (presigning), `since` ms since epoch of the first such failure after the last
 * acknowledged part, `cause` the reason in the service's words (no URL, no secret).
 */
export interface Outage {
  where: 'storage' | 'gateway';
  since: number;
  cause: string;
}

/** Progress of every file being tracked together; same units as FileProgress; `outage` null while parts are acknowledged. */
export interface OverallProgress {
  bytesTotal: number;
  bytesSent: number;
  bytesInFlight: number;
  bytesPerSecond: number;
  etaSeconds: number | null;
  files: number;
  outage: Outage | null;
}

interface Acks {
  /** When this meter began counting (ms): the denominator until a whole window has passed. */
  since: number;
  list: { t: number; bytes: number }[];
}

interface Tracked {
  fileId: number;
  captureRow: number;
  fileName: string;
  bytesTotal: number;
  partsTotal: number;
  doneBytes: number;
  partsDone: number;
  inFlight: Map<number, number>;
  acks: Acks;
}

// Speed is the moving average of acknowledged bytes over the last 20 s: long enough that parts
// answered one by one (an 8 MiB part on a slow link is a minute) read as a steady rate, short
// enough to follow a change of link or limit. Bytes handed to the socket are never counted: the
// OS buffers megabytes of them (787 KiB/s was shown on a 160 KiB/s link).
const WINDOW_MS = 20_000;
/** Never divide by less than this (ms): the first part answered must not read as a burst. */
const MIN_ELAPSED_MS = 1000;

/** Bytes per second acknowledged over the window ending at `now`; 0 before the first acknowledgement. */
function ackRate(a: Acks, now: number): number {
  while (a.list.length > 0 && a.list[0]!.t <= now - WINDOW_MS) a.list.shift();
  if (a.list.length === 0) return 0;
  const bytes = a.list.reduce((n, x) => n + x.bytes, 0);
  const elapsed = Math.max(MIN_ELAPSED_MS, Math.min(WINDOW_MS, now - a.since));
  return (bytes * 1000) / elapsed;
}

/**
 * Tracks bytes and parts of the files being uploaded and emits at most one snapshot per
 * `intervalMs` (100 ms: ten a second at most), and only when something moved. Counts a part when
 * storage acknowledges it (partDone), shows bytes on the wire apart, and remembers an outage from
 * the first passing failure until the next acknowledged part (at storage) or the gateway's next
 * answer (at the gateway).
 */
export class ProgressTracker {
  private readonly files = new Map<number, Tracked>();
  private readonly overall: Acks = { since: 0, list: [] };
  private outage: Outage | null = null;
  private timer?: NodeJS.Timeout;
  private dirty = false;

  constructor(
    private readonly emit: (files: FileProgress[], overall: OverallProgress) => void,
    private readonly intervalMs = 100,
  ) {}

  /** Starts tracking a file, with the bytes and parts already in storage. */
  track(
    f: {
      fileId: number;
      captureRow: number;
      fileName: string;
      bytesTotal: number;
      partsTotal: number;
      doneBytes: number;
      partsDone: number;
    },
    now = Date.now(),
  ): void {
    // The overall meter starts again after a quiet spell, so an idle hour does not dilute the speed.
    if (this.files.size === 0 && (this.overall.list.length === 0 || this.overall.list.at(-1)!.t <= now - WINDOW_MS))
      this.overall.since = now;
    this.files.set(f.fileId, { ...f, inFlight: new Map(), acks: { since: now, list: [] } });
    this.touch();
  }

  /** Stops tracking a file (finished, failed, paused). */
  untrack(fileId: number): void {
    this.files.delete(fileId);
    this.touch();
  }

  /** Bytes of a part handed to the network so far (not yet acknowledged). */
  partProgress(fileId: number, partNumber: number, sent: number): void {
    const f = this.files.get(fileId);
    if (!f) return;
    f.inFlight.set(partNumber, sent);
    this.touch();
  }

  /** A part was acknowledged by storage (`size` bytes: its ETag came back), or abandoned (`size` 0: its in-flight bytes are dropped). */
  partDone(fileId: number, partNumber: number, size: number, now = Date.now()): void {
    const f = this.files.get(fileId);
    if (f) f.inFlight.delete(partNumber);
    if (size > 0) {
      // Storage answered: an outage at storage is over. One at the gateway is over only when the
      // gateway answers (answered()): parts presigned before it fell silent say nothing of it.
      if (this.outage?.where !== 'gateway') this.outage = null;
      this.overall.list.push({ t: now, bytes: size });
      if (f) {
        f.doneBytes += size;
        f.partsDone++;
        f.acks.list.push({ t: now, bytes: size });
      }
    }
    this.touch();
  }

  /**
   * Parts storage had acknowledged were lost (their sizes in bytes): the file's done bytes and
   * parts go back by them, as the queue's stored bytes did (Transitions.partsLost).
   */
  partsLost(fileId: number, sizes: readonly number[]): void {
    const f = this.files.get(fileId);
    if (!f || sizes.length === 0) return;
    f.doneBytes = Math.max(0, f.doneBytes - sizes.reduce((n, s) => n + s, 0));
    f.partsDone = Math.max(0, f.partsDone - sizes.length);
    this.touch();
  }

  /**
   * A part request failed for a passing reason (it will be retried), or the link went silent:
   * `where` it failed and why (`now`, ms since 1970). The outage starts at `since` (default
   * `now`: for a silent link, its last sign of life) and keeps its start and cause until a part
   * is acknowledged; a failure elsewhere (storage after the gateway) moves it, with its own cause,
   * from the same start. One start and one cause per outage, so the screen, `status`, the log and
   * the morning summary tell the same (docs/engine.md, "A silent link"). Answers the outage
   * when it started or moved now, else null.
   */
  trouble(where: Outage['where'], cause: string, now = Date.now(), since = now): Outage | null {
    if (this.outage?.where === where) return null;
    this.outage = { where, since: Math.min(this.outage?.since ?? since, now), cause };
    this.touch();
    return this.outage;
  }

  /** The current outage's cause, or null when there is none. */
  outageCause(): string | null {
    return this.outage?.cause ?? null;
  }

  /** Where the current outage is, or null when there is none. */
  outageWhere(): Outage['where'] | null {
    return this.outage?.where ?? null;
  }

  /** `where` answered again: an outage there is over (one elsewhere stays). */
  answered(where: Outage['where']): void {
    if (this.outage?.where !== where) return;
    this.outage = null;
    this.touch();
  }

  /** The current snapshot. */
  snapshot(now = Date.now()): { files: FileProgress[]; overall: OverallProgress } {
    const files: FileProgress[] = [];
    let total = 0;
    let sent = 0;
    let inFlight = 0;
    for (const f of this.files.values()) {
      const bytesSent = Math.min(f.bytesTotal, f.doneBytes);
      const flying = Math.min(
        f.bytesTotal - bytesSent,
        [...f.inFlight.values()].reduce((a, b) => a + b, 0),
      );
      const speed = ackRate(f.acks, now);
      files.push({
        fileId: f.fileId,
        captureRow: f.captureRow,
        fileName: f.fileName,
        bytesTotal: f.bytesTotal,
        bytesSent,
        bytesInFlight: flying,
        partsTotal: f.partsTotal,
        partsDone: f.partsDone,
        bytesPerSecond: Math.round(speed),
        etaSeconds: speed > 0 && !this.outage ? Math.ceil((f.bytesTotal - bytesSent) / speed) : null,
      });
      total += f.bytesTotal;
      sent += bytesSent;
      inFlight += flying;
    }
    const speed = ackRate(this.overall, now);
    return {
      files,
      overall: {
        bytesTotal: total,
        bytesSent: sent,
        bytesInFlight: inFlight,
        bytesPerSecond: Math.round(speed),
        etaSeconds: speed > 0 && !this.outage ? Math.ceil((total - sent) / speed) : null,
        files: files.length,
        outage: this.outage,
      },
    };
  }

  /** Emits a last snapshot now and stops the timer. */
  flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.dirty = false;
    const s = this.snapshot();
    this.emit(s.files, s.overall);
  }

  private touch(): void {
    this.dirty = true;
    if (this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      if (!this.dirty) return;
      this.dirty = false;
      const s = this.snapshot();
      this.emit(s.files, s.overall);
    }, this.intervalMs);
    this.timer.unref?.();
  }
}
