import { resolve } from 'node:path';
import { isSecretSetting } from '../../shared/settings-table.js';
import { writeReport } from '../support/support-report.js';
import { defaultReportName } from '../support/report-name.js';
import type { GlobalOptions } from './commands.js';
import { reportedSettings } from '../support/report-settings.js';
import { printable, printableJson } from './printable.js';
import { givenCliSettings } from './setting-flags.js';
import { cliDataDir, cliLogDir } from './support-paths.js';

/** The global options as commander keeps them: each setting as given (the report shows it, parsed or not). */
type ReportGlobals = Omit<GlobalOptions, 'bandwidth' | 'settings'> & Record<string, unknown>;

/**
 * `report [--out FILE]`: writes the support report (main/support/support-report.ts writeReport) for the
 * queue in the data dir, its support log (`<data dir>/logs`), and the settings table's settings
 * as flags and CAPTURE_* variables give them, its secrets only as "(set)" or "(not set)".
 * Needs no credentials and works while a drain runs (the queue is read read-only). Prints the
 * path and entries (one `{ type: 'report', out, entries }` object with `json`). Throws the file
 * system's Error when the zip cannot be written.
 */
export function runReport(g: ReportGlobals, out: string | undefined): void {
  const dataDir = cliDataDir(g.dataDir);
  const given = givenCliSettings(g);
  // The table's settings (secrets by its own mark only as "(set)" or "(not set)"), the queue's
  // folder as resolved, and whether the local test service is used.
  const settings = { ...reportedSettings(given), dataDir, demo: g.demo ?? false };
  const secrets = Object.entries(given)
    .filter(([k, v]) => isSecretSetting(k) && typeof v === 'string' && v !== '')
    .map(([, v]) => v as string);
  const result = writeReport({
    out: resolve(out ?? defaultReportName()),
    queueDir: dataDir,
    logDir: cliLogDir(dataDir),
    settings,
    secrets,
    madeBy: 'capture-uploader report',
  });
  if (g.json) process.stdout.write(`${printableJson({ type: 'report', ...result })}\n`);
  else {
    process.stdout.write(`Report saved: ${printable(result.out)}\n`);
    for (const e of result.entries) process.stdout.write(`  ${printable(e)}\n`);
    process.stdout.write('It holds no password, API key, token or presigned URL; send it to support.\n');
  }
}
