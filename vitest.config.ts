import { defineConfig } from 'vitest/config';

// Three projects: unit tests beside the code, contract tests of the local service (which start it
// in-process on loopback), and end-to-end tests in e2e/ (real Chromium, real engine).
export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'unit',
          include: ['*.test.ts', 'main/**/*.test.ts', 'shared/**/*.test.ts', 'renderer/**/*.test.{ts,tsx}', 'preload/**/*.test.ts'],
          environment: 'node',
        },
      },
      {
        test: {
          name: 'contract',
          include: ['e2e/service/**/*.test.ts'],
          environment: 'node',
          testTimeout: 60_000,
          hookTimeout: 60_000,
        },
      },
      {
        test: {
          name: 'e2e-node',
          include: ['e2e/*.test.ts'],
          environment: 'node',
          testTimeout: 180_000,
          hookTimeout: 60_000,
        },
      },
    ],
  },
});
