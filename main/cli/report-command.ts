import { resolve } from 'node:path';
import { writeReport } from '../support/support-report.js';
import { defaultReportName } from '../support/report-name.js';
import type { GlobalOptions } from './commands.js';
import { printable } from './printable.js';
import { cliDataDir, cliLogDir } from './support-paths.js';

/** `--bandwidth` as given (the report shows the setting, parsed or not). */
type ReportGlobals = Omit<GlobalOptions, 'bandwidth'> & { bandwidth?: string; progressUrl?: string };

/**
 * `report [--out FILE]`: writes the support report (main/support/support-report.ts writeReport) for the
 * queue in the data dir, its support log (`<data dir>/logs`), and the settings as flags and
 * CAPTURE_* variables give them, the password and API key only as "(set)" or "(not set)".
 * Needs no credentials and works while a drain runs (the queue is read read-only). Prints the
 * path and entries (one `{ type: 'report', out, entries }` object with `json`). Throws the file
 * system's Error when the zip cannot be written.
 */
export function runReport(g: ReportGlobals, out: string | undefined): void {
  const dataDir = cliDataDir(g.dataDir);
  const env = process.env;
  const settings = {
    dataDir,
    baseUrl: g.baseUrl ?? env.CAPTURE_BASE_URL ?? null,
    authUrl: g.authUrl ?? env.CAPTURE_AUTH_URL ?? null,
    progressUrl: g.progressUrl ?? env.CAPTURE_PROGRESS_URL ?? null,
    projectId: g.projectId ?? env.CAPTURE_PROJECT_ID ?? null,
    email: g.email ?? env.CAPTURE_EMAIL ?? null,
    apiKey: g.apiKey ?? env.CAPTURE_API_KEY ?? null,
    password: g.password ?? env.CAPTURE_PASSWORD ?? null,
    concurrency: g.concurrency,
    bandwidth: g.bandwidth ?? null,
    demo: g.demo ?? false,
  };
  const secrets = [settings.apiKey, settings.password].filter((x): x is string => !!x);
  const result = writeReport({
    out: resolve(out ?? defaultReportName()),
    queueDir: dataDir,
    logDir: cliLogDir(dataDir),
    settings,
    secrets,
    madeBy: 'capture-uploader report',
  });
  if (g.json) process.stdout.write(`${JSON.stringify({ type: 'report', ...result })}\n`);
  else {
    process.stdout.write(`Report saved: ${printable(result.out)}\n`);
    for (const e of result.entries) process.stdout.write(`  ${printable(e)}\n`);
    process.stdout.write('It holds no password, API key, token or presigned URL; send it to support.\n');
  }
}
