import { execFileSync, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Database } from '../main/testing/queue-backdoors.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeFakeCard } from '../main/card/fake-card.js';
import type { TestService } from './service/testing.js';
import { startTestService, uploaderEnv } from './service/testing.js';

// In the built CLI: `import` with placement copies, verifies and queues, computing no part MD5
// (the upload does, as it reads each part: docs/decisions/wholecard-part-md5-at-upload.md).
// Built into a folder of its own with the very command of `npm run build:cli`, so this runs beside
// tests that rebuild dist/cli (e2e/demo.test.ts) without racing them.
const ROOT = fileURLToPath(new URL('..', import.meta.url));

let svc: TestService;
let work: string;
let out: string;
beforeAll(async () => {
  svc = await startTestService();
  work = mkdtempSync(join(tmpdir(), 'offload-md5-built-'));
  // Inside the checkout, so the bundle's bare imports (better-sqlite3, left external) find node_modules;
  // a fresh clone has no dist/ yet (the fresh-clone CI run failed here).
  mkdirSync(join(ROOT, 'dist'), { recursive: true });
  out = mkdtempSync(join(ROOT, 'dist', '.cli-md5-'));
  const build = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> })
    .scripts['build:cli']!;
  expect(build).toMatch(/^esbuild .* --outdir=dist\/cli /);
  // Through a shell, as npm runs it: the command quotes its banner.
  execFileSync('/bin/sh', ['-c', build.replace('--outdir=dist/cli ', `--outdir=${out} `)], {
    cwd: ROOT,
    stdio: 'pipe',
    env: { ...process.env, PATH: `${join(ROOT, 'node_modules', '.bin')}:${process.env.PATH}` },
  });
}, 120_000);
afterAll(async () => {
  await svc.stop();
  rmSync(work, { recursive: true, force: true });
  if (out) rmSync(out, { recursive: true, force: true });
});

describe('import in the built CLI', () => {
  it('queues the verified copies with no part MD5s from the copy (the upload computes them), and exits by itself', async () => {
    const dataDir = mkdtempSync(join(work, 'q-'));
    const card = writeFakeCard(join(work, 'X4_SD'), { recordings: 1 });
    // 12 MiB + 5 and 10 MiB: three parts and two of the service's 5 MiB.
    writeFileSync(card.recordings[0]!, Buffer.alloc(12 * 1024 * 1024 + 5, 7));
    writeFileSync(card.recordings[1]!, Buffer.alloc(10 * 1024 * 1024, 9));
    const child = spawn(
      process.execPath,
      [
        join(out, 'capture-uploader.js'),
        'import',
        card.root,
        '--library',
        join(work, 'library'),
        '--structure',
        svc.info.structures[0]!,
        '--type',
        'interior',
      ],
      {
        cwd: ROOT,
        env: { ...process.env, ...uploaderEnv(svc.info, dataDir), NODE_NO_WARNINGS: '1' },
      },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    expect(code, stderr + stdout).toBe(0);
    expect(stdout).toMatch(/Card safe to remove: 2 files of 1 recording/);

    // The copy keeps no part MD5s: the upload computes each part's as it reads it for sending.
    const db = new Database(join(dataDir, 'queue.db'), { readonly: true });
    expect(db.prepare('SELECT COUNT(*) AS n FROM part_md5s').get()).toEqual({ n: 0 });
    const queued = db.prepare('SELECT path, size FROM files ORDER BY path').all() as { path: string; size: number }[];
    db.close();
    expect(queued.map((r) => r.size).sort((a, b) => a - b)).toEqual([10 * 1024 * 1024, 12 * 1024 * 1024 + 5]);
    for (const r of queued)
      expect(createHash('sha256').update(readFileSync(r.path)).digest('hex')).toBe(
        createHash('sha256')
          .update(readFileSync(join(card.root, 'DCIM', 'Camera01', r.path.split('/').pop()!)))
          .digest('hex'),
      );
  });
});
