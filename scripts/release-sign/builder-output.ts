// electron-builder's output for a release, as its generic publisher writes it: the installers
// and a channel file per platform (`latest.yml`, `latest-mac.yml`, `latest-linux.yml`,
// `latest-linux-arm64.yml`) naming each with its SHA-512 (base64) and size. What `release:sign
// add` reads; the local service and the tests make releases with it without running a build.
import { createHash } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** The channel files of every platform electron-updater reads. */
const ALL_CHANNELS = ['latest.yml', 'latest-mac.yml', 'latest-linux.yml', 'latest-linux-arm64.yml'];

/** One installer of a release: its file name and bytes. */
export interface ReleaseFile {
  name: string;
  content: Buffer;
}

/**
 * Writes `files` and the channel files `channels` (default ALL_CHANNELS), each naming every file
 * with its SHA-512 (base64) and size, into `dir` (made when missing), as electron-builder does.
 * `statedSha512` puts another hash in the channel files (a release whose channel file lies).
 */
export function writeBuilderOutput(
  dir: string,
  release: { version: string; files: ReleaseFile[]; channels?: string[]; statedSha512?: string },
): void {
  mkdirSync(dir, { recursive: true });
  // JSON strings are YAML scalars: the shape is fixed, js-yaml reads it as electron-builder's.
  const q = (s: string) => JSON.stringify(s);
  const entries = release.files.map((f) => {
    writeFileSync(join(dir, f.name), f.content);
    const sha512 = release.statedSha512 ?? createHash('sha512').update(f.content).digest('base64');
    return { ...f, sha512 };
  });
  const first = entries[0]!;
  const yml = [
    `version: ${q(release.version)}`,
    'files:',
    ...entries.flatMap((e) => [`  - url: ${q(e.name)}`, `    sha512: ${q(e.sha512)}`, `    size: ${e.content.length}`]),
    `path: ${q(first.name)}`,
    `sha512: ${q(first.sha512)}`,
    `releaseDate: ${q(new Date().toISOString())}`,
    '',
  ].join('\n');
  for (const name of release.channels ?? ALL_CHANNELS) writeFileSync(join(dir, name), yml);
}
