import { extractFile, listPackage, statFile } from '@electron/asar';
import { execFile, execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, posix, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { load, dump } from 'js-yaml';
import { afterAll, describe, expect, it, onTestFinished } from 'vitest';
import { initRepository } from '../scripts/release-sign/repository.js';

// electron-builder cannot fetch the Electron binary here, so it packages a stand-in Electron
// folder (`electronDist`); what is checked is what electron-builder makes of the app itself.
// npmRebuild is off for the same reason (rebuilding for Electron needs its headers); `npm run
// dist` on a developer machine rebuilds better-sqlite3 for Electron's ABI.
// It must work offline: every HTTP(S) request of the packaging goes to a proxy of the test's own,
// which refuses it and counts it (app-builder, which fetches Electron and its tools, honours the
// proxy variables), so a download electron-builder would need fails the test and says so.
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const work = mkdtempSync(join(tmpdir(), 'packaging-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/**
 * The modules the bundle `code` imports: relative paths (its chunks) and bare package names
 * (the bundles leave every package external, package.json build:main), from static imports,
 * re-exports and dynamic `import("…")`.
 */
function importsOf(code: string): { relative: string[]; packages: string[] } {
  const specs = [
    ...code.matchAll(
      /^\s*(?:import|export)\b[^'"]*?\bfrom\s*["']([^"']+)["']|^\s*import\s*["']([^"']+)["']|\bimport\s*\(\s*["']([^"']+)["']\s*\)/gm,
    ),
  ].map((m) => (m[1] ?? m[2] ?? m[3])!);
  const builtins = new Set(builtinModules);
  return {
    relative: specs.filter((s) => s.startsWith('.')),
    packages: [
      ...new Set(
        specs
          .filter((s) => !s.startsWith('.') && !s.startsWith('node:') && !builtins.has(s.split('/')[0]!))
          .map((s) => (s.startsWith('@') ? s.split('/').slice(0, 2) : s.split('/').slice(0, 1)).join('/')),
      ),
    ],
  };
}

describe('electron-builder --dir', () => {
  it('packs the main (with its service worker and part MD5 worker), preload and renderer bundles, the updater and the update root in app.asar with the update feed in app-update.yml, better-sqlite3 outside it and none of the local service, offline', async () => {
    // The app's own bundles only: e2e/demo.test.ts rebuilds the CLI at the same time, and a file
    // being rewritten must not be read half-written by the other test.
    for (const script of ['build:renderer', 'build:main'])
      execFileSync('npm', ['run', script, '--silent'], { cwd: ROOT, stdio: 'pipe' });
    const electronDist = join(work, 'electron');
    mkdirSync(electronDist);
    writeFileSync(join(electronDist, 'electron'), '#!/bin/sh\necho stand-in\n');
    chmodSync(join(electronDist, 'electron'), 0o755);
    writeFileSync(join(electronDist, 'version'), 'v39.5.0');
    const out = join(work, 'out');
    // A publisher's root, as `release:sign init` writes it to assets/update-root.json: given to this
    // build from a folder of the test's own (the checkout commits none; electron-builder takes
    // files from inside the project only, so it is in the ignored .vitest-tmp/), through the real
    // configuration and one more files entry.
    const made = initRepository({
      repo: join(work, 'repo'),
      keys: { dir: join(work, 'keys') },
      keysDir: join(work, 'keys'),
    });
    const rootDir = join(ROOT, '.vitest-tmp', `packaging-root-${process.pid}`);
    mkdirSync(rootDir, { recursive: true });
    onTestFinished(() => rmSync(rootDir, { recursive: true, force: true }));
    writeFileSync(join(rootDir, 'update-root.json'), readFileSync(made.root));
    const config = load(readFileSync(join(ROOT, 'electron-builder.yml'), 'utf8')) as { files: unknown[] };
    config.files.push({ from: relative(ROOT, rootDir), to: 'assets', filter: ['update-root.json'] });
    writeFileSync(join(work, 'electron-builder.yml'), dump(config));
    const requests: string[] = [];
    const proxy = createServer((socket) => {
      socket.once('data', (d) => requests.push(d.toString('latin1').split('\r\n')[0]!));
      socket.end('HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\n\r\n');
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    const proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
    try {
      await promisify(execFile)(
        'npx',
        [
          'electron-builder',
          '--dir',
          '--linux',
          '--config',
          join(work, 'electron-builder.yml'),
          `-c.electronDist=${electronDist}`,
          '-c.npmRebuild=false',
          `-c.directories.output=${out}`,
        ],
        {
          cwd: ROOT,
          env: {
            ...process.env,
            CI: 'true',
            HTTPS_PROXY: proxyUrl,
            HTTP_PROXY: proxyUrl,
            https_proxy: proxyUrl,
            http_proxy: proxyUrl,
            NO_PROXY: '',
            no_proxy: '',
          },
          maxBuffer: 64 * 1024 * 1024,
        },
      );
    } catch (err) {
      // Said with what it asked the network for: a download it needs is the usual cause here.
      const { stdout = '', stderr = '' } = err as { stdout?: string; stderr?: string };
      throw new Error(
        `electron-builder failed; requests through the proxy: ${JSON.stringify(requests)}\n${`${stdout}\n${stderr}`.slice(-3000)}`,
      );
    } finally {
      proxy.close();
    }
    expect(requests).toEqual([]);
    const app = join(out, 'linux-unpacked');
    expect(existsSync(join(app, 'capture-uploader'))).toBe(true);
    const asar = join(app, 'resources', 'app.asar');
    const files = new Set(listPackage(asar, { isPack: false }).map((p) => p.replaceAll('\\', '/')));
    for (const f of [
      '/dist/main/electron/main.js',
      '/dist/main/electron/service-worker.js',
      '/dist/main/electron/report-queue-worker.js',
      '/dist/preload/index.cjs',
      '/dist/renderer/index.html',
      '/assets/icon.png',
      '/assets/update-root.json',
      '/package.json',
    ]) {
      expect(files.has(f), f).toBe(true);
    }
    expect([...files].some((f) => /^\/dist\/renderer\/assets\/index-.*\.js$/.test(f))).toBe(true);
    // The local test service (a workspace package of the repository) and the libraries only it
    // uses never ship: the packaged app does not offer it.
    const shipped = [...files].filter((f) =>
      /^\/(e2e|scripts)\/|\/node_modules\/(@capture-uploader|@aws-sdk|@aws-crypto|@smithy|fast-xml-parser)(\/|$)/.test(
        f,
      ),
    );
    expect(shipped).toEqual([]);
    expect(existsSync(join(app, 'resources', 'app.asar.unpacked', 'node_modules', '@capture-uploader'))).toBe(false);
    // The updater ships, and the build says where its generic feed is published (electron-updater's app-update.yml).
    expect(files.has('/node_modules/electron-updater/out/main.js')).toBe(true);
    expect(readFileSync(join(app, 'resources', 'app-update.yml'), 'utf8')).toMatch(
      /^provider: generic\nurl: https:\/\/updates\.captureuploader\.example\/capture-uploader\n/m,
    );
    // The root the app pins, read-only in the asar, byte for byte what the publisher made.
    expect(extractFile(asar, 'assets/update-root.json').equals(readFileSync(made.root))).toBe(true);
    const native = 'node_modules/better-sqlite3/build/Release/better_sqlite3.node';
    expect((statFile(asar, native) as { unpacked?: boolean }).unpacked).toBe(true);
    expect(existsSync(join(app, 'resources', 'app.asar.unpacked', native))).toBe(true);

    // What the main bundles import is in the package: their chunks, and every package they leave
    // external (a dependency, not a development one), but Electron's own module and the local
    // test service, which the packaged app does not offer.
    const bundles = [...files].filter((f) => f.startsWith('/dist/main/electron/') && f.endsWith('.js'));
    expect(bundles.some((f) => f.startsWith('/dist/main/electron/chunks/'))).toBe(true);
    const missing: string[] = [];
    const packages = new Set<string>();
    for (const bundle of bundles) {
      const imports = importsOf(extractFile(asar, bundle.slice(1)).toString('utf8'));
      for (const rel of imports.relative) {
        const target = posix.join(posix.dirname(bundle), rel);
        if (!files.has(target)) missing.push(`${bundle} → ${rel}`);
      }
      for (const p of imports.packages) packages.add(p);
    }
    for (const p of [...packages].filter((p) => p !== 'electron' && p !== '@capture-uploader/local-service')) {
      if (!files.has(`/node_modules/${p}/package.json`)) missing.push(`package ${p}`);
    }
    expect(missing).toEqual([]);
    expect([...packages]).toEqual(expect.arrayContaining(['better-sqlite3', 'electron-store', 'got', 'zod', 'tuf-js']));
    // The publisher's tool and its YAML reader are not the app's.
    expect([...packages]).not.toContain('js-yaml');
  }, 120_000);
});
