import { spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { GetObjectCommand } from '@aws-sdk/client-s3';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Database } from '../main/testing/queue-backdoors.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeFakeCard } from '../main/card/fake-card.js';
import { buildCli } from '../main/testing/built-cli.js';
import type { TestService } from './service/testing.js';
import { startTestService, uploaderEnv } from './service/testing.js';

// In the built CLI: `import` with placement copies, verifies and queues, computing no part MD5
// (the upload does, as it reads each part: docs/decisions/0030-part-md5-at-upload.md).
// Built into a folder of its own with the very command of `npm run build:cli`, so this runs beside
// tests that rebuild dist/cli (e2e/demo.test.ts) without racing them.
const ROOT = fileURLToPath(new URL('..', import.meta.url));

let svc: TestService;
let work: string;
let out: string;
let built: ReturnType<typeof buildCli> | undefined;
beforeAll(async () => {
  svc = await startTestService();
  work = mkdtempSync(join(tmpdir(), 'cli-built-'));
  built = buildCli('cli-built');
  out = dirname(built.entry);
}, 120_000);
afterAll(async () => {
  await svc.stop();
  rmSync(work, { recursive: true, force: true });
  built?.remove();
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

describe('the built CLI under a limit on its address space', () => {
  it('uploads with node:crypto when the MD5 kernel cannot have its memory (ulimit -v 1.5 GiB): every file completed, byte-identical, said once', async () => {
    const dataDir = mkdtempSync(join(work, 'vm-'));
    // Two parts of the service's 5 MiB and one more, of random bytes.
    const file = join(work, 'limited.mp4');
    const bytes = randomBytes(10 * 1024 * 1024 + 99);
    writeFileSync(file, bytes);
    const args = ['run', '--structure', svc.info.structures[0]!, '--type', 'interior', file];
    // WebAssembly memories reserve gigabytes of address space: under this limit none can be had.
    const child = spawn(
      '/bin/sh',
      ['-c', 'ulimit -v 1572864 && exec "$0" "$@"', process.execPath, join(out, 'capture-uploader.js'), ...args],
      {
        cwd: ROOT,
        env: { ...process.env, ...uploaderEnv(svc.info, dataDir), NODE_NO_WARNINGS: '1' },
      },
    );
    let all = '';
    child.stdout.on('data', (d: Buffer) => (all += d.toString()));
    child.stderr.on('data', (d: Buffer) => (all += d.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    expect(code, all).toBe(0);
    expect(all).toContain('1 file(s) completed, 0 failed');
    expect(
      all.match(
        /Part MD5s are computed with node:crypto: the four-lane MD5 kernel's memory could not be had \(WebAssembly/g,
      ),
    ).toHaveLength(1);
    const upload = Object.values(svc.store.state.uploads).find((u) => u.size === bytes.length)!;
    const stored = await svc.s3().send(new GetObjectCommand({ Bucket: svc.info.s3.bucket, Key: upload.key }));
    const sha = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');
    expect(sha(await stored.Body!.transformToByteArray())).toBe(sha(bytes));
  });
});
