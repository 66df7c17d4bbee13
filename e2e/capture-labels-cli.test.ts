import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseShift, shiftTimes } from '../shared/time-shift.js';
import type { TestService } from './service/testing.js';
import { startTestService, uploaderEnv } from './service/testing.js';

// What the command line says of a capture whose camera clock was an hour off and was shifted:
// `status` and `log` name it by the time the platform got (shared/capture-label.ts).
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const CLI = join(ROOT, 'main/cli/index.ts');
// A zone of its own, so "local time" is one the test knows whatever the machine's.
const TZ = 'Europe/Berlin';

let svc: TestService;
let work: string;
beforeAll(async () => {
  svc = await startTestService();
  work = mkdtempSync(join(tmpdir(), 'labels-cli-'));
});
afterAll(async () => {
  await svc.stop();
  rmSync(work, { recursive: true, force: true });
});

function cli(dataDir: string, args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', CLI, ...args], {
    cwd: ROOT,
    env: { ...process.env, ...uploaderEnv(svc.info, dataDir), TZ, NODE_NO_WARNINGS: '1' },
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  return new Promise((resolve) => child.on('exit', (code) => resolve({ code, stdout, stderr })));
}

describe('a shifted capture on the command line', () => {
  it('status, status --json and log name it by the shifted time, not the camera clock in its file name', async () => {
    const dataDir = join(work, 'shifted');
    const card = join(work, 'card');
    mkdirSync(card);
    // The camera's clock says 08:00:00 (Berlin, UTC+01:00 in November); it was an hour slow.
    for (const lens of ['00', '10'])
      writeFileSync(join(card, `VID_20261123_080000_${lens}_001.insv`), randomBytes(4096));
    const [shifted] = shiftTimes(['2026-11-23T08:00:00+01:00'], parseShift('+01:00')!);
    expect(shifted).toBe('2026-11-23T09:00:00+01:00');
    const add = await cli(dataDir, [
      'add',
      '--structure',
      svc.info.structures[0]!,
      '--type',
      'interior',
      '--captured-at',
      shifted!,
      card,
    ]);
    expect(add.code, add.stderr).toBe(0);
    const label = '2026-11-23 09:00:00 · segment 001 · 2 lenses';
    expect(add.stdout).toContain(`"${label}"`);

    const drain = await cli(dataDir, ['drain']);
    expect(drain.code, drain.stderr).toBe(0);
    const status = await cli(dataDir, ['status']);
    expect(status.code, status.stderr).toBe(0);
    expect(status.stdout).toMatch(new RegExp(`capture 1 +completed +${label}`));
    const json = JSON.parse((await cli(dataDir, ['status', '--json'])).stdout) as {
      captures: { label: string; captureDateTime?: string }[];
    };
    expect(json.captures.map((c) => c.label)).toEqual([label]);
    const log = await cli(dataDir, ['log', '--since', '2020-01-01']);
    expect(log.code, log.stderr).toBe(0);
    const captureLines = log.stdout.split('\n').filter((l) => /\b(registered|capture-completed)\b/.test(l));
    expect(captureLines).toHaveLength(2);
    for (const line of captureLines) expect(line).toContain(label);
    // Nowhere the camera's wrong clock as the capture's name.
    for (const out of [add.stdout, status.stdout, log.stdout]) expect(out).not.toContain('08:00:00 · segment 001');
    // The platform got the same time.
    expect(
      Object.values(svc.store.state.captures).map((c) => (c.request as { captureDateTime: string }).captureDateTime),
    ).toContain(shifted);
  });
});
