import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { writeFakeCard } from '../card/fake-card.js';
import { openQueueDatabase } from '../queue/db.js';
import { offloadCard } from './offload.js';
import { recordOffload } from './record.js';
import { DEFAULT_RETENTION_MS, removeFinishedCopies } from './retention.js';

const work = mkdtempSync(join(tmpdir(), 'retention-test-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));
const DAY = 24 * 60 * 60 * 1000;

describe('removeFinishedCopies', () => {
  it('removes the copies of a capture complete for longer than the retention, and keeps every copy still needed', async () => {
    const card = writeFakeCard(join(work, 'CARD'), { recordings: 4 });
    const r = await offloadCard(card.root, { library: join(work, 'library') });
    const { db } = openQueueDatabase(join(work, 'queue.db'));
    recordOffload(db, r);
    const now = Date.parse('2026-11-25T09:00:00Z');
    // Copies in lens pairs, one capture per recording: [0,1] complete 8 days ago, [2,3] complete
    // 2 days ago, [4,5] one lens completed 30 days ago but the other failed, [6,7] never queued.
    const copies = r.files.map((f) => f.copy);
    const capture = db.prepare(
      `INSERT INTO captures (state, label, project, structure, request_json, created_at, updated_at) VALUES (?, 'walk', 'p1', 's1', '{}', ?, ?)`,
    );
    const file = db.prepare(
      `INSERT INTO files (capture_row, frame_index, path, file_name, content_type, size, mtime_ms, state, completed_at) VALUES (?, ?, ?, 'x.insv', 'video/insv', 1, 1, ?, ?)`,
    );
    const queue = (state: string, files: [string, string, number | null][]) => {
      const at = new Date(now).toISOString();
      const id = Number(capture.run(state, at, at).lastInsertRowid);
      files.forEach(([path, fileState, ago], i) =>
        file.run(id, i + 1, path, fileState, ago === null ? null : new Date(now - ago).toISOString()),
      );
    };
    queue('completed', [
      [copies[0]!, 'completed', 9 * DAY],
      [copies[1]!, 'completed', 8 * DAY],
    ]);
    queue('completed', [
      [copies[2]!, 'completed', 2 * DAY],
      [copies[3]!, 'completed', 2 * DAY],
    ]);
    queue('registered', [
      [copies[4]!, 'completed', 30 * DAY],
      [copies[5]!, 'failed', null],
    ]);

    const removed = await removeFinishedCopies(db, now, DEFAULT_RETENTION_MS);
    expect(removed.map((x) => x.copy).sort()).toEqual([copies[0], copies[1]].sort());
    expect(copies.map((c) => existsSync(c))).toEqual([false, false, true, true, true, true, true, true]);
    expect(
      db.prepare('SELECT copy_path FROM offload_files WHERE removed_at IS NOT NULL ORDER BY copy_path').all(),
    ).toEqual([copies[0], copies[1]].sort().map((copy_path) => ({ copy_path })));
    // The card itself is never touched by the sweep.
    expect(card.recordings.every((p) => existsSync(p))).toBe(true);

    // A week on, the pair completed 2 days ago goes too; the unfinished and the unplaced stay.
    expect((await removeFinishedCopies(db, now + 6 * DAY)).map((x) => x.copy).sort()).toEqual(
      [copies[2], copies[3]].sort(),
    );
    expect(await removeFinishedCopies(db, now + 365 * DAY)).toEqual([]);
    expect(copies.slice(4).every((c) => existsSync(c))).toBe(true);
    db.close();
  });
});
