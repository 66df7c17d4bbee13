import { listPackage, statFile } from '@electron/asar';
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

// electron-builder cannot fetch the Electron binary here, so it packages a stand-in Electron
// folder (`electronDist`); what is checked is what electron-builder makes of the app itself.
// npmRebuild is off for the same reason (rebuilding for Electron needs its headers); `npm run
// dist` on a developer machine rebuilds better-sqlite3 for Electron's ABI.
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const work = mkdtempSync(join(tmpdir(), 'packaging-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('electron-builder --dir', () => {
  it('packs the main (with its service worker and part MD5 worker), preload and renderer bundles and the updater in app.asar with the update feed in app-update.yml, better-sqlite3 outside it and none of the local service', () => {
    // The app's own bundles only: e2e/demo.test.ts rebuilds the CLI at the same time, and a file
    // being rewritten must not be read half-written by the other test.
    for (const script of ['build:renderer', 'build:main']) execFileSync('npm', ['run', script, '--silent'], { cwd: ROOT, stdio: 'pipe' });
    const electronDist = join(work, 'electron');
    mkdirSync(electronDist);
    writeFileSync(join(electronDist, 'electron'), '#!/bin/sh\necho stand-in\n');
    chmodSync(join(electronDist, 'electron'), 0o755);
    writeFileSync(join(electronDist, 'version'), 'v39.5.0');
    const out = join(work, 'out');
    execFileSync(
      'npx',
      ['electron-builder', '--dir', '--linux', '--config', 'electron-builder.yml', `-c.electronDist=${electronDist}`, '-c.npmRebuild=false', `-c.directories.output=${out}`],
      { cwd: ROOT, stdio: 'pipe', env: { ...process.env, CI: 'true' } },
    );
    const app = join(out, 'linux-unpacked');
    expect(existsSync(join(app, 'capture-uploader'))).toBe(true);
    const asar = join(app, 'resources', 'app.asar');
    const files = new Set(listPackage(asar, { isPack: false }).map((p) => p.replaceAll('\\', '/')));
    for (const f of ['/dist/main/electron/main.js', '/dist/main/electron/service-worker.js', '/dist/main/electron/offload-md5-worker.js', '/dist/preload/index.cjs', '/dist/renderer/index.html', '/assets/icon.png', '/package.json']) {
      expect(files.has(f), f).toBe(true);
    }
    expect([...files].some((f) => /^\/dist\/renderer\/assets\/index-.*\.js$/.test(f))).toBe(true);
    // The local test service (a workspace package of the repository) and the libraries only it
    // uses never ship: the packaged app does not offer it.
    const shipped = [...files].filter((f) => /^\/(e2e|scripts)\/|\/node_modules\/(@capture-uploader|@aws-sdk|@aws-crypto|@smithy|fast-xml-parser)(\/|$)/.test(f));
    expect(shipped).toEqual([]);
    expect(existsSync(join(app, 'resources', 'app.asar.unpacked', 'node_modules', '@capture-uploader'))).toBe(false);
    // The updater ships, and the build says where its generic feed is published (electron-updater's app-update.yml).
    expect(files.has('/node_modules/electron-updater/out/main.js')).toBe(true);
    expect(readFileSync(join(app, 'resources', 'app-update.yml'), 'utf8')).toMatch(/^provider: generic\nurl: https:\/\/updates\.captureuploader\.example\/capture-uploader\n/m);
    const native = 'node_modules/better-sqlite3/build/Release/better_sqlite3.node';
    expect((statFile(asar, native) as { unpacked?: boolean }).unpacked).toBe(true);
    expect(existsSync(join(app, 'resources', 'app.asar.unpacked', native))).toBe(true);
  });
});
