import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

// React's JSX is compiled by Vite's own esbuild step (automatic runtime), so no plugin is needed.
export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: './',
  esbuild: { jsx: 'automatic' },
  build: {
    outDir: fileURLToPath(new URL('../dist/renderer', import.meta.url)),
    emptyOutDir: true,
    target: 'chrome130',
  },
});
