import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { expect } from 'vitest';
import { randomCard } from './e2e-card.js';
import type { CliKit, CliOptions, CliResult } from './kit.js';
import { CLI_ENTRY, MiB, ROOT, waitFor } from './kit.js';
import type { TestService } from '../../e2e/service/testing.js';
import { uploaderEnv } from '../../e2e/service/testing.js';

/**
 * Helpers for the Node end-to-end tests that run `capture-uploader` as a child against the local
 * service (useCliKit in kit.ts): the `add` and `import` command lines, a card queued and draining
 * slowly, what `log --json` prints read back, and a run as another user. Test code only.
 */

/** How `add` queues recordings: on which structure, as which capture type, with which extra flags. */
export interface AddOptions {
  /** The structure id (default: the kit's first structure, where the helper is given a kit). */
  structure?: string;
  /** The capture type (§4.4 `type`); default `interior`. */
  type?: 'interior' | 'exterior';
  /** Flags put after `--type` and before the paths, e.g. `['--dry-run']` or `['--captured-at', iso]`. */
  flags?: string[];
}

/**
 * The arguments of `capture-uploader add` queuing `paths` (files or folders, absolute) on
 * `structure`: `add --structure S --type T [flags…] paths…`.
 */
export function addArgs(structure: string, paths: string[], opts: Omit<AddOptions, 'structure'> = {}): string[] {
  return ['add', '--structure', structure, '--type', opts.type ?? 'interior', ...(opts.flags ?? []), ...paths];
}

/**
 * Runs `capture-uploader add` of `paths` with its queue in `dataDir` (absolute) to its end, through
 * `kit` (extra environment in `cli.env`), and returns how it ended. Does not judge the exit code.
 */
export function addWithKit(
  kit: Pick<CliKit, 'run' | 'structure'>,
  dataDir: string,
  paths: string[],
  opts: AddOptions = {},
  cli: CliOptions = {},
): Promise<CliResult> {
  return kit.run(dataDir, addArgs(opts.structure ?? kit.structure(), paths, opts), cli);
}

/** One line of `capture-uploader --json log`: when (ISO 8601), its kind and its message. */
export interface LogLine {
  at: string;
  kind: string;
  message: string;
}

/** What `capture-uploader --json log` prints for the queue in `dataDir`, one parsed line each. */
export async function jsonLog(kit: Pick<CliKit, 'run'>, dataDir: string): Promise<LogLine[]> {
  return (await kit.run(dataDir, ['--json', 'log'])).out
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as LogLine);
}

/** A card queued and being drained slowly (see drainingCard). */
export interface DrainingCard {
  /** The queue's folder (absolute). */
  dataDir: string;
  /** The card's folder (absolute). */
  card: string;
  /** Each recording's bytes by file name. */
  files: Map<string, Buffer>;
  /** The `drain --wait` run, to its end. */
  draining: Promise<CliResult>;
}

/**
 * A card of random recordings (`sizes`: `[file name, bytes]`) written under the kit's work folder,
 * queued by `add` into `<work>/queue` (which must exit 0, or 3 for work left that goes on by
 * itself), then `drain --wait` started with storage slowed to 2 MiB/s, so that parts are on the
 * wire when the test cuts something off. Resolves once storage has received `receivedBytes`
 * (bytes, counted since the service started); `lines` gets each line the drain prints, as spawnCli.
 */
export async function drainingCard(
  kit: Pick<CliKit, 'run' | 'structure' | 'svc' | 'work'>,
  sizes: Iterable<readonly [string, number]>,
  receivedBytes: number,
  lines?: CliOptions['lines'],
): Promise<DrainingCard> {
  const dataDir = join(kit.work, 'queue');
  const { card, files } = randomCard(kit.work, 'card-', sizes);
  const add = await addWithKit(
    kit,
    dataDir,
    [...files.keys()].map((n) => join(card, n)),
  );
  expect([0, 3], add.out).toContain(add.code);
  await kit.svc.admin('PUT', '/settings', { bandwidthBytesPerSecond: 2 * MiB });
  const draining = kit.run(dataDir, ['drain', '--wait'], { lines });
  await waitFor(() => kit.svc.storage.bytesReceived >= receivedBytes, 120_000, `${receivedBytes} bytes at storage`, 50);
  return { dataDir, card, files, draining };
}

/**
 * Runs `capture-uploader <args>` from source to its end as the user and group `ids` (numeric; the
 * tests run as root, and root reads any folder), with the environment pointing at the local
 * service `svc` and its queue in `dataDir`. Resolves with its exit code (null when a signal ended
 * it), stdout and stderr; never rejects for a non-zero exit.
 */
export function runCliAs(
  svc: Pick<TestService, 'info'>,
  dataDir: string,
  args: string[],
  ids: { uid: number; gid: number },
): Promise<Pick<CliResult, 'code' | 'stdout' | 'stderr'>> {
  const env = { ...process.env, ...uploaderEnv(svc.info, dataDir), NODE_NO_WARNINGS: '1' };
  return new Promise((resolve) =>
    execFile(
      process.execPath,
      ['--import', 'tsx', CLI_ENTRY, ...args],
      { cwd: ROOT, env, ...ids },
      (err, stdout, stderr) =>
        resolve({ code: err ? (typeof err.code === 'number' ? err.code : null) : 0, stdout, stderr }),
    ),
  );
}

/** How `import` copies a card (see importArgs). */
export interface ImportOptions {
  /** The library folder the copies go to (absolute). */
  library: string;
  /** Copy the recordings only (`--recordings-only`); default: the whole card. */
  recordingsOnly?: boolean;
  /** Queue the copies on this structure as this capture type (`interior` by default); default: only copy. */
  place?: { structure: string; type?: 'interior' | 'exterior' };
}

/**
 * The arguments of `capture-uploader import` of the card at `card` (absolute):
 * `import card [--recordings-only] --library L [--structure S --type T]`.
 */
export function importArgs(card: string, opts: ImportOptions): string[] {
  const place = opts.place ? ['--structure', opts.place.structure, '--type', opts.place.type ?? 'interior'] : [];
  return ['import', card, ...(opts.recordingsOnly ? ['--recordings-only'] : []), '--library', opts.library, ...place];
}
