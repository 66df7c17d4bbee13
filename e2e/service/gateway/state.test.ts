import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { putBytes, registerCapture, startTestService } from '../testing.js';
import { seed } from './seed.js';
import type { CaptureState } from './state.js';
import { StateStore } from './state.js';

const dirs: string[] = [];
const freshDir = () => {
  const d = mkdtempSync(join(tmpdir(), 'service-state-'));
  dirs.push(d);
  return d;
};
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** Opens the store in `dir`, runs `fn`, closes it. */
function withStore<T>(dir: string, fn: (s: StateStore) => T): T {
  const s = new StateStore(dir);
  try {
    return fn(s);
  } finally {
    s.close();
  }
}

const capture = (captureId: string, project: string): CaptureState => ({
  captureId,
  project,
  structure: 's',
  uploadStatus: 'pending',
  expectedFiles: 1,
  completedFiles: 0,
  createdAt: '2026-11-23T08:00:00.000Z',
  request: { type: 'interior' },
  uploadIds: [],
});

describe('the service state in SQLite', () => {
  it('seeds a new folder once, and a reopened store has the same state', () => {
    const dir = freshDir();
    const first = withStore(dir, (s) => structuredClone(s.state));
    expect(first.projects.length).toBeGreaterThan(0);
    expect(first.accounts.length).toBeGreaterThan(0);
    expect(withStore(dir, (s) => s.state)).toEqual(first);
  });

  it('keeps each saved change across a reopen: named records, appended entries, the token generation', () => {
    const dir = freshDir();
    const expected = withStore(dir, (s) => {
      const project = s.state.projects[0]!;
      s.state.captures.c1 = capture('c1', project.id);
      s.state.captures.c2 = capture('c2', project.id);
      s.save({ captures: ['c1', 'c2'] });
      s.state.captures.c1!.uploadStatus = 'complete';
      s.state.emails.push({
        to: 'a@b.example',
        userId: 'u',
        project: project.id,
        subject: 'Export',
        link: 'https://x.example/e',
        sentAt: 'now',
        expiresAt: 'later',
      });
      s.state.progress.push({
        id: 'p-new',
        projectId: project.id,
        date: '2026-11-23',
        status: 'Completed',
        details: 'Level 2 drywall',
      });
      s.state.tokenGeneration++;
      project.stage = 'Archived';
      s.save({ captures: ['c1'], projects: [project.id] });
      // A capture named but gone from the state is deleted.
      delete s.state.captures.c2;
      s.save({ captures: ['c2'] });
      return structuredClone(s.state);
    });
    const reopened = withStore(dir, (s) => s.state);
    expect(reopened).toEqual(expected);
    expect(Object.keys(reopened.captures)).toEqual(['c1']);
    expect(reopened.captures.c1!.uploadStatus).toBe('complete');
    expect(reopened.progress.at(-1)!.details).toBe('Level 2 drywall');
    expect(reopened.projects[0]!.stage).toBe('Archived');
  });

  it('writes only what a save names: a capture changed in memory and not named keeps its saved form', () => {
    const dir = freshDir();
    withStore(dir, (s) => {
      s.state.captures.c1 = capture('c1', s.state.projects[0]!.id);
      s.save({ captures: ['c1'] });
      s.state.captures.c1.completedFiles = 1;
      s.save({});
    });
    expect(withStore(dir, (s) => s.state.captures.c1!.completedFiles)).toBe(0);
  });

  it('imports the JSON state of an earlier version once', () => {
    const dir = freshDir();
    const legacy = seed();
    legacy.captures.old = capture('old', legacy.projects[0]!.id);
    writeFileSync(join(dir, 'service-state.json'), JSON.stringify(legacy));
    expect(withStore(dir, (s) => s.state)).toEqual(legacy);
    // The database is the state from now on: a later save is not undone by the JSON file.
    withStore(dir, (s) => {
      delete s.state.captures.old;
      s.save({ captures: ['old'] });
    });
    expect(withStore(dir, (s) => Object.keys(s.state.captures))).toEqual([]);
  });

  it('a restarted service still knows registered captures, completed uploads and expired tokens', async () => {
    const first = await startTestService();
    const bytes = randomBytes(1000);
    const { captureId, manifest } = await registerCapture(first, [
      { name: 'walk.mp4', size: bytes.length, contentType: 'video/mp4' },
    ]);
    const uploadId = manifest[0]!.uploadId;
    const presigned = (await (
      await first.gateway('POST', `/upload-service/uploads/${uploadId}/parts/presign-missing`)
    ).json()) as { parts: { url: string }[] };
    const etag = (await putBytes(presigned.parts[0]!.url, bytes)).headers.get('etag')!;
    const done = await first.gateway('POST', `/upload-service/uploads/${uploadId}/parts/complete-batch`, {
      body: { parts: [{ partNumber: 1, etag, size: bytes.length }] },
    });
    expect(done.status).toBe(200);
    const oldToken = await first.token();
    await first.admin('POST', '/tokens/expire');
    await first.close();

    const second = await startTestService({ dataDir: first.dataDir });
    dirs.push(first.dataDir);
    try {
      const status = await second.gateway('GET', `/captures/api/v1/external-captures/${captureId}/upload-status`);
      expect(status.status).toBe(200);
      expect(JSON.stringify(await status.json())).toContain('"complete"');
      const upload = (await (await second.gateway('GET', `/upload-service/uploads/${uploadId}/status`)).json()) as {
        upload: { status: string };
      };
      expect(upload.upload.status).toBe('completed');
      expect(
        (
          await second.gateway('GET', `/captures/api/v1/external-captures/${captureId}/upload-status`, {
            token: oldToken,
          })
        ).status,
      ).toBe(401);
    } finally {
      await second.stop();
    }
  });
});
