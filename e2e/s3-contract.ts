import { expect } from 'vitest';
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { CliResult, CliRun } from '../main/testing/kit.js';
import { MiB, sha256, spawnCli } from '../main/testing/kit.js';
import type { LocalServiceInfo } from './service/index.js';

/**
 * What the storage contract tests share (`e2e/s3rver.test.ts`, `e2e/rgw.test.ts`): the local
 * gateway in front of an S3 server nobody here wrote, a card taken through the real CLI, and every
 * object read back from that server and compared with its source file. Test code only.
 */

/** The absolute path of one of the shared media fixtures (`../shared/fixtures/<name>`), opened read-only. */
export const fixture = (name: string): string =>
  fileURLToPath(new URL(`../../shared/fixtures/${name}`, import.meta.url));

/** The CLI from source, run to its end with its environment pointing at the service `info` and its queue in `dataDir`. */
export const cli = (info: LocalServiceInfo, dataDir: string, args: string[]): Promise<CliResult> =>
  spawnCli({ info }, dataDir, args).done;

/**
 * Writes the card both contract tests upload, `<work>/card/DCIM/Camera01`: the two real fixture
 * recordings (copied) and a generated 12 MiB recording (3 parts of 5 MiB). Returns the folder and
 * each file name's source path.
 */
export function writeContractCard(work: string): { card: string; sources: Map<string, string> } {
  const card = join(work, 'card', 'DCIM', 'Camera01');
  mkdirSync(card, { recursive: true });
  copyFileSync(fixture('sample.insv'), join(card, 'sample.insv'));
  copyFileSync(fixture('walkthrough.mp4'), join(card, 'walkthrough.mp4'));
  writeFileSync(join(card, 'VID_20261123_080000_00_002.insv'), randomBytes(12 * MiB));
  const names = ['sample.insv', 'walkthrough.mp4', 'VID_20261123_080000_00_002.insv'];
  return { card, sources: new Map(names.map((n) => [n, join(card, n)])) };
}

/**
 * A 21 MiB recording (5 parts of 5 MiB) in `<work>/resume-card`, queued by `add --type exterior`
 * on the first structure with its queue in `<work>/resume-queue`; fails the test when `add` does
 * not exit 0.
 */
export async function queuedResumeCard(
  info: LocalServiceInfo,
  work: string,
): Promise<{ file: string; dataDir: string }> {
  const dir = join(work, 'resume-card');
  mkdirSync(dir, { recursive: true });
  const file = join(dir, 'VID_20261124_063000_00_003.insv');
  writeFileSync(file, randomBytes(21 * MiB));
  const dataDir = join(work, 'resume-queue');
  await addExterior(info, dataDir, dir);
  return { file, dataDir };
}

/** `add --structure <first> --type exterior <path>` with its queue in `dataDir`; fails the test when it does not exit 0. */
export async function addExterior(info: LocalServiceInfo, dataDir: string, path: string): Promise<void> {
  const add = await cli(info, dataDir, ['add', '--structure', info.structures[0]!, '--type', 'exterior', path]);
  expect(add.code, add.stderr).toBe(0);
}

/** A drain one part at a time at 4 MiB/s: slow enough that a stop lands with some parts stored and the next on the way. */
export const slowDrain = (info: LocalServiceInfo, dataDir: string): CliRun =>
  spawnCli({ info }, dataDir, ['--concurrency', '1', '--bandwidth', '4M', 'drain']);

/**
 * Asserts that every upload completed and that what `read(key)` returns from the S3 server has its
 * source file's size and SHA-256 (`sources`: file name → path).
 */
export async function expectObjectsAreSources(
  uploads: { key: string; fileName: string; size: number; status: string }[],
  sources: Map<string, string>,
  read: (key: string) => Promise<Buffer>,
): Promise<void> {
  for (const u of uploads) {
    expect(u.status).toBe('completed');
    const bytes = await read(u.key);
    expect({ file: u.fileName, size: bytes.length, sha256: sha256(bytes) }).toEqual({
      file: u.fileName,
      size: u.size,
      sha256: sha256(readFileSync(sources.get(basename(u.fileName))!)),
    });
  }
}
