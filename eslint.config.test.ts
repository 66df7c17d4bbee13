import { ESLint } from 'eslint';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

// The layering rule is only worth something if it fires: lint small sources as if they stood in
// each layer and check which imports are refused.
// The import rules need no types; linting these sources as text (they are no files of the
// project) works only with the typed rules off.
const eslint = new ESLint({
  cwd: process.cwd(),
  overrideConfig: {
    languageOptions: { parserOptions: { projectService: false } },
    rules: { '@typescript-eslint/no-floating-promises': 'off', '@typescript-eslint/no-misused-promises': 'off' },
  },
});
async function refused(filePath: string, source: string): Promise<boolean> {
  const [result] = await eslint.lintText(source, { filePath });
  return result!.messages.some((m) => m.ruleId === 'no-restricted-imports' || m.ruleId === 'no-restricted-globals');
}

describe('process-boundary lint rule (CONVENTIONS.md, "Where code lives")', () => {
  it.each([
    ['renderer/src/x.tsx', "import { readFile } from 'node:fs';\nexport const r = readFile;\n"],
    ['renderer/src/x.tsx', "import { ipcRenderer } from 'electron';\nexport const r = ipcRenderer;\n"],
    ['renderer/src/x.tsx', "import { e } from '../../main/engine.js';\nexport const r = e;\n"],
    ['shared/x.ts', "import path from 'path';\nexport const r = path;\n"],
    ['shared/x.ts', 'export const r = window.location;\n'],
    ['shared/x.ts', "import { q } from '../main/queue.js';\nexport const r = q;\n"],
    ['main/engine.ts', "import { app } from 'electron';\nexport const r = app;\n"],
    ['preload/index.ts', "import { App } from '../renderer/src/App.js';\nexport const r = App;\n"],
    ['e2e/service/x.ts', "import { q } from '../../main/queue.js';\nexport const r = q;\n"],
    [
      'main/engine/x.ts',
      "import { S3Error } from '../../e2e/service/storage/s3-error-response.js';\nexport const r = S3Error;\n",
    ],
    [
      'main/cli/x.ts',
      "import { startLocalService } from '../../e2e/service/index.js';\nexport const r = startLocalService;\n",
    ],
    [
      'main/cli/x.ts',
      "import { startLocalService } from '@capture-uploader/local-service';\nexport const r = startLocalService;\n",
    ],
    [
      'main/electron/x.ts',
      "import { startLocalService } from '@capture-uploader/local-service';\nexport const r = startLocalService;\n",
    ],
    [
      'main/engine/x.test.ts',
      "import { StateStore } from '../../e2e/service/gateway/state.js';\nexport const r = StateStore;\n",
    ],
    [
      'renderer/src/x.tsx',
      "import { startLocalService } from '@capture-uploader/local-service';\nexport const r = startLocalService;\n",
    ],
    ['main/updates/x.ts', "import { app } from 'electron';\nexport const r = app;\n"],
    ['main/updates/x.ts', "import { q } from '../queue/queue.js';\nexport const r = q;\n"],
    [
      'main/updates/x.ts',
      "import { addRelease } from '../../scripts/release-sign/repository.js';\nexport const r = addRelease;\n",
    ],
  ])('refuses in %s: %s', async (file, source) => {
    expect(await refused(file, source)).toBe(true);
  });

  it.each([
    ['main/electron/main.ts', "import { app } from 'electron';\nexport const r = app;\n"],
    ['main/engine.ts', "import { readFile } from 'node:fs';\nexport const r = readFile;\n"],
    ['preload/index.ts', "import { contextBridge } from 'electron';\nexport const r = contextBridge;\n"],
    ['renderer/src/x.tsx', "import { APP_NAME } from '../../shared/app-info.js';\nexport const r = APP_NAME;\n"],
    ['main/service/local-service.ts', "export const load = () => import('@capture-uploader/local-service');\n"],
    [
      'main/engine/x.test.ts',
      "import { startTestService } from '../../e2e/service/testing.js';\nexport const r = startTestService;\n",
    ],
    ['main/updates/x.ts', "import { whenAt } from '../../shared/when.js';\nexport const r = whenAt;\n"],
    ['main/electron/x.ts', "import { Updates } from '../updates/updates.js';\nexport const r = Updates;\n"],
  ])('allows in %s: %s', async (file, source) => {
    expect(await refused(file, source)).toBe(false);
  });
});

// A promise left floating loses its rejection; the typed rules must fire in every
// layer. They read the tsconfig's program, so the probes are real files for the length of the test.
describe('promises are awaited or marked (no-floating-promises, no-misused-promises)', () => {
  const typed = new ESLint({ cwd: process.cwd() });
  const written: string[] = [];
  afterAll(() => {
    for (const f of written) rmSync(f, { force: true });
  });
  const rulesFired = async (dir: string, ext: string, source: string) => {
    const file = `${dir}/lint-probe-${process.pid}-${written.length}.${ext}`;
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, source);
    written.push(file);
    const [result] = await typed.lintFiles([file]);
    return result!.messages.map((m) => m.ruleId);
  };
  it.each([
    ['main/engine', 'ts'],
    ['main/electron', 'ts'],
    ['renderer/src', 'tsx'],
  ])('refuses a floating promise in %s', async (dir, ext) => {
    const source = 'async function f(): Promise<void> {}\nexport function g(): void {\n  f();\n}\n';
    expect(await rulesFired(dir, ext, source)).toContain('@typescript-eslint/no-floating-promises');
  });
  it('refuses an async callback where a void one is expected', async () => {
    const source =
      "import { EventEmitter } from 'node:events';\nconst e = new EventEmitter();\ne.on('x', async () => {});\nexport const r = e;\n";
    expect(await rulesFired('main/engine', 'ts', source)).toContain('@typescript-eslint/no-misused-promises');
  });
  it('allows a promise marked void or awaited', async () => {
    const source =
      'async function f(): Promise<void> {}\nexport async function g(): Promise<void> {\n  void f();\n  await f();\n}\n';
    expect(await rulesFired('main/engine', 'ts', source)).toEqual([]);
  });
});
