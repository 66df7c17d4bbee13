import type { EngineEvent } from '../engine/events.js';
import { warnedPhrase } from '../../shared/night-summary.js';

/** How long failures that come together are gathered into one notification (ms). */
const GATHER_MS = 2000;

/** Names a notification lists before it says "and N more". */
const NAMES_SHOWN = 3;

/** What the announcer needs from the queue when it has drained: counts of what needs a person. */
export interface NeedYouCounts {
  /** Files failed for a reason that needs a person. */
  failed: number;
  /** Captures refused at registration or whose registration is unknown. */
  capturesNeedYou: number;
  /** Captures with a warning a person should look at (main/queue/totals.ts). */
  capturesWarned?: number;
}

/**
 * The desktop notifications of a night's uploads, and only what a person must act on ("quiet nights"): files that failed for good and captures the service refused, gathered over
 * `GATHER_MS` into one notification ("3 uploads need you: a.insv, b.insv, c.insv"), and one
 * "Queue finished at 04:12: 198 files, 41.2 GB; 2 need you" when the queue has drained what it
 * could. A passing failure (retried by itself) is never announced: the queue row shows its
 * retry time. Notification bodies carry file names and the service's message, never a URL.
 */
export class Announcer {
  private completed = { files: 0, bytes: 0 };
  private gathered: string[] = [];
  private timer?: NodeJS.Timeout;

  constructor(
    private readonly notify: (title: string, body: string) => void,
    private readonly gatherMs = GATHER_MS,
  ) {}

  /** Takes an engine event: counts completed files, gathers what needs a person. */
  onEngine(e: EngineEvent): void {
    if (e.type === 'file' && e.state === 'completed') {
      this.completed.files++;
      this.completed.bytes += e.file.size;
    }
    if (e.type === 'file' && e.state === 'failed') this.gather(`${e.fileName}: ${e.error ?? 'unknown error'}`);
    if (e.type === 'capture' && (e.state === 'rejected' || e.state === 'registration_unknown')) {
      this.gather(
        `${e.label}: ${e.error ?? (e.state === 'rejected' ? 'registration refused' : 'registration not confirmed')}`,
      );
    }
  }

  /**
   * The queue drained what it could: sends what is still gathered, then one "Queue finished"
   * notification if any file completed since the last one. `now` is the local time it names.
   */
  drained(counts: NeedYouCounts, now = new Date()): void {
    this.flush();
    const { files: n, bytes } = this.completed;
    if (n === 0) return;
    this.completed = { files: 0, bytes: 0 };
    const clock = `${String(now.getHours()).padStart(2, '0')}:${String(now.getMinutes()).padStart(2, '0')}`;
    const needYou = counts.failed + counts.capturesNeedYou;
    const warned = counts.capturesWarned ?? 0;
    const notes = [
      ...(needYou ? [`${needYou} need${needYou === 1 ? 's' : ''} you`] : []),
      ...(warned ? [warnedPhrase(warned)] : []),
    ];
    this.notify(
      'Queue finished',
      `Queue finished at ${clock}: ${n} file${n === 1 ? '' : 's'}, ${formatSize(bytes)}${notes.map((x) => `; ${x}`).join('')}.`,
    );
  }

  /** Sends what is gathered now, as one notification. */
  flush(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    const items = this.gathered;
    this.gathered = [];
    if (items.length === 0) return;
    if (items.length === 1) {
      this.notify('Upload needs you', items[0]!);
      return;
    }
    const names = items.slice(0, NAMES_SHOWN).map((i) => i.slice(0, i.indexOf(':')));
    const more = items.length - names.length;
    this.notify(
      `${items.length} uploads need you`,
      `${names.join(', ')}${more ? ` and ${more} more` : ''}. Open the queue's "Needs you" list to see why.`,
    );
  }

  /** Stops the gathering timer without sending (the app is closing). */
  close(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  private gather(item: string): void {
    this.gathered.push(item);
    this.timer ??= setTimeout(() => this.flush(), this.gatherMs);
  }
}

/** Bytes as a notification says them: `41.2 GB` (decimal units, as operating systems show file sizes). */
export function formatSize(bytes: number): string {
  const units = ['B', 'kB', 'MB', 'GB', 'TB'];
  let v = bytes;
  let i = 0;
  while (v >= 1000 && i < units.length - 1) {
    v /= 1000;
    i++;
  }
  return `${i === 0 ? v : v.toFixed(1)} ${units[i]}`;
}
