import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { strFromU8, unzipSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import { useCliKit } from '../main/testing/kit.js';
import { reportEntryNames } from '../main/testing/e2e-report.js';

// `capture-uploader report` run as a child against the local service, after a drain wrote the
// support log: one zip with the logs, status, summary, versions and settings, and no secret in
// any of its entries (docs/decisions/0019-support-log-report.md).

const kit = useCliKit('support-report');

const cli = (dataDir: string, args: string[]) => kit.run(dataDir, args);

describe('capture-uploader report', () => {
  it('writes one zip with the logs, status --json, log --summary, versions and settings, and no secret in any entry', async () => {
    const dataDir = join(kit.work, 'queue');
    const done = join(kit.work, 'done.mp4');
    const left = join(kit.work, 'left.mp4');
    writeFileSync(done, randomBytes(2 * 1024 * 1024));
    writeFileSync(left, randomBytes(1024 * 1024));
    const structure = kit.structure();
    expect((await cli(dataDir, ['add', '--structure', structure, '--type', 'interior', done])).code).toBe(0);
    expect((await cli(dataDir, ['drain'])).code).toBe(0);
    // Work left in the queue: a capture registered whose file is not sent yet.
    expect((await cli(dataDir, ['add', '--structure', structure, '--type', 'interior', left])).code).toBe(0);

    const out = join(kit.work, 'for-support.zip');
    const res = await cli(dataDir, ['report', '--out', out]);
    expect([res.code, res.stderr]).toEqual([0, '']);
    expect(res.stdout).toContain(`Report saved: ${out}`);

    const entries = unzipSync(readFileSync(out));
    const names = Object.keys(entries).sort();
    const logs = readdirSync(join(dataDir, 'logs'));
    expect(logs.length).toBeGreaterThanOrEqual(1);
    expect(names).toEqual(reportEntryNames(logs));
    // Debian's unzip reads the same zip, where it is installed.
    if (existsSync('/usr/bin/unzip')) {
      const listing = execFileSync('/usr/bin/unzip', ['-l', out], { encoding: 'utf8' });
      for (const n of names) expect(listing).toContain(n);
    }
    const text = (n: string) => strFromU8(entries[n]!);

    // The queue's summary as status --json says it: one capture completed, one with its file to send.
    const status = JSON.parse(text('status.json')) as { type: string; captures: { files: { state: string }[] }[] };
    expect(status.type).toBe('status');
    expect(status.captures.flatMap((c) => c.files.map((f) => f.state)).sort()).toEqual(['completed', 'pending']);
    expect((JSON.parse(text('summary.json')) as { type: string }).type).toBe('summary');
    expect(text('summary.txt').trim().length).toBeGreaterThan(0);
    // The log is the sessions' story: the file that completed, one JSON line per event, ISO 8601 times with offset.
    const lines = logs
      .flatMap((l) => text(`logs/${l}`).trim().split('\n'))
      .map((l) => JSON.parse(l) as { at: string; kind: string; state?: string; message: string });
    expect(lines.some((l) => l.kind === 'file' && l.state === 'completed' && l.message.startsWith('done.mp4'))).toBe(
      true,
    );
    for (const l of lines) expect(l.at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}[+-]\d\d:\d\d$/);
    const versions = JSON.parse(text('versions.json')) as {
      app: string;
      node: string;
      os: { platform: string; release: string };
    };
    expect(versions).toMatchObject({
      app: expect.any(String),
      node: process.versions.node,
      os: { platform: process.platform },
    });
    const settings = JSON.parse(text('settings.json')) as Record<string, unknown>;
    expect(settings).toMatchObject({
      baseUrl: kit.svc.info.baseUrl,
      email: kit.svc.info.account.email,
      password: '(set)',
      apiKey: '(set)',
      dataDir,
    });

    // No secret in any entry: the password, the API key, a sign-in token (JWT), a presigned URL's signature.
    for (const n of names) {
      const t = text(n);
      expect(t, n).not.toContain(kit.svc.info.account.password);
      expect(t, n).not.toContain(kit.svc.info.apiKey);
      expect(t, n).not.toMatch(/eyJ[A-Za-z0-9_-]{8,}\./);
      expect(t, n).not.toMatch(/X-Amz-(Signature|Credential)/i);
    }
  }, 120_000);

  it('exits 2 and leaves no file when the zip cannot be written', async () => {
    const out = join(kit.work, 'no-such-folder', 'r.zip');
    const res = await cli(join(kit.work, 'queue'), ['report', '--out', out]);
    expect(res.code).toBe(2);
    expect(res.stderr).toMatch(/^capture-uploader: .*no-such-folder/);
    expect(existsSync(join(kit.work, 'no-such-folder'))).toBe(false);
  });
});
