import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { printLog } from './log.js';
import { setFileState } from '../testing/queue-backdoors.js';
import { stdoutOf, useWorkDir } from '../testing/kit.js';
import { enqueueOne, oneFileRequest, queueIn } from '../testing/queue-rows.js';

const work = useWorkDir('summary-test');

/** The recording every capture of these tests holds (or one of its name). */
const walk = { path: '/card/walk.mp4', size: 3_000_000 };
const request = oneFileRequest(walk, '2026-11-20T10:00:00.000Z');

const captureOutput = stdoutOf;

describe('capture-uploader log --summary', () => {
  it('prints the morning summary from the activity log, and the same figures as JSON', () => {
    const dir = join(work, 'q');
    const q = queueIn(dir);
    const done = enqueueOne(q, 'walk 1', request, walk);
    const bRequest = { ...request, files: [{ ...request.files[0]!, fileName: 'b.mp4' }] };
    const bad = enqueueOne(q, 'walk 2', bRequest, { path: '/card/b.mp4', size: 5, mtimeMs: 2 });
    const [f1] = q.filesOf(done);
    const [f2] = q.filesOf(bad);
    const t0 = Date.now() - 3 * 3_600_000;
    const iso = (min: number) => new Date(t0 + min * 60_000).toISOString();
    q.activity.add({
      at: iso(0),
      captureRow: done,
      fileId: f1!.id,
      subject: 'walk.mp4',
      kind: 'started',
      message: 'started',
    });
    q.activity.add({
      at: iso(10),
      captureRow: done,
      fileId: f1!.id,
      subject: 'walk.mp4',
      kind: 'retry-scheduled',
      message: 'InternalError (HTTP 503 on PUT /b/k)',
    });
    q.activity.add({
      at: iso(40),
      captureRow: done,
      fileId: f1!.id,
      subject: 'walk.mp4',
      kind: 'completed',
      message: 'done',
    });
    q.activity.add({
      at: iso(40),
      captureRow: done,
      fileId: null,
      subject: 'walk 1',
      kind: 'capture-completed',
      message: 'done',
    });
    setFileState(q, f1!.id, 'completed');
    q.moveFile(f2!.id, ['waiting'], 'failed', { error: 'b.mp4 changed while uploading', transient: false });
    for (const k of Object.keys(process.env).filter((k) => k.startsWith('CAPTURE_'))) vi.stubEnv(k, undefined);

    const lines = captureOutput(() => printLog(dir, { since: '6h', summary: true }))
      .trim()
      .split('\n');
    // Nothing moves by itself any more (the other file needs a person): the night finished.
    expect(lines[0]).toMatch(
      /^Started at .+; finished at .+ after 40 min 00 s: 1 capture \(1 file\), 2\.9 MiB uploaded\.$/,
    );
    expect(lines).toContain('1 needs you:');
    expect(lines.at(-1)).toBe(
      `  file ${f2!.id} (b.mp4): the file changed on disk. Retry it in the app, or run capture-uploader retry ${f2!.id}; it resumes from the parts already uploaded.`,
    );
    expect(
      lines.some((l) => /^Longest outage: 30 min 00 s from .+ \(storage unavailable\); nothing was lost\.$/.test(l)),
    ).toBe(true);

    const json = JSON.parse(captureOutput(() => printLog(dir, { since: '6h', summary: true, json: true }))) as Record<
      string,
      unknown
    >;
    expect(json).toMatchObject({
      type: 'summary',
      startedAt: t0,
      files: 1,
      captures: 1,
      bytes: 3_000_000,
      longestOutage: { ms: 30 * 60_000 },
      needsYou: [{ subject: `file ${f2!.id} (b.mp4)` }],
    });
    q.db.close();
    vi.unstubAllEnvs();
  });
});

describe('a capture with warnings reaches every place that says "done"', () => {
  it('log --summary, status and status --json all say it, and none says "Nothing needs you"', async () => {
    const dir = join(work, 'warned');
    const q = queueIn(dir);
    const row = enqueueOne(q, 'walk 3', request, walk);
    const [f] = q.filesOf(row);
    const iso = (min: number) => new Date(Date.now() - 60 * 60_000 + min * 60_000).toISOString();
    q.activity.add({
      at: iso(0),
      captureRow: row,
      fileId: null,
      subject: 'walk 3',
      kind: 'warning',
      message:
        'No Insta360 trailer found at its end: it may not come from an Insta360 camera, or was cut short. Uploaded as it is.',
    });
    q.activity.add({
      at: iso(1),
      captureRow: row,
      fileId: f!.id,
      subject: 'walk.mp4',
      kind: 'started',
      message: 'started',
    });
    q.activity.add({
      at: iso(5),
      captureRow: row,
      fileId: f!.id,
      subject: 'walk.mp4',
      kind: 'completed',
      message: 'done',
    });
    q.activity.add({
      at: iso(5),
      captureRow: row,
      fileId: null,
      subject: 'walk 3',
      kind: 'capture-completed',
      message: 'done',
    });
    setFileState(q, f!.id, 'completed');
    q.db.close();
    for (const k of Object.keys(process.env).filter((k) => k.startsWith('CAPTURE_'))) vi.stubEnv(k, undefined);

    const summary = captureOutput(() => printLog(dir, { since: '6h', summary: true }))
      .trim()
      .split('\n');
    expect(summary).not.toContain('Nothing needs you.');
    expect(summary).toContain('1 capture with warnings, uploaded as they are; look at them in the app:');
    expect(summary).toContain(
      `  capture ${row} (walk 3): No Insta360 trailer found at its end: it may not come from an Insta360 camera, or was cut short. Uploaded as it is.`,
    );
    const json = JSON.parse(captureOutput(() => printLog(dir, { since: '6h', summary: true, json: true }))) as Record<
      string,
      unknown
    >;
    expect(json).toMatchObject({ needsYou: [], warned: [{ subject: `capture ${row} (walk 3)` }] });

    const { printStatus } = await import('./status.js');
    expect(captureOutput(() => printStatus(dir, false, 'en-GB')).split('\n')[0]).toMatch(
      /^All 1 file uploaded, 1 capture with warnings · 100% /,
    );
    const status = JSON.parse(captureOutput(() => printStatus(dir, true, 'en-GB'))) as {
      state: { kind: string; headline: string };
    };
    expect(status.state).toMatchObject({
      kind: 'done-with-warnings',
      headline: 'All 1 file uploaded, 1 capture with warnings',
    });
    vi.unstubAllEnvs();
  });
});
