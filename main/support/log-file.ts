// The support log: one file a day in the log folder, JSON lines, the newest 14 days kept
// (docs/decisions/0019-support-log-report.md). Every string goes through scrubSecrets first, so no
// password, API key, token or presigned URL reaches the file.
import { appendFileSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { EngineEvent, Logger } from '../engine/engine.js';
import { printableJson } from '../../shared/printable.js';
import { scrubSecrets } from './scrub.js';

/** Days of files kept: the newest 14 days that have a file, and today's. */
export const KEEP_DAYS = 14;

/** A log file's name: `capture-uploader-YYYY-MM-DD.log`, the local day its lines were written. */
const NAME_RE = /^capture-uploader-(\d{4}-\d{2}-\d{2})\.log$/;

/** Whether a file name is one of the support log's daily files. */
export function isLogFileName(name: string): boolean {
  return NAME_RE.test(name);
}

/** The file name of a local day (`YYYY-MM-DD`). */
export function logFileName(day: string): string {
  return `capture-uploader-${day}.log`;
}

const pad = (n: number, w = 2) => String(Math.abs(n)).padStart(w, '0');

/**
 * `ms` (ms since 1970) as ISO 8601 local time with its UTC offset, to the millisecond:
 * `2026-11-27T10:15:03.120+01:00`. `offsetMinutes` is the zone's offset east of UTC at that
 * instant (default the process's zone).
 */
export function isoWithOffset(ms: number, offsetMinutes = -new Date(ms).getTimezoneOffset()): string {
  const local = new Date(ms + offsetMinutes * 60_000);
  const sign = offsetMinutes < 0 ? '-' : '+';
  const off = `${sign}${pad(Math.trunc(Math.abs(offsetMinutes) / 60))}:${pad(Math.abs(offsetMinutes) % 60)}`;
  return `${local.toISOString().slice(0, 23)}${off}`;
}

/** What a SupportLog needs: its folder, and seams for tests. */
export interface SupportLogOptions {
  /** The log folder (created if missing): Electron's `app.getPath('logs')` in the app, `<data dir>/logs` for the CLI. */
  dir: string;
  /** The secrets the process holds in clear (password, API key, tokens), hidden wherever they appear; asked at each line. */
  secrets?: () => Iterable<string>;
  /** The clock (ms since 1970); default Date.now. Tests move it across midnight. */
  now?: () => number;
  /** The zone's offset east of UTC at an instant (minutes); default the process's zone. */
  offsetMinutes?: (ms: number) => number;
  /** Which process writes (`app`, `service`, `cli`), said on every line. */
  source: string;
}

/** One line of the file, before scrubbing. `at` is ISO 8601 with offset. */
export interface LogRecord {
  at: string;
  level: 'info' | 'warn';
  source: string;
  /** What happened: `log` for a message, else the engine event's type (`file`, `capture`, `activity`, …). */
  kind: string;
  message: string;
  [field: string]: unknown;
}

/**
 * The support log of one process. Appends one JSON object per line to today's file
 * (`capture-uploader-YYYY-MM-DD.log`, the local day by the injected clock); when the day changes
 * the next line goes to the new day's file and the files beyond the newest KEEP_DAYS days are
 * deleted (pruneLogs), as they are when the log is made. Lines are appended with O_APPEND, so the app's two processes
 * can write the same file. Writing never throws: a log that cannot be written (full disk,
 * read-only folder) loses the line, never the upload.
 */
export class SupportLog {
  private day?: string;
  private readonly now: () => number;
  private readonly offset: (ms: number) => number;

  constructor(private readonly opts: SupportLogOptions) {
    this.now = opts.now ?? Date.now;
    this.offset = opts.offsetMinutes ?? ((ms) => -new Date(ms).getTimezoneOffset());
    try {
      mkdirSync(opts.dir, { recursive: true });
    } catch {
      // Said by the first line that cannot be written: nothing is.
    }
    this.rotate(this.today(this.now()));
  }

  /** The folder the files are in. */
  get dir(): string {
    return this.opts.dir;
  }

  /** Writes a message (a Logger's info or warn). */
  message(level: 'info' | 'warn', message: string): void {
    this.write({ level, kind: 'log', message });
  }

  /**
   * Writes one line for an engine event (main/engine/events.ts EngineEvent): a file's or
   * capture's new state with its error, an activity entry (the night's story, as `log` prints
   * it), a hold, a stop, a loss, a warning. Progress events are not written (ten a second, and
   * the states say the same).
   */
  event(e: EngineEvent): void {
    const line = engineEventLine(e);
    if (line) this.write(line);
  }

  /** A Logger that writes here and then to `inner` (the console or stderr). */
  tee(inner?: Logger): Logger {
    return {
      info: (m) => {
        this.message('info', m);
        inner?.info(m);
      },
      warn: (m) => {
        this.message('warn', m);
        inner?.warn(m);
      },
    };
  }

  /** Appends `r` to today's file, every string scrubbed (scrubSecrets). */
  write(r: Omit<LogRecord, 'at' | 'source'>): void {
    const ms = this.now();
    const day = this.today(ms);
    if (day !== this.day) this.rotate(day);
    const secrets = [...(this.opts.secrets?.() ?? [])];
    const record = { at: isoWithOffset(ms, this.offset(ms)), source: this.opts.source, ...r };
    // Scrubbed and made printable string by string, then written with every control as a \u sequence.
    const text = printableJson(record, (_k, v: unknown) => (typeof v === 'string' ? scrubSecrets(v, secrets) : v));
    try {
      appendFileSync(join(this.opts.dir, logFileName(day)), `${text}\n`, { mode: 0o600 });
    } catch {
      // A log that cannot be written loses the line, never the upload (see the class's docstring).
    }
  }

  /** The local day (`YYYY-MM-DD`) of an instant. */
  private today(ms: number): string {
    return isoWithOffset(ms, this.offset(ms)).slice(0, 10);
  }

  /** Makes `day` the current day and deletes the files beyond the newest KEEP_DAYS days (pruneLogs). */
  private rotate(day: string): void {
    this.day = day;
    pruneLogs(this.opts.dir, day);
  }
}

/**
 * Keeps the daily files of the newest KEEP_DAYS days that have a file (by the day in their names)
 * and today's (`YYYY-MM-DD`), and deletes the other daily files in `dir`: a clock set years ahead
 * or back therefore costs at most a day of the real files for each day it wrote, never the whole
 * log. Other files are left alone. Never throws.
 */
function pruneLogs(dir: string, today: string): void {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return;
  }
  const byDay = names.flatMap((name) => {
    const day = NAME_RE.exec(name)?.[1];
    return day ? [{ day, name }] : [];
  });
  byDay.sort((a, b) => (a.day < b.day ? 1 : -1));
  for (const { day, name } of byDay.slice(KEEP_DAYS)) {
    if (day !== today) rmSync(join(dir, name), { force: true });
  }
}

/** The line an engine event is written as, or undefined for those not written (progress). */
function engineEventLine(e: EngineEvent): Omit<LogRecord, 'at' | 'source'> | undefined {
  switch (e.type) {
    case 'progress':
      return undefined;
    case 'file':
      return {
        level: e.state === 'failed' ? 'warn' : 'info',
        kind: 'file',
        fileId: e.fileId,
        captureRow: e.captureRow,
        state: e.state,
        message: `${e.fileName}: ${e.state}${e.error ? ` — ${e.error}` : ''}`,
      };
    case 'capture':
      return {
        level: e.error && e.state !== 'queued' ? 'warn' : 'info',
        kind: 'capture',
        captureRow: e.captureRow,
        state: e.state,
        message: `${e.label}: ${e.state}${e.error ? ` — ${e.error}` : ''}`,
      };
    case 'removed':
      return {
        level: 'info',
        kind: 'removed',
        captureRow: e.captureRow,
        fileIds: e.fileIds,
        message: `capture ${e.captureRow} removed from this computer's queue (${e.fileIds.length} file(s))`,
      };
    case 'lost':
      return {
        level: 'warn',
        kind: 'lost',
        fileId: e.fileId,
        captureRow: e.captureRow,
        partNumbers: e.partNumbers,
        message: `${e.fileName}: storage lost ${e.partNumbers.length} acknowledged part(s), ${e.bytes} bytes; sent again`,
      };
    case 'batch':
      return {
        level: 'info',
        kind: 'batch',
        message: `${e.fileIds.length} file(s) and ${e.captureRows.length} capture(s) changed together`,
      };
    case 'hold':
      return {
        level: 'info',
        kind: 'hold',
        message: e.hold ? `queue held: ${JSON.stringify(e.hold)}` : 'queue hold ended',
      };
    case 'activity':
      return {
        level: 'info',
        kind: 'activity',
        activity: e.entry.kind,
        fileId: e.entry.fileId,
        captureRow: e.entry.captureRow,
        message: `${e.entry.subject}: ${e.entry.message}`,
      };
    case 'blocked':
      return {
        level: e.message ? 'warn' : 'info',
        kind: 'blocked',
        message: e.message ?? 'credentials accepted again',
      };
    case 'fatal':
      return { level: 'warn', kind: 'fatal', message: e.message };
    case 'warning':
      return { level: 'warn', kind: 'warning', message: e.message };
  }
}
