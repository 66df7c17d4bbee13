// `npm run bench -- --baseline REF`: another commit's CLI built beside this tree, so every figure
// that runs the built CLI is measured for both builds in one run on one machine, alternating,
// and read as a ratio. Absolute times move between machines of the same kind and with whatever
// else runs; a ratio taken in one run does not (docs/performance.md, "Against the last release").
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT } from '../measure.js';
import type { Figure } from './figures.js';

/** A commit's CLI built in a temporary git worktree. `entry`: its `dist/cli/capture-uploader.js`. */
export interface BaselineBuild {
  /** What was asked for (`3aced12`, `v0.3.0`, `HEAD~20`, `release`). */
  ref: string;
  /** The commit it names, abbreviated. */
  commit: string;
  entry: string;
  /** Removes the worktree (and its build). */
  remove(): void;
}

const git = (args: string[], cwd = ROOT): string =>
  execFileSync('git', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();

/**
 * The commit `ref` names; `release` is the newest tag before HEAD (`git describe --tags
 * --abbrev=0 HEAD^`). Throws Error saying what to give instead when there is no such commit or
 * tag.
 */
export function resolveBaseline(ref: string): string {
  try {
    const named = ref === 'release' ? git(['describe', '--tags', '--abbrev=0', 'HEAD^']) : ref;
    return git(['rev-parse', '--short', `${named}^{commit}`]);
  } catch {
    throw new Error(
      ref === 'release'
        ? 'No release tag before HEAD to measure against: give the commit, e.g. --baseline 3aced12 or --baseline HEAD~20.'
        : `"${ref}" names no commit of this repository: give a commit, a tag or HEAD~N.`,
    );
  }
}

/**
 * Checks `ref` out into a temporary git worktree (detached) and builds its CLI there with its
 * own `build:cli`. Its dependencies are this tree's when its package-lock.json is the same (a
 * symbolic link, nothing installed), else installed there by `npm ci` (the Electron binary
 * skipped, as .ci/run does). Throws Error (git's, npm's or esbuild's, with their output) when
 * the commit cannot be checked out or built; the worktree is removed then.
 */
export function buildBaseline(ref: string): BaselineBuild {
  const commit = resolveBaseline(ref);
  const dir = join(mkdtempSync(join(tmpdir(), 'capture-baseline-')), 'tree');
  git(['worktree', 'add', '--detach', '--quiet', dir, commit]);
  const remove = () => {
    try {
      git(['worktree', 'remove', '--force', dir]);
    } catch {
      rmSync(dir, { recursive: true, force: true });
      git(['worktree', 'prune']);
    }
  };
  try {
    const sameLock =
      readFileSync(join(dir, 'package-lock.json'), 'utf8') === readFileSync(join(ROOT, 'package-lock.json'), 'utf8');
    if (sameLock) symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'), 'dir');
    else
      execFileSync('npm', ['ci', '--no-audit', '--no-fund'], {
        cwd: dir,
        stdio: ['ignore', 'ignore', 'inherit'],
        env: { ...process.env, ELECTRON_SKIP_BINARY_DOWNLOAD: '1' },
      });
    execFileSync('npm', ['run', '--silent', 'build:cli'], { cwd: dir, stdio: ['ignore', 'ignore', 'inherit'] });
    const entry = join(dir, 'dist', 'cli', 'capture-uploader.js');
    if (!existsSync(entry)) throw new Error(`${commit}'s build:cli wrote no ${entry}`);
    return { ref, commit, entry, remove };
  } catch (err) {
    remove();
    throw err;
  }
}

/** One figure of both builds: each build's best (Figure's sense) and this tree's ÷ the baseline's. */
export interface PairedFigure {
  figure: Figure;
  baseline: Figure;
  /** best(this tree) ÷ best(baseline), in the figure's unit (a ratio of ratios for a ratio). */
  ratio: number;
  /** Worse than the baseline by more than `tolerance` (0.1: 10 % more time, or 10 % less rate) in the figure's direction. */
  worse: boolean;
}

const best = (f: Figure) => (f.better === 'higher' ? Math.max(...f.values) : Math.min(...f.values));

/**
 * The figures measured for both builds, by name, in this tree's order: a figure only one build
 * gave is left out. `tolerance` is the share worse that counts as a regression (default 0.1, the
 * release check of docs/performance.md).
 */
export function pairFigures(current: Figure[], baseline: Figure[], tolerance = 0.1): PairedFigure[] {
  const byName = new Map(baseline.map((f) => [f.name, f]));
  return current.flatMap((figure) => {
    const base = byName.get(figure.name);
    if (!base || figure.values.length === 0 || base.values.length === 0) return [];
    const ratio = best(figure) / best(base);
    const worse = figure.better === 'lower' ? ratio > 1 + tolerance : ratio < 1 - tolerance;
    return [{ figure, baseline: base, ratio, worse }];
  });
}

/** Prints paired figures as a table: this tree's best, the baseline's, the ratio, and "WORSE" past the tolerance. */
export function printPairs(pairs: PairedFigure[], commit: string): void {
  if (pairs.length === 0) return;
  const width = Math.max(...pairs.map((p) => p.figure.name.length));
  console.log(`\nthis tree against ${commit}, the same run (best of each; ratio this ÷ ${commit})`);
  for (const p of pairs) {
    const fmt = (f: Figure) => `${best(f).toFixed(f.digits)} ${f.unit}`.trim().padStart(12);
    const sense = p.figure.better === 'lower' ? 'lower is better' : 'higher is better';
    console.log(
      `${p.figure.name.padEnd(width)}  ${fmt(p.figure)}  ${fmt(p.baseline)}  ratio ${p.ratio.toFixed(2).padStart(5)}  ${(p.worse ? 'WORSE' : '').padEnd(5)}  (${sense})`,
    );
  }
}
