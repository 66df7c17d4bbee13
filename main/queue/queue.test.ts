import { buildSync } from 'esbuild';
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import Database from 'better-sqlite3';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { captureLabel } from '../../shared/capture-label.js';
import { QueueTooNewError, migrate, openQueueDatabase } from './db.js';
import { LATEST_VERSION, MIGRATIONS } from './migrations/index.js';
import { UploadQueue } from './queue.js';
import { memoryQueueAt } from '../testing/queue-backdoors.js';
import { insertRows, oldCapture, oldFile, oldQueueWithWalk } from '../testing/old-rows.js';
import { captureRequest } from '../testing/kit.js';
import { manifestFor } from '../testing/queue-rows.js';

const work = mkdtempSync(join(tmpdir(), 'queue-test-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));
let n = 0;
const dbFile = () => join(work, `q${n++}.db`);

const request = captureRequest('2026-11-20T15:04:05Z', [
  { frameIndex: 1, fileName: 'VID_20261120_150405_00_001.insv', contentType: 'video/insv', size: 12_000_000 },
  { frameIndex: 2, fileName: 'VID_20261120_150405_10_001.insv', contentType: 'video/insv', size: 100 },
]);
const files = request.files.map((f) => ({
  path: `/card/${f.fileName}`,
  fileName: f.fileName,
  contentType: f.contentType,
  size: f.size,
  mtimeMs: 1_700_000_000_123,
}));

describe('opening the queue database', () => {
  it('runs WAL with synchronous=FULL and foreign keys, at the latest schema', () => {
    const { db, setAside } = openQueueDatabase(dbFile());
    expect(setAside).toBeUndefined();
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(db.pragma('synchronous', { simple: true })).toBe(2);
    expect(db.pragma('foreign_keys', { simple: true })).toBe(1);
    expect(db.pragma('user_version', { simple: true })).toBe(LATEST_VERSION);
    db.close();
  });

  it('refuses a queue written by a newer version, leaving it untouched', () => {
    const file = dbFile();
    const raw = new Database(file);
    raw.pragma(`user_version = ${LATEST_VERSION + 1}`);
    raw.close();
    const bytes = readFileSync(file);
    expect(() => openQueueDatabase(file)).toThrow(QueueTooNewError);
    expect(() => openQueueDatabase(file)).toThrow(
      `written by a newer version of Capture Uploader (schema ${LATEST_VERSION + 1}; this version knows up to ${LATEST_VERSION})`,
    );
    expect(readFileSync(file).equals(bytes)).toBe(true);
  });

  it('sets a corrupt file aside and reports it, never emptying it', () => {
    const file = dbFile();
    const junk = Buffer.from('this is not an SQLite database, but it is someone’s queue'.repeat(100));
    writeFileSync(file, junk);
    const { db, setAside } = openQueueDatabase(file);
    expect(setAside).toMatch(/\.corrupt-/);
    expect(readFileSync(setAside!).equals(junk)).toBe(true);
    expect(new UploadQueue(db).captures()).toEqual([]);
    db.close();
  });
});

describe('migrations (one test per migration: N-1, rows, N, same rows)', () => {
  it('1: creates captures, files and parts', () => {
    const db = memoryQueueAt(1, false);
    const tables = (
      db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").all() as { name: string }[]
    ).map((t) => t.name);
    expect(tables).toEqual(['captures', 'files', 'parts']);
  });

  it('2: adds sheet exports and keeps every capture, file and part row', () => {
    const db = memoryQueueAt(1);
    // Rows as version 1 wrote them (raw SQL: today's queue code writes later versions' columns).
    const at = '2026-11-20T10:00:00.000Z';
    insertRows(db, 'captures', [{ ...oldCapture(1, 'registered', 'label', at), capture_id: 'cap-1' }]);
    insertRows(db, 'files', [
      { ...oldFile(1, '/card/a.insv', 12000000, 1, 'pending'), upload_id: 'u1', part_size: 5242880, total_parts: 3 },
      { ...oldFile(2, '/card/b.insv', 100, 1, 'pending'), upload_id: 'u2', part_size: 5242880, total_parts: 1 },
    ]);
    db.prepare(
      `INSERT INTO parts (file_id, part_number, size, etag) VALUES (1, 1, 5242880, '"abc"'), (1, 2, 5242880, NULL), (1, 3, 1515520, NULL), (2, 1, 100, NULL)`,
    ).run();
    const dump = () => ['captures', 'files', 'parts'].map((t) => db.prepare(`SELECT * FROM ${t} ORDER BY 1, 2`).all());
    const before = dump();
    migrate(db, ':memory:', MIGRATIONS, 2);
    expect(dump()).toEqual(before);
    expect(db.pragma('user_version', { simple: true })).toBe(2);
    db.prepare(`INSERT INTO sheet_exports (project, requested_at, designs_updated_at) VALUES ('p1', ?, ?)`).run(
      at,
      '2026-10-11T09:31:00.000Z',
    );
    migrate(db, ':memory:', MIGRATIONS);
    const q = new UploadQueue(db);
    expect(q.lastSheetExport('p1')).toMatchObject({ designsUpdatedAt: '2026-10-11T09:31:00.000Z' });
  });

  it('3: adds the retry schedule, queue metadata and the activity log, keeping every row as it was', () => {
    const db = memoryQueueAt(2);
    // Rows as version 2 wrote them (raw SQL: today's queue code writes version 3's columns).
    const at = '2026-11-20T10:00:00.000Z';
    insertRows(db, 'captures', [
      { ...oldCapture(1, 'registered', 'walk', at), capture_id: 'cap-1' },
      oldCapture(2, 'queued', 'later', at),
    ]);
    const error = 'InternalError (HTTP 500 on PUT /x)';
    insertRows(db, 'files', [
      {
        ...oldFile(1, '/card/a.insv', 12000000, 1, 'failed'),
        upload_id: 'u1',
        part_size: 5242880,
        total_parts: 3,
        error,
      },
    ]);
    db.prepare(
      `INSERT INTO parts (file_id, part_number, size, etag) VALUES (1, 1, 5242880, '"abc"'), (1, 2, 5242880, NULL), (1, 3, 1515520, NULL)`,
    ).run();
    db.prepare(`INSERT INTO sheet_exports (project, requested_at) VALUES ('p1', ?)`).run(at);
    const dump = () =>
      ['captures', 'files', 'parts', 'sheet_exports'].map(
        (t) => db.prepare(`SELECT * FROM ${t} ORDER BY 1, 2`).all() as Record<string, unknown>[],
      );
    const before = dump();

    migrate(db, ':memory:', MIGRATIONS, 3);
    expect(db.pragma('user_version', { simple: true })).toBe(3);
    const after = dump();
    // Every old column keeps its value; the new ones start empty: no attempts, due now, not transient.
    after.forEach((rows, t) => rows.forEach((row, i) => expect(row).toMatchObject(before[t]![i]!)));
    expect(after[0]!.map((c) => [c.attempts, c.next_attempt_at])).toEqual([
      [0, null],
      [0, null],
    ]);
    expect(after[1]!.map((f) => [f.attempts, f.next_attempt_at, f.transient])).toEqual([[0, null, 0]]);
    migrate(db, ':memory:', MIGRATIONS); // today's queue code writes later versions' columns
    const q = new UploadQueue(db);
    expect(q.file(1)).toMatchObject({ state: 'failed', attempts: 0, nextAttemptAt: null, transient: false });
    expect(q.schedule.claimDueCapture(Date.now())).toMatchObject({ id: 2, state: 'registering' });
    q.meta.set('partSize', 5_242_880);
    expect(q.meta.get('partSize')).toBe(5_242_880);
    q.activity.add({ captureRow: 1, fileId: 1, subject: 'a.insv', kind: 'failed', message: 'InternalError' });
    expect(q.activity.list().map((a) => a.kind)).toEqual(['failed']);
  });

  it('4: adds file identity, keeps every row, and still finds a file queued before by its path', () => {
    const db = oldQueueWithWalk(3);
    insertRows(db, 'files', [
      {
        ...oldFile(1, '/card/a.insv', 1000, 1700000000123, 'pending'),
        attempts: 2,
        next_attempt_at: 1800000000000,
        transient: 1,
      },
    ]);
    const dump = () => db.prepare('SELECT * FROM files').all() as Record<string, unknown>[];
    const before = dump();
    migrate(db, ':memory:', MIGRATIONS, 4);
    expect(dump()[0]).toMatchObject({
      ...before[0],
      dev: null,
      ino: null,
      ctime_ns: null,
      fingerprint: null,
      changed: 0,
    });
    const q = new UploadQueue(db);
    expect(
      q.findQueuedFile({
        path: '/card/a.insv',
        size: 1000,
        mtimeMs: 1_700_000_000_123,
        dev: '1',
        ino: '2',
        fingerprint: 'f',
      }),
    ).toMatchObject({ id: 1 });
    q.markChanged(1);
    expect(q.findQueuedFile({ path: '/card/a.insv', size: 1000, mtimeMs: 1_700_000_000_123 })).toBeUndefined();
  });
  it('5: counts the bytes and parts already stored per file, and keeps counting through every path that sets or clears an ETag', () => {
    const db = oldQueueWithWalk(4);
    insertRows(db, 'files', [
      { ...oldFile(1, '/card/a.insv', 12000000, 1700000000123, 'paused'), total_parts: 3, part_size: 5242880 },
    ]);
    const part = db.prepare('INSERT INTO parts (file_id, part_number, size, etag) VALUES (1, ?, ?, ?)');
    part.run(1, 5_242_880, '"a"');
    part.run(2, 5_242_880, null);
    part.run(3, 1_514_240, '"c"');
    const before = db.prepare('SELECT * FROM files').all() as Record<string, unknown>[];
    migrate(db, ':memory:', MIGRATIONS, 5);
    const q = new UploadQueue(db);
    expect(db.prepare('SELECT * FROM files').all()).toEqual([
      { ...before[0], stored_bytes: 5_242_880 + 1_514_240, stored_parts: 2 },
    ]);
    expect(q.file(1)).toMatchObject({ storedBytes: 6_757_120, storedParts: 2 });
    q.recordParts([{ fileId: 1, partNumber: 2, etag: '"b"' }]);
    q.recordParts([{ fileId: 1, partNumber: 2, etag: '"b2"' }]); // an ETag replaced is not counted twice
    expect(q.file(1)).toMatchObject({ storedBytes: 12_000_000, storedParts: 3 });
    q.batch.forgetParts(1, [1]);
    q.batch.forgetParts(1, [1]); // an ETag forgotten is not subtracted twice
    expect(q.file(1)).toMatchObject({ storedBytes: 12_000_000 - 5_242_880, storedParts: 2 });
    expect(q.totals()).toMatchObject({
      files: 1,
      paused: 1,
      bytesTotal: 12_000_000,
      bytesStored: 12_000_000 - 5_242_880,
      bytesOfMoving: 0,
      captures: 1,
      capturesNeedYou: 0,
    });
  });
  it('6: a capture left registering by an earlier version may have been sent: it stays for a person; the others are unchanged', () => {
    const db = memoryQueueAt(5);
    const at = '2026-11-20T10:00:00.000Z';
    const capture = db.prepare(
      `INSERT INTO captures (id, state, label, project, structure, request_json, created_at, updated_at) VALUES (?, ?, ?, 'p1', 's1', '{}', ?, ?)`,
    );
    capture.run(1, 'registering', 'caught', at, at);
    capture.run(2, 'queued', 'waiting', at, at);
    capture.run(3, 'registered', 'done', at, at);
    const before = db.prepare('SELECT * FROM captures ORDER BY id').all() as Record<string, unknown>[];
    migrate(db, ':memory:', MIGRATIONS, 6);
    expect(db.pragma('user_version', { simple: true })).toBe(6);
    const after = db.prepare('SELECT * FROM captures ORDER BY id').all() as Record<string, unknown>[];
    expect(after).toEqual([
      { ...before[0], sent_at: at },
      { ...before[1], sent_at: null },
      { ...before[2], sent_at: null },
    ]);
    // Today's queue code runs on a queue at the latest version (every open migrates all the way).
    migrate(db, ':memory:', MIGRATIONS);
    const q = new UploadQueue(db);
    expect(q.recoverInterrupted()).toMatchObject({ unknownRegistrations: 1, requeuedRegistrations: 0 });
    expect(q.captures().map((c) => c.state)).toEqual(['registration_unknown', 'queued', 'registered']);
  });

  it('7: a queue of version 6 opens with nothing replaced; a changed file queued then (no fingerprint) is replaced when its recording is added again', () => {
    const db = oldQueueWithWalk(6);
    const at = '2026-11-20T10:00:00.000Z';
    insertRows(db, 'files', [
      {
        ...oldFile(1, '/card/a.insv', 1000, 1700000000123, 'failed'),
        error: '/card/a.insv changed while uploading',
        changed: 1,
      },
    ]);
    const before = db.prepare('SELECT * FROM files').all() as Record<string, unknown>[];
    migrate(db, ':memory:', MIGRATIONS, 7);
    expect(db.pragma('user_version', { simple: true })).toBe(7);
    expect(db.prepare('SELECT * FROM files').all()).toEqual([{ ...before[0], replaced_by: null }]);
    const q = new UploadQueue(db);
    expect(q.files(['failed']).map((f) => f.id)).toEqual([1]);
    const row = q.enqueueCapture(
      'walk',
      {
        project: 'p1',
        structure: 's1',
        captureDateTime: at,
        type: 'interior',
        mode: '360 Video',
        sourceType: 'bot',
        files: [{ frameIndex: 1, fileName: 'a.insv', contentType: 'video/insv', size: 1001 }],
      } as never,
      [
        {
          path: '/card/a.insv',
          fileName: 'a.insv',
          contentType: 'video/insv',
          size: 1001,
          mtimeMs: 1_700_000_000_999,
          dev: '5',
          ino: '9',
          fingerprint: 'ff',
        },
      ],
    );
    expect(q.replaceChanged(row, [{ path: '/card/a.insv', dev: '5', ino: '9' }]).map((f) => f.id)).toEqual([1]);
    expect(q.file(1)).toMatchObject({
      state: 'cancelled',
      replacedBy: row,
      error: `Replaced by capture ${row}: the recording changed on disk and was added again as a new capture.`,
    });
    // No longer among the failed or cancelled files: the drain's summary and `retry` leave it alone.
    expect(q.files(['failed', 'cancelled'])).toEqual([]);
    expect(q.replaceChanged(row + 1, [{ path: '/card/a.insv' }])).toEqual([]); // replaced once
  });
});

describe('queue totals', () => {
  it('counts files by what happens next and bytes of what still moves, from the committed rows', () => {
    const q = new UploadQueue(openQueueDatabase(dbFile()).db);
    const a = q.enqueueCapture('walk', request, files);
    const b = q.enqueueCapture(
      'walk 2',
      request,
      files.map((f) => ({ ...f, path: `${f.path}.2` })),
    );
    q.saveRegistration(a, 'cap-a', manifestFor(request));
    const [big, small] = q.filesOf(a);
    q.recordParts([{ fileId: big!.id, partNumber: 1, etag: '"1"' }]);
    q.moveFile(big!.id, ['pending'], 'uploading');
    const retryAt = Date.now() + 60_000;
    q.moveFile(small!.id, ['pending'], 'pending', { retryAt, transient: true });
    q.schedule.moveCapture(b, ['queued'], 'rejected', 'HTTP 422');
    expect(q.totals()).toEqual({
      // The refused capture's two files wait for a person: neither queued nor counted in what moves.
      files: 4,
      captures: 2,
      completed: 0,
      uploading: 1,
      waiting: 0,
      pending: 0,
      retrying: 1,
      paused: 0,
      failed: 0,
      cancelled: 0,
      capturesNeedYou: 1,
      capturesWarned: 0,
      bytesTotal: 2 * 12_000_100,
      bytesStored: 5_242_880,
      bytesStoredUploading: 5_242_880,
      bytesOfMoving: 12_000_100,
      bytesStoredOfMoving: 5_242_880,
      // The earliest retry scheduled, for "next try 19:47".
      nextRetryAt: retryAt,
      cardWait: { cards: 0, recordings: 0, names: [] }, // no card pulled out (removed-cards.test.ts)
      earlierFiles: 0, // one batch (main/cli/status-batch.test.ts)
      earlierBytes: 0,
      batchFrom: 1, // the first capture opened the batch
    });
    expect(
      q.reviseCapture(b, {
        structure: 's2',
        design: 'd2',
        type: 'exterior',
        captureDateTime: '2026-11-20T16:04:05+01:00',
      }),
    ).toBe(true);
    expect(q.capture(b)).toMatchObject({
      structure: 's2',
      design: 'd2',
      request: { structure: 's2', design: 'd2', type: 'exterior', captureDateTime: '2026-11-20T16:04:05+01:00' },
    });
    // A corrected time renames it (shared/capture-label.ts): the label says the time the platform gets.
    expect(q.capture(b)!.label).toBe(
      captureLabel({ capturedAt: '2026-11-20T16:04:05+01:00', fileNames: request.files.map((f) => f.fileName) }),
    );
    expect(q.capture(b)!.label).toMatch(/ · segment 001 · 2 lenses$/);
    expect(
      q.reviseCapture(a, { structure: 's2', type: 'exterior', captureDateTime: '2026-11-20T16:04:05+01:00' }),
    ).toBe(false); // registered: not changed
  });

  it('9: a queue of version 8 opens in its own order (priority 0); a capture moved to the front goes first, and back again', () => {
    const db = memoryQueueAt(8);
    const at = '2026-11-20T10:00:00.000Z';
    const capture = db.prepare(
      `INSERT INTO captures (id, state, label, project, structure, request_json, created_at, updated_at) VALUES (?, 'queued', ?, 'p1', 's1', '{}', ?, ?)`,
    );
    for (const [id, label] of [
      [1, 'floor 1'],
      [2, 'floor 2'],
      [3, 'floor 3'],
    ] as const)
      capture.run(id, label, at, at);
    const before = db.prepare('SELECT * FROM captures ORDER BY id').all() as Record<string, unknown>[];
    migrate(db, ':memory:', MIGRATIONS, 9);
    expect(db.pragma('user_version', { simple: true })).toBe(9);
    expect(db.prepare('SELECT * FROM captures ORDER BY id').all()).toEqual(before.map((r) => ({ ...r, priority: 0 })));
    const q = new UploadQueue(db);
    expect(q.captures().map((c) => c.label)).toEqual(['floor 1', 'floor 2', 'floor 3']);
    expect(q.schedule.setFront(3, true)).toBe(1);
    expect(q.captures().map((c) => c.label)).toEqual(['floor 3', 'floor 1', 'floor 2']);
    // The registrar claims the capture at the front first.
    expect(q.schedule.claimDueCapture(Date.now())!.label).toBe('floor 3');
    expect(q.schedule.setFront(3, false)).toBe(0);
    expect(q.captures().map((c) => c.label)).toEqual(['floor 1', 'floor 2', 'floor 3']);
    expect(q.schedule.setFront(42, true)).toBeNull();
  });
});

describe('queue rows', () => {
  it('stores the manifest with one row per part, sized by part number', () => {
    const { db } = openQueueDatabase(dbFile());
    const q = new UploadQueue(db);
    const id = q.enqueueCapture('VID 001', request, files);
    expect(q.capture(id)!.state).toBe('queued');
    expect(q.filesOf(id).map((f) => f.state)).toEqual(['waiting', 'waiting']);
    q.saveRegistration(id, 'cap-9', [
      {
        frameIndex: 2,
        uploadId: 'u-b',
        fileName: files[1]!.fileName,
        size: 100,
        partSize: 5_242_880,
        totalParts: 1,
        status: 'initiated',
      },
      {
        frameIndex: 1,
        uploadId: 'u-a',
        fileName: files[0]!.fileName,
        size: 12_000_000,
        partSize: 5_242_880,
        totalParts: 3,
        status: 'initiated',
      },
    ]);
    const [a, b] = q.filesOf(id);
    expect([a!.uploadId, a!.state, a!.totalParts, b!.uploadId]).toEqual(['u-a', 'pending', 3, 'u-b']);
    expect(q.parts(a!.id).map((p) => p.size)).toEqual([5_242_880, 5_242_880, 12_000_000 - 2 * 5_242_880]);
    expect(q.capture(id)).toMatchObject({ state: 'registered', captureId: 'cap-9', request });
    db.close();
  });

  it('refuses a manifest that does not match the queued files, changing nothing', () => {
    const { db } = openQueueDatabase(dbFile());
    const q = new UploadQueue(db);
    const id = q.enqueueCapture('x', request, files);
    expect(() =>
      q.saveRegistration(id, 'cap', [
        {
          frameIndex: 1,
          uploadId: 'u1',
          fileName: 'x',
          size: 999,
          partSize: 5_242_880,
          totalParts: 1,
          status: 'initiated',
        },
        {
          frameIndex: 2,
          uploadId: 'u2',
          fileName: 'y',
          size: 100,
          partSize: 5_242_880,
          totalParts: 1,
          status: 'initiated',
        },
      ]),
    ).toThrow(/registered VID_20261120_150405_00_001.insv with 999 bytes; the file has 12000000/);
    expect(q.capture(id)!.state).toBe('queued');
    expect(q.parts(q.filesOf(id)[0]!.id)).toEqual([]);
    db.close();
  });

  it('after a crash, flags a capture whose add-capture was marked sent, and queues again one only claimed', () => {
    const file = dbFile();
    const first = openQueueDatabase(file).db;
    const q1 = new UploadQueue(first);
    const sent = q1.enqueueCapture('sent', request, files);
    const claimedOnly = q1.enqueueCapture('claimed', request, files);
    expect(q1.schedule.claimDueCapture(Date.now())).toMatchObject({ id: sent, state: 'registering', sentAt: null });
    q1.schedule.markCaptureSent(sent);
    expect(q1.capture(sent)!.sentAt).toMatch(/^\d{4}-\d\d-\d\dT/);
    expect(q1.schedule.claimDueCapture(Date.now())).toMatchObject({
      id: claimedOnly,
      state: 'registering',
      sentAt: null,
    });
    first.close();

    const q2 = new UploadQueue(openQueueDatabase(file).db);
    expect(q2.recoverInterrupted()).toEqual({ unknownRegistrations: 1, requeuedRegistrations: 1, resumedFiles: 0 });
    const c = q2.capture(sent)!;
    expect(c.state).toBe('registration_unknown');
    expect(c.error).toMatch(/may or may not have it/);
    expect(q2.capture(claimedOnly)).toMatchObject({ state: 'queued', sentAt: null, nextAttemptAt: null });
    // Claimed again from the start: the sent mark of an earlier try does not carry over.
    expect(q2.schedule.claimDueCapture(Date.now())).toMatchObject({ id: claimedOnly, sentAt: null });
    expect(() => q2.schedule.markCaptureSent(sent)).toThrow(/no longer being registered/);
    q2.db.close();
  });

  it('hands back a claimed capture only once its commit succeeded', () => {
    const db = openQueueDatabase(dbFile()).db;
    const q = new UploadQueue(db);
    const id = q.enqueueCapture('a', request, files);
    // A commit that fails after the UPDATE ran, as a full disk does when the WAL cannot grow: a
    // deferred foreign key check is the one failure SQLite gives at COMMIT on any disk.
    db.pragma('defer_foreign_keys = ON');
    db.exec('CREATE TABLE blocker (capture INTEGER REFERENCES captures (id) DEFERRABLE INITIALLY DEFERRED)');
    db.exec(
      `CREATE TRIGGER claim_fails_at_commit AFTER UPDATE OF state ON captures WHEN NEW.state = 'registering' BEGIN INSERT INTO blocker VALUES (-1); END`,
    );
    expect(() => q.schedule.claimDueCapture(Date.now())).toThrow(/FOREIGN KEY/);
    expect(q.capture(id)!.state).toBe('queued');
    db.close();
  });

  it('keeps committed rows across a reopen (WAL checkpointed or not)', () => {
    const file = dbFile();
    const db = openQueueDatabase(file).db;
    new UploadQueue(db).enqueueCapture('kept', request, files);
    // no close(): the process "dies" with the WAL file still beside the database
    expect(existsSync(`${file}-wal`)).toBe(true);
    const again = new UploadQueue(openQueueDatabase(file).db);
    expect(again.captures().map((c) => c.label)).toEqual(['kept']);
    again.db.close();
    db.close();
  });
});

const require = createRequire(import.meta.url);

describe('one writer', () => {
  // A process that takes the lock the way lockQueue does, says so, and waits to be killed.
  const holder = (dir: string) => {
    const script = `const D = require(${JSON.stringify(require.resolve('better-sqlite3'))}); const db = new D(${JSON.stringify(join(dir, 'queue.lock'))}, { timeout: 250 });
      db.pragma('locking_mode = EXCLUSIVE'); db.exec('BEGIN EXCLUSIVE'); console.log('locked'); setInterval(() => {}, 1000);`;
    const child = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
    return { child, locked: new Promise<void>((resolve) => child.stdout.once('data', () => resolve())) };
  };

  it('refuses a second writer, naming the lock file and its holder', async () => {
    const { lockQueue, QueueInUseError } = await import('./lock.js');
    const dir = mkdtempSync(join(work, 'lock-'));
    const release = lockQueue(dir);
    expect(() => lockQueue(dir)).toThrow(QueueInUseError);
    expect(() => lockQueue(dir)).toThrow(
      new RegExp(
        `in use by another Capture Uploader \\(process ${process.pid} on .+, since .+; lock ${join(dir, 'queue.lock')}\\)`,
      ),
    );
    release();
    lockQueue(dir)();
  });

  it('a lock held by a process that is killed is free at once; a PID file of an earlier version is replaced', async () => {
    const { lockQueue, QueueInUseError } = await import('./lock.js');
    const dir = mkdtempSync(join(work, 'lock-killed-'));
    const h = holder(dir);
    await h.locked;
    expect(() => lockQueue(dir)).toThrow(QueueInUseError);
    h.child.kill('SIGKILL');
    await new Promise((r) => h.child.once('exit', r));
    lockQueue(dir)();

    const old = mkdtempSync(join(work, 'lock-old-'));
    writeFileSync(join(old, 'queue.lock'), '1'); // an earlier version's lock naming pid 1: alive, not us
    const release = lockQueue(old);
    expect(() => lockQueue(old)).toThrow(QueueInUseError);
    release();
  });

  it('50 pairs of processes racing for one lock: never both hold it at once', async () => {
    const dir = mkdtempSync(join(work, 'lock-race-'));
    // The real lockQueue, bundled for plain node (under node_modules so better-sqlite3 resolves).
    const bundle = join(process.cwd(), 'node_modules/.cache/lock-race/lock.cjs');
    buildSync({
      entryPoints: ['main/queue/lock.ts'],
      bundle: true,
      platform: 'node',
      format: 'cjs',
      external: ['better-sqlite3'],
      outfile: bundle,
      logLevel: 'warning',
    });
    const script = `const { lockQueue } = require(${JSON.stringify(bundle)});
      try { const release = lockQueue(${JSON.stringify(dir)}); const from = Date.now(); setTimeout(() => { const to = Date.now(); release(); console.log('held ' + from + ' ' + to); }, 150); }
      catch (e) { console.log(e.name); }`;
    const run = () =>
      new Promise<string>((resolve) => {
        const c = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
        let out = '';
        c.stdout.on('data', (d: Buffer) => (out += d.toString()));
        c.on('exit', () => resolve(out.trim()));
      });
    for (let trial = 0; trial < 50; trial++) {
      const results = await Promise.all([run(), run()]);
      // Each either held the lock for a while (the other waited it out, or was refused) or was refused.
      for (const r of results) expect(r).toMatch(/^(held \d+ \d+|QueueInUseError)$/);
      const held = results
        .filter((r) => r.startsWith('held'))
        .map((r) => r.split(' ').slice(1).map(Number) as [number, number]);
      expect(held.length, `trial ${trial}`).toBeGreaterThanOrEqual(1);
      if (held.length === 2) {
        const [a, b] = held.sort((x, y) => x[0] - y[0]) as [[number, number], [number, number]];
        expect(b[0], `trial ${trial}: the second took the lock before the first let go`).toBeGreaterThanOrEqual(a[1]);
      }
    }
  }, 120_000);
});
