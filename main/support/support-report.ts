// "Save a report for support" and `capture-uploader report`: one zip a person can send, made
// with fflate (docs/decisions/support-log-report.md). Every entry is scrubbed (scrubSecrets) on
// its way in, the settings lose their secrets' values (settingsWithoutSecrets), and the zip is
// written beside its destination and renamed into place, so no half-written report is left.
import { existsSync, readFileSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { arch, platform, release, type, version } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { strToU8, zipSync } from 'fflate';
import type { Zippable } from 'fflate';
import { APP_VERSION } from '../../shared/version.js';
import { summaryLines } from '../../shared/night-summary.js';
import { sinceTime } from '../cli/log.js';
import { withQueueReadOnly } from '../cli/read-queue.js';
import { statusJsonDocument } from '../cli/status.js';
import { queueSummary } from '../cli/summary.js';
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
No password, API key, token or presigned URL is in any of them.
`;

/**
 * Writes the report zip (ReportInput) and answers its path and entries: README.txt,
 * versions.json, settings.json, status.json and summary.txt/summary.json (or status-error.txt
 * saying why the queue could not be read: none yet, damaged, another version), and logs/<day>.log
 * for every daily file of the log folder. Every entry scrubbed (scrubSecrets). Throws Error when
 * the folder of `out` does not exist, the file system's Error when the zip cannot be written
 * (nothing is left at `out` then).
 */
export function writeReport(input: ReportInput): ReportResult {
  const now = input.now?.() ?? Date.now();
  const secrets = [...(input.secrets ?? [])];
  // Line by line: scrubSecrets escapes control characters, and a line break is the entries' own.
  const text = (s: string) =>
    strToU8(
      s
        .split('\n')
        .map((line) => scrubSecrets(line, secrets))
        .join('\n'),
    );
  const entries: Record<string, Uint8Array> = {};
  entries['README.txt'] = strToU8(README);
  const versions = {
    madeBy: input.madeBy,
    madeAt: isoWithOffset(now),
    app: APP_VERSION,
    node: process.versions.node,
    electron: process.versions.electron ?? null,
    ...input.versions,
    os: { platform: platform(), type: type(), release: release(), version: version(), arch: arch() },
  };
  entries['versions.json'] = text(`${JSON.stringify(versions, null, 2)}\n`);
  entries['settings.json'] = strToU8(`${JSON.stringify(settingsWithoutSecrets(input.settings, secrets), null, 2)}\n`);
  try {
    const since = sinceTime('24h', now);
    const { status, summary } = withQueueReadOnly(input.queueDir, (q) => ({
      status: statusJsonDocument(q),
      summary: queueSummary(q, since),
    }));
    entries['status.json'] = text(`${status}\n`);
    entries['summary.txt'] = text(`${summaryLines(summary, { now }).join('\n')}\n`);
    entries['summary.json'] = text(`${JSON.stringify({ type: 'summary', since, ...summary })}\n`);
  } catch (err) {
    entries['status-error.txt'] = text(`${err instanceof Error ? err.message : String(err)}\n`);
  }
  let names: string[] = [];
  try {
    names = readdirSync(input.logDir).filter(isLogFileName).sort();
  } catch {
    // No log folder yet: the report says so by having no logs/.
  }
  // The files were scrubbed line by line when written; scrubbed again for the secrets known now.
  for (const name of names) entries[`logs/${name}`] = text(readFileSync(join(input.logDir, name), 'utf8'));
  const zippable: Zippable = {};
  const mtime = new Date(now);
  for (const [name, data] of Object.entries(entries)) zippable[name] = [data, { mtime }];
  const out = resolve(input.out);
  if (!existsSync(dirname(out)))
    throw new Error(`The folder ${dirname(out)} does not exist; choose another place for the report.`);
  const partial = join(dirname(out), `.${Date.now()}-${process.pid}.report.partial`);
  try {
    writeFileSync(partial, zipSync(zippable, { level: 6 }));
    renameSync(partial, out);
  } catch (err) {
    rmSync(partial, { force: true });
    throw err;
  }
  return { out, entries: Object.keys(entries) };
}
