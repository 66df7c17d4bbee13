import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeFakeCard } from '../main/card/fake-card.js';
import type { TestService } from './service/testing.js';
import { startTestService, uploaderEnv } from './service/testing.js';

// Issue 19 from the command line: `add` takes a card at any level (deliver 1).
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const CLI = join(ROOT, 'main/cli/index.ts');

let svc: TestService;
let work: string;
beforeAll(async () => {
  svc = await startTestService();
  work = mkdtempSync(join(tmpdir(), 'card-cli-'));
});
afterAll(async () => {
  await svc.stop();
  rmSync(work, { recursive: true, force: true });
});

/** Runs the CLI to its end; resolves with its exit code and what it printed. */
function cli(dataDir: string, args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', CLI, ...args], { cwd: ROOT, env: { ...process.env, ...uploaderEnv(svc.info, dataDir), NODE_NO_WARNINGS: '1' } });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  return new Promise((resolve) => child.on('exit', (code) => resolve({ code, stdout, stderr })));
}

describe('add', () => {
  it("queues every recording of a card given by its root, and names the folder that holds none", async () => {
    const dataDir = mkdtempSync(join(work, 'q-'));
    const card = writeFakeCard(join(work, 'card'), { recordings: 3 });
    const empty = join(work, 'empty-card');
    mkdirSync(join(empty, 'DCIM'), { recursive: true });
    const res = await cli(dataDir, ['add', '--structure', svc.info.structures[0]!, '--type', 'interior', card.root, empty]);
    expect(res.code, res.stderr).toBe(0);
    expect(res.stdout.match(/^queued capture \d+ /gm)).toHaveLength(3);
    for (const p of card.recordings) expect(res.stdout).toContain(`    ${p.split('/').pop()}\n`);
    expect(res.stdout).toContain(`not queued: ${empty}: No recordings found in ${empty} (looked for .insv, .mp4, .csv)`);
  });
});
