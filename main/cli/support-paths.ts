import { homedir } from 'node:os';
import { join, resolve } from 'node:path';

/**
 * The CLI's data dir: `--data-dir`, else CAPTURE_DATA_DIR, else `~/.capture-uploader` (the folder
 * of `queue.db`). Absolute.
 */
export function cliDataDir(dataDir: string | undefined): string {
  return resolve(dataDir ?? process.env.CAPTURE_DATA_DIR ?? join(homedir(), '.capture-uploader'));
}

/**
 * The CLI's support log folder: `logs` beside the queue, `<data dir>/logs`
 * (docs/decisions/0019-support-log-report.md: one folder to find and to send, and the one `report`
 * reads for the same `--data-dir`).
 */
export function cliLogDir(dataDir: string): string {
  return join(dataDir, 'logs');
}
