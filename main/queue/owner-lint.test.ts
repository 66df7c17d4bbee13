import { ESLint } from 'eslint';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// The lint rule that keeps queue.db's one owner (docs/decisions/0016-queue-db-owner.md): eslint.config.js
// lets only main/queue/, main/office/records-store.ts and the tests' back doors (main/testing/) import
// better-sqlite3. Each case lints one import at a path, as `npm run lint` would lint a file there.

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const IMPORT = "import Database from 'better-sqlite3';\nexport const open = (file: string) => new Database(file);\n";
const TYPE_IMPORT = "import type Database from 'better-sqlite3';\nexport type Db = Database.Database;\n";

// Only the import rule runs, without the type-aware rules: no TypeScript program is built, so a
// path that does not exist can be linted.
const eslint = new ESLint({
  cwd: ROOT,
  ruleFilter: ({ ruleId }) => ruleId === 'no-restricted-imports',
  overrideConfig: { languageOptions: { parserOptions: { projectService: false } } },
});

/** The messages of no-restricted-imports for `code` linted as the file at `path` (relative to the repository). */
async function refusals(path: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: `${ROOT}${path}` });
  return result!.messages.filter((m) => m.ruleId === 'no-restricted-imports' || m.fatal).map((m) => m.message);
}

describe("better-sqlite3 is imported only by queue.db's owner", () => {
  it.each([
    'main/engine/clock-probe.ts',
    'main/settings/settings-change.ts',
    'main/offload/record.ts',
    'main/cli/local-faults.ts',
    'main/office/day-captures.ts',
    'main/service/live-queue.ts',
    'main/electron/probe.ts',
    'main/offload/record.test.ts',
    'main/electron/probe.test.ts',
    'scripts/bench/probe.ts',
    'e2e/app/probe.e2e.ts',
  ])('refused in %s, also as a type', async (path) => {
    for (const code of [IMPORT, TYPE_IMPORT]) {
      const messages = await refusals(path, code);
      expect(messages).toHaveLength(1);
      expect(messages[0]).toMatch(
        /^'better-sqlite3' import is restricted from being used\. Only main\/queue\/ \(and main\/office\/records-store\.ts for records\.db\) may import better-sqlite3/,
      );
    }
  });

  it.each([
    'main/queue/reader.ts',
    'main/queue/migrations/probe.ts',
    'main/queue/queue.test.ts',
    'main/office/records-store.ts',
    'main/testing/queue-backdoors.ts',
    'e2e/service/gateway/state.ts',
  ])('allowed in %s', async (path) => {
    expect(await refusals(path, IMPORT)).toEqual([]);
  });

  it('keeps the layer rules where it allows SQLite: main/queue/ still may not import electron', async () => {
    expect(await refusals('main/queue/reader.ts', "import { app } from 'electron';\nexport const a = app;\n")).toEqual([
      expect.stringMatching(/^'electron' import is restricted from being used\. This layer may not import it/),
    ]);
  });
});
