import { Database } from '../testing/queue-backdoors.js';
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { RECORDS_MIGRATIONS } from './migrations.js';
import { RecordsStore } from './records-store.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'records-store-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('records.db', () => {
  it('is created at the latest schema, in WAL mode, with its cache and outbox tables', () => {
    const file = join(dir, 'records.db');
    RecordsStore.open(file).close();
    const db = new Database(file, { readonly: true });
    expect(db.pragma('user_version', { simple: true })).toBe(RECORDS_MIGRATIONS.at(-1)!.version);
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    const tables = (
      db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").all() as { name: string }[]
    ).map((t) => t.name);
    expect(tables).toEqual(['cached', 'outbox']);
    db.close();
  });

  it('keeps answers and outbox rows per scope, oldest first, across a reopen', () => {
    const file = join(dir, 'records.db');
    const s = RecordsStore.open(file);
    s.write('a', 'progress', [{ id: '1' }], '2026-11-23T09:12:00.000Z');
    s.write('b', 'progress', [{ id: '2' }], '2026-11-23T09:13:00.000Z');
    const first = s.enqueue(
      'a',
      { date: '2026-11-20', status: 'Completed', details: 'one' },
      '2026-11-23T09:14:00.000Z',
    );
    s.enqueue('a', { date: '2026-11-21', status: 'In Progress', details: 'two' }, '2026-11-23T09:15:00.000Z');
    s.countAttempt(first.id, ['e1']);
    s.countAttempt(first.id, ['e1']);
    s.close();

    const again = RecordsStore.open(file);
    expect(again.read('a', 'progress')).toEqual({ value: [{ id: '1' }], asOf: '2026-11-23T09:12:00.000Z' });
    expect(again.read('b', 'assets:x:y')).toBeUndefined();
    expect(again.outbox('a').map((i) => [i.details, i.attempts, i.state, i.knownIds])).toEqual([
      ['one', 2, 'waiting', ['e1']],
      ['two', 0, 'waiting', null],
    ]);
    expect(again.outbox('b')).toEqual([]);
    expect(again.remove('b', first.id)).toBe(false); // another scope's row is not this one's to remove
    again.refuse(first.id, 'The progress service refused the request: status: Invalid enum value.');
    expect(again.outbox('a')[0]).toMatchObject({ state: 'refused', error: expect.stringMatching(/refused/) });
    again.close();
  });

  it('settles an entry: it leaves, and its entry id is known to every other sent entry of the same content', () => {
    const s = RecordsStore.open(join(dir, 'records.db'));
    const same = { date: '2026-11-20', status: 'Completed', details: 'Inspection done' };
    const a = s.enqueue('a', same, '2026-11-23T09:14:00.000Z');
    const b = s.enqueue('a', same, '2026-11-23T09:15:00.000Z');
    const c = s.enqueue('a', same, '2026-11-23T09:16:00.000Z');
    const other = s.enqueue('a', { ...same, details: 'Inspection done.' }, '2026-11-23T09:17:00.000Z');
    const elsewhere = s.enqueue('b', same, '2026-11-23T09:18:00.000Z');
    for (const i of [a, b, other, elsewhere]) s.countAttempt(i.id, ['e0']);
    expect(s.settle('a', a.id, 'e1')).toBe(true);
    expect(s.outbox('a').map((i) => [i.id, i.knownIds])).toEqual([
      [b.id, ['e0', 'e1']],
      [c.id, null], // never sent: what it finds before its first send is its own to read
      [other.id, ['e0']],
    ]);
    expect(s.outbox('b').map((i) => i.knownIds)).toEqual([['e0']]);
    expect(s.settle('a', a.id, 'e1')).toBe(false);
    s.close();
  });

  it('opens a file of the first schema with its waiting entries, their known ids unset', () => {
    const file = join(dir, 'v1.db');
    const db = new Database(file);
    RECORDS_MIGRATIONS[0]!.up(db);
    db.prepare(
      "INSERT INTO outbox (scope, date, status, details, queued_at, attempts) VALUES ('a', '2026-11-20', 'Completed', 'one', '2026-11-23T09:14:00.000Z', 1)",
    ).run();
    db.pragma('user_version = 1');
    db.close();
    const s = RecordsStore.open(file);
    expect(s.outbox('a')).toEqual([expect.objectContaining({ details: 'one', attempts: 1, knownIds: null })]);
    s.close();
  });

  it('refuses a file of a newer schema without touching it, and sets a corrupt one aside', () => {
    const newer = join(dir, 'newer.db');
    const db = new Database(newer);
    db.pragma('user_version = 99');
    db.close();
    expect(() => RecordsStore.open(newer)).toThrow(/newer version of Capture Uploader \(schema 99\)/);
    expect(new Database(newer).pragma('user_version', { simple: true })).toBe(99);

    const corrupt = join(dir, 'corrupt.db');
    writeFileSync(corrupt, 'not a database at all, but long enough to have a header'.repeat(20));
    RecordsStore.open(corrupt).close();
    expect(readdirSync(dir).some((f) => f.startsWith('corrupt.db.corrupt-'))).toBe(true);
    expect(existsSync(corrupt)).toBe(true);
  });
});
