import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { filesUnder } from './main/testing/source-tree.js';

// Comments and test titles say why, citing the interface's sections (§) or a record in
// docs/decisions/, never a tracker's issue number: the tracker is not in the repository, and the
// history of a line belongs to git (the README's "Layout", docs/decisions/README.md).

const ROOT = dirname(new URL(import.meta.url).pathname);
const DIRS = ['main', 'renderer', 'shared', 'preload', 'e2e', 'scripts', '.ci'];
const SKIP = new Set(['node_modules', 'dist', 'test-results', 'schema']);
const SOURCE = /\.(ts|tsx|mts|mjs|js|cjs|css|html|sh|yml)$|^run$/;
/** An issue cited by number: "issue 18", "issues 17 and 19", "issue #10". */
export const ISSUE_NUMBER = /\bissues? #?\d+/i;
/** A point of an issue cited bare in a comment, its issue's number gone: "(#4)", "(–#4)", "; #6:". */
export const BARE_POINT = /^\s*(\/\/|\/?\*).*(^|[\s(;,–])#\d{1,2}\b/;

/** Every source file under `dir`, relative to the checkout. */
const files = (dir: string): string[] => filesUnder(ROOT, dir, SKIP, (name) => SOURCE.test(name));

/** The lines of `text` that cite an issue number, as `file:line: text`. */
function citations(file: string, text: string): string[] {
  return text
    .split('\n')
    .flatMap((l, i) => (ISSUE_NUMBER.test(l) || BARE_POINT.test(l) ? [`${file}:${i + 1}: ${l.trim()}`] : []));
}

describe('the source', () => {
  it('cites no issue number in any file', () => {
    const all = [
      ...DIRS.flatMap(files),
      ...readdirSync(ROOT).filter((n) => /\.(ts|js|yml)$/.test(n) && n !== 'no-issue-numbers.test.ts'),
    ];
    expect(all.length).toBeGreaterThan(300);
    expect(all.flatMap((f) => citations(f, readFileSync(join(ROOT, f), 'utf8')))).toEqual([]);
  });

  it('finds a citation when there is one (the check itself)', () => {
    expect(citations('x.ts', '// fine\n// the finish says so (issue 18 #3)\n// §4.7 decides')).toEqual([
      'x.ts:2: // the finish says so (issue 18 #3)',
    ]);
    expect(citations('x.ts', "it('names it (Issues 17 and 19)')")).toHaveLength(1);
    expect(citations('x.ts', '// the issues a person meets; 18 parts')).toEqual([]);
    expect(citations('x.ts', " * The app's cards (–#4), in the worker")).toHaveLength(1);
    expect(citations('x.ts', '// upstream: uppy #1724 (URLs signed long before use)')).toEqual([]);
    expect(citations('x.css', '  color: #000;')).toEqual([]);
  });
});
