// Lint, including the process-boundary rule of CONVENTIONS.md ("Where code lives"): which layer
// may import what is checked here, so a renderer that reaches for node:fs fails `npm run lint`.
import js from '@eslint/js';
import { builtinModules } from 'node:module';
import tseslint from 'typescript-eslint';

const nodeBuiltins = [...builtinModules, ...builtinModules.map((m) => `node:${m}`)];
const layer = (name) => [`**/${name}/**`, `../${name}/*`, `../../${name}/*`, `../../../${name}/*`];
const LAYER_MESSAGE = 'This layer may not import from that layer (CONVENTIONS.md, "Where code lives").';
const forbid = (paths, patterns, regex) => ({
  'no-restricted-imports': [
    'error',
    {
      paths: paths.map((name) =>
        typeof name === 'string'
          ? { name, message: 'This layer may not import it (CONVENTIONS.md, "Where code lives").' }
          : name,
      ),
      patterns: [{ group: patterns, message: LAYER_MESSAGE }, ...(regex ? [{ regex, message: LAYER_MESSAGE }] : [])],
    },
  ],
});
// queue.db has one owner (docs/decisions/0016-queue-db-owner.md): only main/queue/ opens SQLite and
// writes its statements (reader.ts, writer.ts, UploadQueue), and main/office/records-store.ts keeps the
// office's own records.db. Tests reach a raw connection only through main/testing/ (the back doors).
const SQLITE = {
  name: 'better-sqlite3',
  message:
    'Only main/queue/ (and main/office/records-store.ts for records.db) may import better-sqlite3: read and write queue.db through main/queue (reader.ts, writer.ts, UploadQueue); a test takes a raw connection from main/testing/queue-backdoors.ts (docs/decisions/0016-queue-db-owner.md).',
};
const SQLITE_OWNERS = ['main/queue/**', 'main/office/records-store.ts'];
// The folders of main/ besides main/hash/ (which imports none of them).
const MAIN_FOLDERS = [
  'api',
  'card',
  'cli',
  'electron',
  'engine',
  'intake',
  'ipc',
  'media',
  'office',
  'offload',
  'queue',
  'service',
  'service-host',
  'settings',
  'status',
  'support',
  'testing',
  'updates',
];
// The local service is its own package (e2e/service): the app loads it only by a dynamic import of
// its name (main/service/local-service.ts), never statically, so that no bundle of the app contains it.
const LOCAL_SERVICE = '@capture-uploader/local-service';
// Anything under e2e/; tests beside the code may start the local service through its test helpers.
const E2E = '(^|/)e2e/';
const E2E_EXCEPT_SERVICE_TESTING = '(^|/)e2e/(?!service/testing\\.js$)';

export default tseslint.config(
  { ignores: ['node_modules/', '**/dist/', 'release/', 'test-results/', 'playwright-report/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { ecmaVersion: 2023, sourceType: 'module' },
    rules: {
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_' },
      ],
    },
  },
  // A promise nobody awaits loses its rejection (an unhandled rejection ends the service) and its
  // ordering: every promise is awaited, returned, or marked `void` with the reason its failure is
  // handled elsewhere. These rules need the types, so they read the tsconfig.
  {
    files: ['**/*.{ts,tsx}'],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
    },
  },
  // shared/: pure TypeScript, no Node, no DOM, no other layer.
  {
    files: ['shared/**/*.{ts,tsx}'],
    ignores: ['shared/**/*.test.ts'],
    rules: {
      ...forbid(
        ['electron', LOCAL_SERVICE, ...nodeBuiltins],
        [...layer('main'), ...layer('renderer'), ...layer('preload'), ...layer('e2e')],
      ),
      'no-restricted-globals': ['error', 'window', 'document', 'navigator', 'process', 'Buffer'],
    },
  },
  // renderer/: the DOM only; talks to main through window.api.
  {
    files: ['renderer/**/*.{ts,tsx}'],
    ignores: ['renderer/vite.config.ts'],
    rules: forbid(
      ['electron', LOCAL_SERVICE, ...nodeBuiltins],
      [...layer('main'), ...layer('preload'), ...layer('e2e')],
    ),
  },
  // preload/: electron's renderer-side modules and shared/ only.
  {
    files: ['preload/**/*.ts'],
    rules: forbid([LOCAL_SERVICE], [...layer('main'), ...layer('renderer'), ...layer('e2e')]),
  },
  // main/ outside the thin shell runs under plain Node: no electron, so tests and the CLI use it as is.
  // main/ starts the local service (the CLI's --demo, the app's "local test service") only through
  // main/service/local-service.ts; its tests start it through e2e/service/testing.ts, never its internals.
  {
    files: ['main/**/*.ts'],
    ignores: ['main/electron/**', 'main/**/*.test.ts', 'main/testing/**', ...SQLITE_OWNERS],
    rules: forbid(['electron', LOCAL_SERVICE, SQLITE], [...layer('renderer'), ...layer('preload')], E2E),
  },
  // main/hash/ is the one MD5 module (docs/decisions/0022-one-md5-module.md), used by the engine (parts
  // hashed as they are sent) and the offload (parts hashed as they are copied): a leaf folder that
  // imports no other folder of main/, so either may import it without a circle.
  {
    files: ['main/hash/**/*.ts'],
    ignores: ['main/hash/**/*.test.ts'],
    rules: forbid(
      ['electron', LOCAL_SERVICE, SQLITE],
      [...layer('renderer'), ...layer('preload'), ...MAIN_FOLDERS.flatMap(layer)],
      E2E,
    ),
  },
  // main/updates/ is the app's side of signed updates (docs/decisions/0036-updates-tuf.md): the TUF
  // client, its fetcher and the update status, under plain Node. A leaf folder the shell drives: it
  // imports no other folder of main/, and never the publisher's tool (scripts/release-sign/) or the
  // local service, which the app does not ship.
  {
    files: ['main/updates/**/*.ts'],
    ignores: ['main/updates/**/*.test.ts'],
    rules: forbid(
      ['electron', LOCAL_SERVICE, SQLITE],
      [...layer('renderer'), ...layer('preload'), ...MAIN_FOLDERS.filter((r) => r !== 'updates').flatMap(layer)],
      '(^|/)(e2e|scripts)/',
    ),
  },
  {
    files: SQLITE_OWNERS,
    ignores: ['main/**/*.test.ts'],
    rules: forbid(['electron', LOCAL_SERVICE], [...layer('renderer'), ...layer('preload')], E2E),
  },
  // main/testing/ is the tests' shared kit: test code, held to the tests' rule. It and the tests
  // of main/queue/ may open SQLite; every other test goes through main/testing/.
  {
    files: ['main/**/*.test.ts', 'main/testing/**/*.ts'],
    ignores: ['main/electron/**', 'main/queue/**', 'main/testing/**'],
    rules: forbid(
      ['electron', LOCAL_SERVICE, SQLITE],
      [...layer('renderer'), ...layer('preload')],
      E2E_EXCEPT_SERVICE_TESTING,
    ),
  },
  {
    files: ['main/queue/**/*.test.ts', 'main/testing/**/*.ts'],
    rules: forbid(['electron', LOCAL_SERVICE], [...layer('renderer'), ...layer('preload')], E2E_EXCEPT_SERVICE_TESTING),
  },
  {
    files: ['main/electron/**/*.ts'],
    ignores: ['main/electron/**/*.test.ts'],
    rules: forbid([LOCAL_SERVICE, SQLITE], [...layer('renderer'), ...layer('preload')], E2E),
  },
  {
    files: ['main/electron/**/*.test.ts'],
    rules: forbid([LOCAL_SERVICE, SQLITE], [...layer('renderer'), ...layer('preload')], E2E_EXCEPT_SERVICE_TESTING),
  },
  // The benches and the end-to-end tests reach queue.db as every test does: through main/testing/.
  // The local service (e2e/service) is another program with a database of its own.
  {
    files: ['scripts/**/*.ts', 'e2e/**/*.ts'],
    ignores: ['e2e/service/**'],
    rules: { 'no-restricted-imports': ['error', { paths: [SQLITE] }] },
  },
  // The local service stands in for other teams' servers: it must not borrow the client's code.
  {
    files: ['e2e/service/**/*.ts'],
    rules: forbid(['electron'], [...layer('main'), ...layer('renderer'), ...layer('preload'), ...layer('shared')]),
  },
);
