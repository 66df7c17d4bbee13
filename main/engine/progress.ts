/** Progress of one file. Bytes, bytes per second, seconds; `etaSeconds` null while unknown. */
export interface FileProgress {
  fileId: number;
  captureRow: number;
  fileName: string;
  bytesTotal: number;
  bytesSent: number;
  partsTotal: number;
  partsDone: number;
  bytesPerSecond: number;
  etaSeconds: number | null;
}

/** Progress of every file being tracked together; same units as FileProgress. */
export interface OverallProgress {
  bytesTotal: number;
  bytesSent: number;
  bytesPerSecond: number;
  etaSeconds: number | null;
  files: number;
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
  samples: { t: number; bytes: number }[];
}

// Speed is measured over the last few seconds, so it follows a change of network or limit
// quickly without jumping with every chunk.
const WINDOW_MS = 5000;

function rate(samples: { t: number; bytes: number }[], now: number): number {
  while (samples.length > 2 && samples[0]!.t < now - WINDOW_MS) samples.shift();
  const first = samples[0];
  const last = samples.at(-1);
  if (!first || !last || last.t - first.t < 200) return 0;
  return ((last.bytes - first.bytes) * 1000) / (last.t - first.t);
}

/**
 * Tracks bytes and parts of the files being uploaded and emits at most one snapshot per
 * `intervalMs` (100 ms: ten a second at most), and only when something moved.
 */
export class ProgressTracker {
  private readonly files = new Map<number, Tracked>();
  private readonly overallSamples: { t: number; bytes: number }[] = [];
  private timer?: NodeJS.Timeout;
  private dirty = false;
  /** Bytes accepted by storage since this tracker started: only grows, so the overall speed stays right as files finish. */
  private accepted = 0;

  constructor(
    private readonly emit: (files: FileProgress[], overall: OverallProgress) => void,
    private readonly intervalMs = 100,
  ) {}

  /** Starts tracking a file, with the bytes and parts already in storage. */
  track(f: { fileId: number; captureRow: number; fileName: string; bytesTotal: number; partsTotal: number; doneBytes: number; partsDone: number }): void {
    this.files.set(f.fileId, { ...f, inFlight: new Map(), samples: [] });
    this.touch();
  }

  /** Stops tracking a file (finished, failed, paused). */
  untrack(fileId: number): void {
    this.files.delete(fileId);
    this.touch();
  }

  /** Bytes of a part in flight so far. */
  partProgress(fileId: number, partNumber: number, sent: number): void {
    const f = this.files.get(fileId);
    if (!f) return;
    f.inFlight.set(partNumber, sent);
    this.touch();
  }

  /** A part was accepted by storage (`size` bytes), or abandoned (`size` 0: its in-flight bytes are dropped). */
  partDone(fileId: number, partNumber: number, size: number): void {
    const f = this.files.get(fileId);
    if (!f) return;
    f.inFlight.delete(partNumber);
    if (size > 0) {
      f.doneBytes += size;
      f.partsDone++;
      this.accepted += size;
    }
    this.touch();
  }

  /** The current snapshot. */
  snapshot(now = Date.now()): { files: FileProgress[]; overall: OverallProgress } {
    const files: FileProgress[] = [];
    let total = 0;
    let sent = 0;
    let inFlight = 0;
    for (const f of this.files.values()) {
      const bytesSent = Math.min(f.bytesTotal, f.doneBytes + [...f.inFlight.values()].reduce((a, b) => a + b, 0));
      f.samples.push({ t: now, bytes: bytesSent });
      const speed = rate(f.samples, now);
      files.push({
        fileId: f.fileId,
        captureRow: f.captureRow,
        fileName: f.fileName,
        bytesTotal: f.bytesTotal,
        bytesSent,
        partsTotal: f.partsTotal,
        partsDone: f.partsDone,
        bytesPerSecond: Math.round(speed),
        etaSeconds: speed > 0 ? Math.ceil((f.bytesTotal - bytesSent) / speed) : null,
      });
      total += f.bytesTotal;
      sent += bytesSent;
      for (const b of f.inFlight.values()) inFlight += b;
    }
    const moved = Math.max(this.accepted + inFlight, this.overallSamples.at(-1)?.bytes ?? 0);
    this.overallSamples.push({ t: now, bytes: moved });
    const speed = rate(this.overallSamples, now);
    return {
      files,
      overall: {
        bytesTotal: total,
        bytesSent: sent,
        bytesPerSecond: Math.round(speed),
        etaSeconds: speed > 0 ? Math.ceil((total - sent) / speed) : null,
        files: files.length,
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
