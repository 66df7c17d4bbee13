// "Save a report for support" and `capture-uploader report`: one zip a person can send, made
// with fflate (docs/decisions/0019-support-log-report.md). Every entry is scrubbed (scrubSecrets) on
// its way in, the settings lose their secrets' values (settingsWithoutSecrets), and the zip is
// written beside its destination and renamed into place, so no half-written report is left.
import { closeSync, existsSync, openSync, readFileSync, readdirSync, renameSync, rmSync, writeSync } from 'node:fs';
import { arch, platform, release, type, version } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { Zip, ZipDeflate, strToU8 } from 'fflate';
import { APP_VERSION } from '../../shared/version.js';
import { summaryLines } from '../../shared/night-summary.js';
import type { ReportQueueRead, ReportQueueRequest } from './report-queue.js';
import { readReportQueue, readReportQueueOffThread } from './report-queue.js';
import { isLogFileName, isoWithOffset } from './log-file.js';
import { scrubSecrets, settingsWithoutSecrets } from './scrub.js';

/** What a report is made of. */
export interface ReportInput {
  /** The zip's path (its folder must exist); an existing file there is replaced. */
  out: string;
  /** The queue's folder (the one holding `queue.db`): `<userData>/queue` in the app, the CLI's data dir. */
  queueDir: string;
  /** The support log's folder (SupportLog's `dir`); its daily files go in as `logs/…`. */
  logDir: string;
  /** The settings as kept (JSON data); written without their secrets' values (settingsWithoutSecrets). */
  settings: unknown;
  /** Secrets held in clear (password, API key, tokens), hidden wherever they appear in any entry. */
  secrets?: Iterable<string>;
  /** Which program made it (`capture-uploader report`, `desktop app`), and versions beyond Node's and the OS's (Electron's). */
  madeBy: string;
  versions?: Record<string, string | undefined>;
  /** The clock (ms since 1970); default Date.now. */
  now?: () => number;
}

/** The report written: its path and the names of its entries. */
export interface ReportResult {
  out: string;
  entries: string[];
}

/** The entries' explanation, first in the zip. */
const README = `Capture Uploader: a report for support
versions.json   the app, Node, Electron and operating system versions
settings.json   the settings, passwords, API keys and tokens shown only as (set) or (not set)
status.json     the queue as \`capture-uploader status --json\` prints it
summary.txt     the last 24 hours as \`capture-uploader log --summary\` prints it (summary.json: with --json)
logs/           the support log, one file a day (JSON lines, times ISO 8601 with offset), the last 14 days
                (logs-left-out.txt, if there, names the oldest days the app's report had no time for)
No password, API key, token or presigned URL is in any of them.
`;

/** What a step of the report asks its runner: nothing (a turn of the event loop), or the queue's read. */
type Step = ReportQueueRequest | undefined;
/** The runner's answer to a step: the queue's read, when that was asked. */
type Answer = ReportQueueRead | undefined;

/** About how many bytes of a log file are scrubbed and compressed between two yields of gatherReport. */
export const REPORT_SLICE_BYTES = 1024 * 1024;

/** How long (ms) gatherReport adds log files, newest first, before it leaves the older ones out. */
const REPORT_LOG_BUDGET_MS = 60_000;

/** How gatherReport shares its process's event loop and when it stops. */
export interface GatherOptions {
  /** Stops the gathering: it rejects with the signal's reason, and nothing is left at `out`. */
  signal?: AbortSignal;
  /**
   * Log files are added newest first while less than this many ms have passed since the start
   * (default REPORT_LOG_BUDGET_MS); the older ones are left out and `logs-left-out.txt` names them.
   */
  logBudgetMs?: number;
  /** Lets the rest of the process run between two slices of work (default: one turn of the event loop, setImmediate). */
  pause?: () => Promise<void>;
}

/**
 * Writes the report zip (ReportInput) and answers its path and entries: README.txt,
 * versions.json, settings.json, status.json and summary.txt/summary.json (or status-error.txt
 * saying why the queue could not be read: none yet, damaged, another version), and logs/<day>.log
 * for every daily file of the log folder. Every entry scrubbed (scrubSecrets). Throws Error when
 * the folder of `out` does not exist, the file system's Error when the zip cannot be written
 * (nothing is left at `out` then). All at once, on the caller's thread: the CLI's `report`.
 */
export function writeReport(input: ReportInput): ReportResult {
  const steps = reportSteps(input, () => false);
  let answer: Answer;
  for (;;) {
    const step = steps.next(answer);
    if (step.done) return step.value;
    answer = step.value && readReportQueue(step.value);
  }
}

/**
 * writeReport in slices (about REPORT_SLICE_BYTES of log each, each small entry), the queue's read
 * on a thread of its own (readReportQueueOffThread: seconds on a queue of 100,000 files), letting
 * the event loop turn between two slices (`pause`), so the upload service that makes it
 * keeps answering its host's heartbeat and calls (docs/decisions/0035-service-heartbeat.md). Log files
 * are added newest first while the time since the start is within `logBudgetMs`; those left out
 * are named in `logs-left-out.txt`. Rejects with the signal's reason when it is aborted, and with
 * writeReport's errors; nothing is left at `out` then.
 */
export async function gatherReport(input: ReportInput, opts: GatherOptions = {}): Promise<ReportResult> {
  const began = performance.now();
  const budget = opts.logBudgetMs ?? REPORT_LOG_BUDGET_MS;
  const pause = opts.pause ?? (() => new Promise<void>((resolve) => setImmediate(resolve)));
  const steps = reportSteps(input, () => performance.now() - began > budget);
  let answer: Answer;
  try {
    for (;;) {
      opts.signal?.throwIfAborted();
      const step = steps.next(answer);
      if (step.done) return step.value;
      answer = step.value && (await readReportQueueOffThread(step.value, opts.signal));
      await pause();
    }
  } finally {
    // An abort or an error between two steps: the generator's own clean-up removes the partial zip.
    void steps.return(undefined as never);
  }
}

/**
 * The report's work as steps (ReportInput; see writeReport for the entries): each `yield` ends
 * one bounded slice. `overBudget()` is asked before each log file, newest first: once true, the
 * older files are left out and `logs-left-out.txt` says which and why. The zip is streamed to a
 * partial file beside `out` and renamed into place at the end; a generator closed before its end
 * removes the partial file.
 */
function* reportSteps(input: ReportInput, overBudget: () => boolean): Generator<Step, ReportResult, Answer> {
  const now = input.now?.() ?? Date.now();
  const secrets = [...(input.secrets ?? [])];
  // Line by line: scrubSecrets escapes control characters, and a line break is the entries' own.
  const scrub = (s: string) =>
    s
      .split('\n')
      .map((line) => scrubSecrets(line, secrets))
      .join('\n');
  const text = (s: string) => strToU8(scrub(s));
  const out = resolve(input.out);
  if (!existsSync(dirname(out)))
    throw new Error(`The folder ${dirname(out)} does not exist; choose another place for the report.`);
  const partial = join(dirname(out), `.${Date.now()}-${process.pid}.report.partial`);
  const fd = openSync(partial, 'w', 0o600);
  let zipError: Error | undefined;
  const zip = new Zip((err, chunk) => {
    if (err) zipError ??= err;
    else writeSync(fd, chunk);
  });
  const mtime = new Date(now);
  const names: string[] = [];
  const add = (name: string, data: Uint8Array) => {
    const entry = new ZipDeflate(name, { level: 6 });
    entry.mtime = mtime;
    zip.add(entry);
    entry.push(data, true);
    names.push(name);
    if (zipError) throw zipError;
  };
  let finished = false;
  try {
    add('README.txt', strToU8(README));
    const versions = {
      madeBy: input.madeBy,
      madeAt: isoWithOffset(now),
      app: APP_VERSION,
      node: process.versions.node,
      electron: process.versions.electron ?? null,
      ...input.versions,
      os: { platform: platform(), type: type(), release: release(), version: version(), arch: arch() },
    };
    add('versions.json', text(`${JSON.stringify(versions, null, 2)}\n`));
    add('settings.json', strToU8(`${JSON.stringify(settingsWithoutSecrets(input.settings, secrets), null, 2)}\n`));
    yield;
    // Read where the runner says: here (writeReport), or on a thread of its own (gatherReport).
    const read = yield { queueDir: input.queueDir, now };
    if (read?.ok) {
      // Tens of MB on a queue of 100,000 files: scrubbed and compressed in slices, as a log file.
      yield* addText(zip, 'status.json', `${read.status}\n`, scrub, mtime, () => zipError);
      names.push('status.json');
      add('summary.txt', text(`${summaryLines(read.summary, { now }).join('\n')}\n`));
      add('summary.json', text(`${JSON.stringify({ type: 'summary', since: read.since, ...read.summary })}\n`));
    } else add('status-error.txt', text(`${read?.error ?? 'The queue was not read.'}\n`));
    yield;
    let logs: string[] = [];
    try {
      logs = readdirSync(input.logDir).filter(isLogFileName).sort().reverse();
    } catch {
      // No log folder yet: the report says so by having no logs/.
    }
    const leftOut: string[] = [];
    for (const name of logs) {
      if (overBudget()) {
        leftOut.push(name);
        continue;
      }
      // The files were scrubbed line by line when written; scrubbed again for the secrets known now.
      yield* addText(zip, `logs/${name}`, readFileSync(join(input.logDir, name), 'utf8'), scrub, mtime, () => zipError);
      names.push(`logs/${name}`);
    }
    if (leftOut.length > 0)
      add(
        'logs-left-out.txt',
        strToU8(
          `The report's time for the support log ran out; these days' files were left out (the newest are in logs/):\n${leftOut.join('\n')}\n`,
        ),
      );
    zip.end();
    if (zipError) throw zipError;
    closeSync(fd);
    renameSync(partial, out);
    finished = true;
    return { out, entries: names };
  } finally {
    if (!finished) {
      try {
        closeSync(fd);
      } catch {
        // Closed already (the rename failed).
      }
      rmSync(partial, { force: true });
    }
  }
}

/**
 * `body` (a log file, the status document) into the zip as the entry `name`, about
 * REPORT_SLICE_BYTES at a time (cut at a line break), each slice scrubbed and compressed, a
 * `yield` after each.
 */
function* addText(
  zip: Zip,
  name: string,
  body: string,
  scrub: (s: string) => string,
  mtime: Date,
  failed: () => Error | undefined,
): Generator<Step, void, Answer> {
  const entry = new ZipDeflate(name, { level: 6 });
  entry.mtime = mtime;
  zip.add(entry);
  let at = 0;
  do {
    let end = Math.min(body.length, at + REPORT_SLICE_BYTES);
    if (end < body.length) {
      const lineEnd = body.indexOf('\n', end);
      end = lineEnd === -1 ? body.length : lineEnd + 1;
    }
    entry.push(strToU8(scrub(body.slice(at, end))), end >= body.length);
    const err = failed();
    if (err) throw err;
    at = end;
    yield;
  } while (at < body.length);
}
