import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// queue.db has one owner (docs/decisions/0016-queue-db-owner.md): the lint rule keeps better-sqlite3's
// import in main/queue/, and this scan keeps the statements there too, since code handed the
// connection could prepare one without importing anything. Production code and the benches only.

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
/** Where SQL may be written: the queue's owner, the tests' back doors, and the office's own records.db. */
const OWNERS = [
  /^main\/queue\//,
  /^main\/testing\//,
  /^main\/office\/records-store\.ts$/,
  /^main\/office\/migrations\.ts$/,
];
/** A statement run on a connection: prepare or exec of SQL text, a pragma, a transaction of the raw handle. */
const STATEMENT = /\.prepare(?:<[^>]*>)?\(\s*[`'"]|\.exec\(\s*[`'"]|\.pragma\(|\bdb\.transaction\(/g;

/** Every non-test .ts file under `dir` (relative to the checkout), with forward slashes. */
function sources(dir: string): string[] {
  return readdirSync(join(ROOT, dir)).flatMap((name) => {
    const rel = `${dir}/${name}`;
    if (name === 'node_modules' || name === 'dist') return [];
    if (statSync(join(ROOT, rel)).isDirectory()) return sources(rel);
    return name.endsWith('.ts') && !name.endsWith('.test.ts') && !name.endsWith('.d.ts') ? [rel] : [];
  });
}

/** `file:line: text` of each statement in `files` outside the owners. */
function statementsOutsideOwners(files: string[], read: (file: string) => string): string[] {
  return files
    .filter((f) => !OWNERS.some((o) => o.test(f)))
    .flatMap((f) => {
      const text = read(f);
      return [...text.matchAll(STATEMENT)].map((m) => `${f}:${text.slice(0, m.index).split('\n').length}: ${m[0]}`);
    });
}

describe('every statement on queue.db is written in main/queue', () => {
  it('finds none in main/ or scripts/ outside main/queue, main/testing and the office store', () => {
    const files = [...sources('main'), ...sources('scripts')];
    expect(files.length).toBeGreaterThan(100);
    expect(statementsOutsideOwners(files, (f) => readFileSync(join(ROOT, f), 'utf8'))).toEqual([]);
  });

  it('finds a statement where one is written, also over several lines, and not a method that shares the name', () => {
    const code: Record<string, string> = {
      'main/engine/x.ts': "const n = this.db.prepare(\n  `UPDATE files SET state = 'x'`,\n).run();\n",
      'main/settings/y.ts': 'const { next } = repo.prepare(input);\nconst m = /a/.exec(s);\n',
      'main/queue/z.ts': "db.prepare('SELECT 1');\n",
      'scripts/w.ts': 'queue.db.transaction(() => 1)();\n',
    };
    expect(statementsOutsideOwners(Object.keys(code), (f) => code[f]!)).toEqual([
      'main/engine/x.ts:1: .prepare(\n  `',
      'scripts/w.ts:1: db.transaction(',
    ]);
  });
});
