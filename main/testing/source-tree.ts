import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The files under `dir` (a folder relative to `root`, the checkout) whose names `keep` accepts,
 * walking every sub-folder except those named in `skip`; each path relative to `root`, with
 * forward slashes, in directory order. For the tests that read the checkout's own sources (the
 * layout's folders, comments without issue numbers). Throws what readdirSync throws for a missing `dir`.
 */
export function filesUnder(
  root: string,
  dir: string,
  skip: ReadonlySet<string>,
  keep: (name: string) => boolean,
): string[] {
  const out: string[] = [];
  for (const name of readdirSync(join(root, dir))) {
    if (skip.has(name)) continue;
    const rel = `${dir}/${name}`;
    if (statSync(join(root, rel)).isDirectory()) out.push(...filesUnder(root, rel, skip, keep));
    else if (keep(name)) out.push(rel);
  }
  return out;
}
