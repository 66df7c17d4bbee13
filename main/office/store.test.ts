import { Database } from '../testing/queue-backdoors.js';
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { RECORDS_MIGRATIONS } from './migrations.js';
import { RecordsStore } from './store.js';

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
      1,
    );
    s.enqueue('a', { date: '2026-11-21', status: 'In Progress', details: 'two' }, '2026-11-23T09:15:00.000Z', 0);
    s.countAttempt(first.id);
    s.close();

    const again = RecordsStore.open(file);
    expect(again.read('a', 'progress')).toEqual({ value: [{ id: '1' }], asOf: '2026-11-23T09:12:00.000Z' });
    expect(again.read('b', 'assets:x:y')).toBeUndefined();
    expect(again.outbox('a').map((i) => [i.details, i.attempts, i.state])).toEqual([
      ['one', 2, 'waiting'],
      ['two', 0, 'waiting'],
    ]);
    expect(again.outbox('b')).toEqual([]);
    expect(again.remove('b', first.id)).toBe(false); // another scope's row is not this one's to remove
    again.refuse(first.id, 'The progress service refused the request: status: Invalid enum value.');
    expect(again.outbox('a')[0]).toMatchObject({ state: 'refused', error: expect.stringMatching(/refused/) });
    again.close();
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
