import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { strFromU8, unzipSync } from 'fflate';
import { describe, expect, it, vi } from 'vitest';
import type { MenuItem } from './electron-stand-in.js';
import { rec, storeSeed, appFrame, quitShell } from './electron-stand-in.js';
import { useShellFolders } from '../testing/shell-folders.js';
import { supportReportEntries } from '../testing/support-report-entries.js';

// Help › "Save a report for support…" in the shell, run against the Electron stand-in with the
// real service process behind it: the save dialog, then the service's report zip, with the
// support log both processes wrote in the platform's log folder, and no secret in it.
const { userData, work } = useShellFolders('shell-report', quitShell);

// Sign-in tokens the settings file keeps sealed (the stand-in's safeStorage seals as `enc:` + text):
// the host unseals them for the service, which must hide them everywhere in the report.
const TOKEN = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJvZmZpY2UifQ.c2VjcmV0LXNpZ25hdHVyZS1vZi10aGUtdG9rZW4';
const REFRESH = 'refresh-7d1f0c2a9b8e4f6d';
const seal = (s: string) => Buffer.from(`enc:${s}`).toString('base64');
storeSeed.set('progressTokens', {
  scope: 'http://127.0.0.1:9/ p-none',
  sealedToken: seal(TOKEN),
  sealedRefreshToken: seal(REFRESH),
});

vi.mock('electron', async () => (await import('./electron-stand-in.js')).electronModule(userData));
vi.mock('electron-store', async () => (await import('./electron-stand-in.js')).electronStoreModule);

const invoke = (c: string, arg?: unknown) =>
  rec.handlers.get(c)!(appFrame(), arg) as Promise<{ ok: boolean; value?: unknown; error?: string }>;

/** The Help menu's "Save a report for support…" item of the application menu. */
function reportItem(): MenuItem {
  const help = rec.state.appMenu?.find((m) => m.role === 'help');
  const item = help?.submenu?.find((i) => i.label === 'Save a report for support…');
  if (!item?.click)
    throw new Error(`no "Save a report for support…" in the Help menu: ${JSON.stringify(rec.state.appMenu)}`);
  return item;
}

describe('Help › Save a report for support', () => {
  it('saves the zip where the save dialog says: logs, status, summary, versions and settings, no secret in any entry', async () => {
    await import('./main.js');
    rec.ready();
    await vi.waitFor(() => expect(rec.windows).toHaveLength(1));
    const local = await invoke('capture:settings.useLocalService');
    expect(local.ok).toBe(true);
    const file = join(work, 'walk.mp4');
    writeFileSync(file, randomBytes(2 * 1024 * 1024));
    const structures = (local.value as { structures: { id: string }[] }).structures;
    expect(
      await invoke('capture:captures.register', [
        { paths: [file], structure: structures[0]!.id, type: 'interior', capturedAt: '2026-11-22T08:00:00Z' },
      ]),
    ).toMatchObject({ ok: true });
    await vi.waitFor(() => expect(rec.state.notifications.map((n) => n.title)).toContain('Queue finished'), {
      timeout: 30_000,
    });

    // Cancelled in the dialog: nothing is written.
    reportItem().click!();
    await vi.waitFor(() => expect(rec.state.saveDialogs).toHaveLength(1));
    expect(rec.state.saveDialogs[0]!.defaultPath).toMatch(/capture-uploader-report-\d{4}-\d\d-\d\d-\d{6}\.zip$/);

    const out = join(work, 'for-support.zip');
    rec.state.savePath = out;
    reportItem().click!();
    await vi.waitFor(() => expect(rec.state.notifications.map((n) => n.title)).toContain('Report saved'), {
      timeout: 20_000,
    });
    expect(rec.state.errorBoxes).toEqual([]);

    const entries = unzipSync(readFileSync(out));
    const logDir = join(userData, 'logs');
    const logs = readdirSync(logDir);
    expect(Object.keys(entries).sort()).toEqual(supportReportEntries(logs));
    const text = (n: string) => strFromU8(entries[n]!);
    const status = JSON.parse(text('status.json')) as { captures: { files: { state: string }[] }[] };
    expect(status.captures.flatMap((c) => c.files.map((f) => f.state))).toEqual(['completed']);
    // Both processes wrote the day's file in the platform's log folder: the shell's start, the service's events.
    const lines = logs
      .flatMap((l) => text(`logs/${l}`).trim().split('\n'))
      .map((l) => JSON.parse(l) as { source: string; kind: string; state?: string; message: string });
    expect(lines.some((l) => l.source === 'app' && /^Capture Uploader .* started/.test(l.message))).toBe(true);
    expect(
      lines.some(
        (l) =>
          l.source === 'service' && l.kind === 'file' && l.state === 'completed' && l.message.startsWith('walk.mp4'),
      ),
    ).toBe(true);
    expect(JSON.parse(text('versions.json'))).toMatchObject({
      madeBy: 'Capture Uploader desktop app',
      appVersion: '0.1.0',
      os: { platform: process.platform },
    });
    expect(JSON.parse(text('settings.json'))).toMatchObject({
      progressTokens: { sealedToken: '(set)', sealedRefreshToken: '(set)' },
      settings: { mode: 'local' },
    });
    for (const [name, data] of Object.entries(entries)) {
      const t = strFromU8(data);
      for (const secret of [TOKEN, REFRESH, seal(TOKEN), seal(REFRESH)]) expect(t, name).not.toContain(secret);
    }
  }, 90_000);

  it('says why in an error box when the report cannot be written there', async () => {
    rec.state.savePath = join(work, 'no-such-folder', 'r.zip');
    reportItem().click!();
    await vi.waitFor(() => expect(rec.state.errorBoxes).toHaveLength(1), { timeout: 20_000 });
    expect(rec.state.errorBoxes[0]).toMatchObject({
      title: 'The report could not be saved',
      content: expect.stringContaining('no-such-folder'),
    });
    expect(existsSync(join(work, 'no-such-folder'))).toBe(false);
  });
});
