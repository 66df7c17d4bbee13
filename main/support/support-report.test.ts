import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { strFromU8, unzipSync } from 'fflate';
import { afterAll, describe, expect, it } from 'vitest';
import { REPORT_SLICE_BYTES, gatherReport, writeReport } from './support-report.js';

// The support report made in slices by the upload service (gatherReport), which must keep
// answering its host's heartbeat while it works (docs/decisions/0035-service-heartbeat.md), and all at
// once by the CLI (writeReport): the same zip either way.
const work = mkdtempSync(join(tmpdir(), 'support-report-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const SECRET = 'hunter2-the-account-password';
/** A log folder of `days` daily files of about `mib` MiB each, every line naming the secret. */
function logFolder(name: string, days: number, mib: number): string {
  const dir = join(work, name);
  mkdirSync(dir, { recursive: true });
  const line = `${JSON.stringify({ at: '2026-11-27T10:15:03.120+01:00', level: 'info', source: 'service', kind: 'log', message: `sign-in with ${SECRET} refused; retried at 03:15` })}\n`;
  const body = line.repeat(Math.ceil((mib * 1024 * 1024) / line.length));
  for (let d = 1; d <= days; d++)
    writeFileSync(join(dir, `capture-uploader-2026-11-${String(d).padStart(2, '0')}.log`), body);
  return dir;
}
const input = (logDir: string, out: string) => ({
  out,
  queueDir: join(work, 'no-queue'),
  logDir,
  settings: { settings: { email: 'a@b.c' } },
  secrets: [SECRET],
  madeBy: 'test',
  now: () => Date.parse('2026-11-27T12:00:00Z'),
});

describe('the support report in slices', () => {
  it('lets the event loop turn between slices of about a MiB, and writes the same entries as the report made at once', async () => {
    const logs = logFolder('sliced', 3, 3);
    let pauses = 0;
    const sliced = await gatherReport(input(logs, join(work, 'sliced.zip')), {
      pause: async () => void pauses++,
    });
    const whole = writeReport(input(logs, join(work, 'whole.zip')));
    // 9 MiB of log in slices of 1 MiB, and the small entries and the queue's read before them.
    expect(pauses).toBeGreaterThanOrEqual((9 * 1024 * 1024) / REPORT_SLICE_BYTES);
    expect([...sliced.entries].sort()).toEqual([...whole.entries].sort());
    const a = unzipSync(readFileSync(sliced.out));
    const b = unzipSync(readFileSync(whole.out));
    expect(Object.keys(a).sort()).toEqual(Object.keys(b).sort());
    for (const name of Object.keys(a)) {
      if (name === 'versions.json') continue;
      expect(strFromU8(a[name]!), name).toBe(strFromU8(b[name]!));
      expect(strFromU8(a[name]!), name).not.toContain(SECRET);
    }
    // Every log line is there, whole and scrubbed.
    const name = 'capture-uploader-2026-11-02.log';
    const lines = strFromU8(a[`logs/${name}`]!).split('\n');
    expect(lines).toHaveLength(readFileSync(join(logs, name), 'utf8').split('\n').length);
    expect(lines.filter(Boolean).every((l) => JSON.parse(l) as unknown)).toBe(true);
  });

  it('stopped by its signal between two slices: rejects with the reason, nothing left at out, no partial file', async () => {
    const logs = logFolder('stopped', 2, 2);
    const dir = join(work, 'stopped-out');
    mkdirSync(dir);
    const ac = new AbortController();
    let pauses = 0;
    await expect(
      gatherReport(input(logs, join(dir, 'r.zip')), {
        signal: ac.signal,
        pause: async () => {
          if (++pauses === 3) ac.abort(new Error('Cancelled'));
        },
      }),
    ).rejects.toThrow('Cancelled');
    expect(readdirSync(dir)).toEqual([]);
  });

  it('out of time for the log: the newest days are in, the older ones named in logs-left-out.txt', async () => {
    const logs = logFolder('budget', 3, 0.01);
    const out = join(work, 'budget.zip');
    const r = await gatherReport(input(logs, out), { logBudgetMs: -1 });
    expect(r.entries).not.toContain('logs/capture-uploader-2026-11-01.log');
    const left = strFromU8(unzipSync(readFileSync(out))['logs-left-out.txt']!);
    expect(left).toMatch(/time for the support log ran out/);
    for (const d of ['01', '02', '03']) expect(left).toContain(`capture-uploader-2026-11-${d}.log`);
    expect(existsSync(out)).toBe(true);
  });
});
