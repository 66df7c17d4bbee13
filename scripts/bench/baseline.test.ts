import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { buildBaseline, pairFigures, resolveBaseline } from './baseline.js';
import type { Figure } from './figures.js';

const fig = (name: string, better: Figure['better'], ...values: number[]): Figure => ({
  name,
  values,
  unit: 'ms',
  better,
  digits: 0,
});

describe('bench --baseline', () => {
  it('pairs figures by name, best against best, and calls worse past 10 % in the figure’s own direction', () => {
    const pairs = pairFigures(
      [
        fig('start', 'lower', 120, 110),
        fig('rate', 'higher', 80, 90),
        fig('status', 'lower', 300),
        fig('new', 'lower', 1),
      ],
      [
        fig('start', 'lower', 100, 130),
        fig('rate', 'higher', 100),
        fig('status', 'lower', 280),
        fig('gone', 'lower', 1),
      ],
    );
    expect(pairs.map((p) => [p.figure.name, Number(p.ratio.toFixed(3)), p.worse])).toEqual([
      ['start', 1.1, false], // 110 ÷ 100: at the tolerance, not past it
      ['rate', 0.9, false], // 90 ÷ 100: 10 % less, not past it
      ['status', 1.071, false],
    ]);
    expect(pairFigures([fig('start', 'lower', 112)], [fig('start', 'lower', 100)])[0]!.worse).toBe(true);
    expect(pairFigures([fig('rate', 'higher', 89)], [fig('rate', 'higher', 100)])[0]!.worse).toBe(true);
  });

  it('says what to give when a ref names nothing', () => {
    expect(() => resolveBaseline('no-such-ref-anywhere')).toThrow(/names no commit of this repository: give a commit/);
  });

  it('builds a commit’s CLI in a worktree that runs, and removes the worktree', () => {
    const build = buildBaseline('HEAD');
    try {
      expect(build.commit).toBe(execFileSync('git', ['rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim());
      const help = execFileSync(process.execPath, [build.entry, '--help'], { encoding: 'utf8' });
      expect(help).toMatch(/capture-uploader/);
    } finally {
      build.remove();
    }
    expect(existsSync(build.entry)).toBe(false);
    expect(execFileSync('git', ['worktree', 'list'], { encoding: 'utf8' })).not.toContain('capture-baseline-');
  }, 120_000);
});
