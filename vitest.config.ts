import { defineConfig } from 'vitest/config';

// The pinned AWS SDK's notice about future Node versions is noise in test output.
const env = { AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' };
// The local service package (e2e/service) exports its TypeScript under the "source" condition:
// tests load it from source, while the CLI and the app load its build (npm run build:service).
const ssr = { resolve: { conditions: ['source', 'node', 'import', 'default'] } };

// Three projects: unit tests beside the code, contract tests of the local service (which start it
// in-process on loopback), and Node end-to-end tests in e2e/ (kill-and-resume, packaging). The
// browser end-to-end tests run under Playwright (e2e/playwright.config.ts).
export default defineConfig({
  test: {
    projects: [
      {
        ssr,
        test: {
          name: 'unit',
          include: [
            '*.test.ts',
            'main/**/*.test.ts',
            'shared/**/*.test.ts',
            'renderer/**/*.test.{ts,tsx}',
            'preload/**/*.test.ts',
            'scripts/**/*.test.ts',
          ],
          environment: 'node',
          env,
          testTimeout: 30_000,
          // Hooks here start and stop the local service and service processes; under a loaded
          // machine closing one took over vitest's default 10 s (host.test.ts's afterEach).
          hookTimeout: 30_000,
        },
      },
      {
        ssr,
        test: {
          name: 'contract',
          include: ['e2e/service/**/*.test.ts'],
          environment: 'node',
          env,
          testTimeout: 60_000,
          hookTimeout: 60_000,
        },
      },
      {
        ssr,
        test: {
          name: 'e2e-node',
          include: ['e2e/*.test.ts'],
          environment: 'node',
          env,
          testTimeout: 180_000,
          hookTimeout: 60_000,
        },
      },
    ],
  },
});
