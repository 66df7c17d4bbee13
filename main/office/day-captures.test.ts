import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openQueueDatabase } from '../queue/db.js';
import { UploadQueue } from '../queue/queue.js';
import { capturesOfDay } from './day-captures.js';
import { setFileState } from '../testing/queue-backdoors.js';

// The captures beside the office's day: rows of queue.db, by project and date.

const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })));
function queue(): UploadQueue {
  const dir = mkdtempSync(join(tmpdir(), 'day-captures-'));
  dirs.push(dir);
  return new UploadQueue(openQueueDatabase(join(dir, 'queue.db')).db);
}
function add(q: UploadQueue, label: string, project: string, at: string, n = 2): number {
  const names = Array.from({ length: n }, (_, i) => `${label}-${i}.insv`);
  return q.enqueueCapture(
    label,
    {
      project,
      structure: 's-tower-a',
      captureDateTime: at,
      type: 'interior',
      mode: '360 Video',
      sourceType: 'bot',
      files: names.map((fileName, i) => ({ frameIndex: i + 1, fileName, contentType: 'video/insv', size: 1000 + i })),
    } as never,
    names.map((fileName, i) => ({
      path: `/card/${fileName}`,
      fileName,
      contentType: 'video/insv',
      size: 1000 + i,
      mtimeMs: 1_700_000_000_000,
      dev: '1',
      ino: `${label}${i}`,
      fingerprint: `${label}${i}`,
    })),
  );
}

describe('capturesOfDay', () => {
  it("lists that project's captures of that site date with their files, and when the last was uploaded once all were", () => {
    const q = queue();
    const done = add(q, 'level 4 walk', 'p1', '2026-11-20T07:45:00-05:00');
    const half = add(q, 'level 5 walk', 'p1', '2026-11-20T23:30:00-05:00'); // the 21st in UTC: still the site's 20th
    add(q, 'next day', 'p1', '2026-11-21T08:00:00-05:00');
    add(q, 'other project', 'p2', '2026-11-20T09:00:00-05:00');
    const [a1, a2] = q.filesOf(done);
    setFileState(q, a1!.id, 'completed');
    setFileState(q, a2!.id, 'completed');
    setFileState(q, q.filesOf(half)[0]!.id, 'completed');
    const list = capturesOfDay(q.db, 'p1', '2026-11-20');
    expect(list.map((c) => [c.label, c.files, c.filesUploaded])).toEqual([
      ['level 4 walk', 2, 2],
      ['level 5 walk', 2, 1],
    ]);
    const completedAt = (
      q.db.prepare('SELECT MAX(completed_at) AS t FROM files WHERE capture_row = ?').get(done) as { t: string }
    ).t;
    expect(list[0]).toEqual({
      captureRow: done,
      label: 'level 4 walk',
      structure: 's-tower-a',
      state: 'queued',
      capturedAt: '2026-11-20T07:45:00-05:00',
      files: 2,
      filesUploaded: 2,
      uploadedAt: completedAt,
    });
    expect(completedAt).toMatch(/^\d{4}-\d\d-\d\dT/);
    expect(list[1]!.uploadedAt).toBeNull();
    expect(capturesOfDay(q.db, 'p1', '2026-11-19')).toEqual([]);
  });
});
