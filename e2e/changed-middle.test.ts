import { GetObjectCommand } from '@aws-sdk/client-s3';
import { spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import {
  chmodSync,
  closeSync,
  linkSync,
  mkdtempSync,
  openSync,
  readFileSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { TestService } from './service/testing.js';
import { startTestService, uploaderEnv } from './service/testing.js';

// A file changed in its middle while it uploads, its modification time put back: storage must
// never put together a mix of old and new bytes, and `drain` must say so by its exit code and
// message. A chmod and back or a hard link change no byte and must not stop the upload
// (main/engine/stored-bytes.ts). The CLI runs as a child against the local service, storage
// capped at 2 MiB/s so the change lands mid-upload. Only files this test made are modified.
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const CLI = join(ROOT, 'main/cli/index.ts');
const MiB = 1024 * 1024;
const sha256 = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');

let svc: TestService;
let work: string;
beforeAll(async () => {
  svc = await startTestService();
  work = mkdtempSync(join(tmpdir(), 'changed-middle-'));
});
afterEach(async () => {
  await svc.admin('PUT', '/settings', { bandwidthBytesPerSecond: null });
});
afterAll(async () => {
  await svc.stop();
  rmSync(work, { recursive: true, force: true });
});

interface Result {
  code: number | null;
  stdout: string;
  stderr: string;
}

function cli(dataDir: string, args: string[]): Promise<Result> {
  const child = spawn(process.execPath, ['--import', 'tsx', CLI, ...args], {
    cwd: ROOT,
    env: { ...process.env, ...uploaderEnv(svc.info, dataDir), NODE_NO_WARNINGS: '1' },
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  return new Promise((resolve) => child.on('exit', (code) => resolve({ code, stdout, stderr })));
}

/** A 40 MiB recording in its own data folder, queued by the CLI; resolves with its path and data folder. */
async function queued(name: string): Promise<{ path: string; dataDir: string }> {
  const dataDir = join(work, `${name}-data`);
  const path = join(work, `${name}.mp4`);
  writeFileSync(path, randomBytes(40 * MiB));
  const added = await cli(dataDir, ['add', '--structure', svc.info.structures[0]!, '--type', 'interior', path]);
  expect(added.code, added.stderr).toBe(0);
  return { path, dataDir };
}

const objectsOf = () => Object.values(svc.store.state.uploads);

describe('drain, a 40 MiB file at 2 MiB/s', () => {
  it('MiB 1 and MiB 33 overwritten after 6 s, the modification time put back: no object is made, drain exits 1 naming the change', async () => {
    const { path, dataDir } = await queued('overwritten');
    const before = statSync(path);
    await svc.admin('PUT', '/settings', { bandwidthBytesPerSecond: 2 * MiB });
    const draining = cli(dataDir, ['drain']);
    await new Promise((r) => setTimeout(r, 6000));
    // dd … conv=notrunc on this test's own file, then the times set back as `touch -r` would.
    const fd = openSync(path, 'r+');
    writeSync(fd, randomBytes(MiB), 0, MiB, 1 * MiB);
    writeSync(fd, randomBytes(MiB), 0, MiB, 33 * MiB);
    closeSync(fd);
    // In seconds as a number: a Date would round to the ms. The queue keeps whole ms.
    utimesSync(path, before.atimeMs / 1000, before.mtimeMs / 1000);
    expect(Math.trunc(statSync(path).mtimeMs)).toBe(Math.trunc(before.mtimeMs));
    expect(statSync(path).size).toBe(before.size);
    const drained = await draining;

    expect(drained.code, drained.stdout + drained.stderr).toBe(1);
    expect(drained.stdout + drained.stderr).toMatch(
      /overwritten\.mp4 changed while uploading \(part \d+, bytes \d+–\d+, differs from the bytes storage holds, though its size and modification time were kept\)/,
    );
    // Storage never put the object together: the multipart upload was not completed.
    const uploads = objectsOf().filter((u) => u.key.includes('overwritten'));
    expect(uploads).toHaveLength(1);
    expect(uploads[0]!.completedAt).toBeUndefined();
  }, 120_000);

  it('a chmod and back and a hard link made after 6 s: it completes, the stored object byte-identical to the file', async () => {
    const { path, dataDir } = await queued('relinked');
    await svc.admin('PUT', '/settings', { bandwidthBytesPerSecond: 2 * MiB });
    const draining = cli(dataDir, ['drain']);
    await new Promise((r) => setTimeout(r, 6000));
    const ctimeBefore = statSync(path, { bigint: true }).ctimeNs;
    chmodSync(path, 0o600);
    chmodSync(path, 0o644);
    linkSync(path, join(work, 'relinked-link.mp4'));
    expect(statSync(path, { bigint: true }).ctimeNs).not.toBe(ctimeBefore);
    const drained = await draining;

    expect(drained.code, drained.stdout + drained.stderr).toBe(0);
    const uploads = objectsOf().filter((u) => u.key.includes('relinked'));
    expect(uploads).toHaveLength(1);
    expect(uploads[0]!.completedAt).toBeDefined();
    const res = await svc.s3().send(new GetObjectCommand({ Bucket: svc.info.s3.bucket, Key: uploads[0]!.key }));
    expect(sha256(await res.Body!.transformToByteArray())).toBe(sha256(readFileSync(path)));
  }, 120_000);
});
