import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './kit.js';

/**
 * The CLI built as it ships (`npm run build:cli`'s own esbuild command), into a folder of its own
 * under `dist/` (`dist/.<prefix>-XXXXXX`), so tests that rebuild `dist/cli` run beside it without
 * racing it. Inside the checkout, so the bundle's bare imports (better-sqlite3, left external) find
 * node_modules. `entry` is its `capture-uploader.js`; `remove()` deletes the folder. Throws when the
 * script is not the esbuild command this expects, or the build fails (its output in the error).
 */
export function buildCli(prefix: string): { entry: string; remove(): void } {
  // A fresh clone has no dist/ yet.
  mkdirSync(join(ROOT, 'dist'), { recursive: true });
  const out = mkdtempSync(join(ROOT, 'dist', `.${prefix}-`));
  const build = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> })
    .scripts['build:cli']!;
  if (!/^esbuild .* --outdir=dist\/cli /.test(build))
    throw new Error(`build:cli is not the esbuild command expected: ${build}`);
  // Through a shell, as npm runs it: the command quotes its banner.
  execFileSync('/bin/sh', ['-c', build.replace('--outdir=dist/cli ', `--outdir=${out} `)], {
    cwd: ROOT,
    stdio: 'pipe',
    env: { ...process.env, PATH: `${join(ROOT, 'node_modules', '.bin')}:${process.env.PATH}` },
  });
  return { entry: join(out, 'capture-uploader.js'), remove: () => rmSync(out, { recursive: true, force: true }) };
}
