import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { filesUnder } from './main/testing/source-tree.js';

// The layout the README's "Layout" section describes: main/ holds only folders, no
// module imports itself back through others, no folder imports itself back through other folders, and nothing the app ships imports e2e/.

const ROOT = dirname(new URL(import.meta.url).pathname);
const ROOMS = ['main', 'renderer', 'shared', 'preload', 'e2e/service', 'scripts/release-sign'];
const SKIP = new Set(['node_modules', 'dist']);

/** Every .ts/.tsx file under `dir`, relative to the checkout, with forward slashes. */
const sources = (dir: string): string[] =>
  filesUnder(ROOT, dir, SKIP, (name) => /\.tsx?$/.test(name) && !name.endsWith('.d.ts'));

/** The relative imports of each file (static, re-exports and dynamic), resolved to files of the checkout. */
function importGraph(files: string[]): Map<string, string[]> {
  const known = new Set(files);
  const graph = new Map<string, string[]>();
  for (const f of files) {
    const deps: string[] = [];
    for (const m of readFileSync(join(ROOT, f), 'utf8').matchAll(
      /(?:from|import)\s*\(?\s*['"](\.{1,2}\/[^'"]+)['"]/g,
    )) {
      const target = relative(ROOT, normalize(join(ROOT, dirname(f), m[1]!)))
        .split('\\')
        .join('/');
      const hit = [
        target,
        target.replace(/\.js$/, '.ts'),
        target.replace(/\.js$/, '.tsx'),
        `${target}.ts`,
        `${target}/index.ts`,
      ].find((c) => known.has(c));
      if (hit) deps.push(hit);
    }
    graph.set(f, deps);
  }
  return graph;
}

/** Import circles as lists of files (Tarjan's strongly connected components of more than one file, or a file importing itself). */
function circles(graph: Map<string, string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const component: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      component.push(w);
    } while (w !== v);
    if (component.length > 1 || graph.get(v)!.includes(v)) found.push(component.sort());
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return found;
}

describe('the layout', () => {
  const files = ROOMS.flatMap(sources);
  const graph = importGraph(files);

  it('has no loose files at the top of main/, only its folders', () => {
    const loose = readdirSync(join(ROOT, 'main')).filter((name) => !statSync(join(ROOT, 'main', name)).isDirectory());
    expect(loose).toEqual([]);
  });

  it('has no import circles in main/, renderer/, shared/, preload/, e2e/service/ or scripts/release-sign/', () => {
    expect(files.length).toBeGreaterThan(100);
    expect(circles(graph)).toEqual([]);
  });

  it('has no circle of folders in main/: no folder imports one that imports it back, directly or through others', () => {
    // The app's code only: a test may reach across folders, and main/testing/ is the tests' kit.
    const folders = new Map<string, string[]>();
    const folderOf = (f: string) => f.split('/')[1]!;
    for (const [f, deps] of graph) {
      if (!f.startsWith('main/') || /\.test\.tsx?$/.test(f) || f.startsWith('main/testing/')) continue;
      const list = folders.get(folderOf(f)) ?? [];
      for (const d of deps)
        if (d.startsWith('main/') && folderOf(d) !== folderOf(f) && !list.includes(folderOf(d))) list.push(folderOf(d));
      folders.set(folderOf(f), list);
    }
    expect(folders.size).toBeGreaterThan(10);
    expect(circles(folders)).toEqual([]);
  });

  it('finds a circle when there is one (the check itself)', () => {
    expect(
      circles(
        new Map([
          ['a.ts', ['b.ts']],
          ['b.ts', ['c.ts']],
          ['c.ts', ['a.ts']],
          ['d.ts', ['a.ts']],
        ]),
      ),
    ).toEqual([['a.ts', 'b.ts', 'c.ts']]);
  });

  it('has nothing in main/ but its tests and their kit import e2e/ or the publisher’s tool (scripts/)', () => {
    // main/testing/ is the tests' kit (linted as test code, never imported by the app).
    const reaching = files.filter(
      (f) =>
        f.startsWith('main/') &&
        !f.endsWith('.test.ts') &&
        !f.startsWith('main/testing/') &&
        graph.get(f)!.some((d) => d.startsWith('e2e/') || d.startsWith('scripts/')),
    );
    expect(reaching).toEqual([]);
  });
});
