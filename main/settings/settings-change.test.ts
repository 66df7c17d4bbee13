import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { GatewayConfig } from '../api/gateway.js';
import { openQueueDatabase } from '../queue/db.js';
import { UploadQueue } from '../queue/queue.js';
import { dueOnSettingsChange } from './settings-change.js';

// The queue opened while another process writes to it (an `import` recording its copies): the
// settings check reads, then writes, and must wait for that process's commit, not fail with
// "database is locked" (SQLite refuses at once the write of a deferred transaction whose read is
// older than another connection's commit).

const work = mkdtempSync(join(tmpdir(), 'settings-change-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const config = (apiKey: string): GatewayConfig => ({
  baseUrl: 'http://127.0.0.1:1/gateway',
  authUrl: 'http://127.0.0.1:1/auth',
  apiKey,
  projectId: 'p',
  email: 'e@example.com',
  password: 'pw',
});

/** Another process that takes the queue's write lock, writes, holds it `ms`, commits, and says when it has the lock. */
function writerHolding(file: string, ms: number): Promise<{ done: Promise<number | null> }> {
  const code = `
    const Database = require('better-sqlite3');
    const db = new Database(${JSON.stringify(file)});
    db.pragma('busy_timeout = 5000');
    db.exec('BEGIN IMMEDIATE');
    db.prepare("INSERT INTO queue_meta (key, value) VALUES ('other', '1') ON CONFLICT(key) DO UPDATE SET value = excluded.value").run();
    process.stdout.write('locked\\n');
    setTimeout(() => { db.exec('COMMIT'); db.close(); }, ${ms});`;
  const child = spawn(process.execPath, ['-e', code], { cwd: process.cwd(), stdio: ['ignore', 'pipe', 'inherit'] });
  const done = new Promise<number | null>((resolve) => child.on('exit', resolve));
  return new Promise((resolve, reject) => {
    child.stdout.on('data', (d: Buffer) => d.toString().includes('locked') && resolve({ done }));
    child.on('exit', (c) => reject(new Error(`the writer ended (${c}) before it held the lock`)));
  });
}

describe('the settings check on opening the queue', () => {
  it('waits for another process that is writing, then records the new settings', async () => {
    const file = join(work, 'queue.db');
    const { db } = openQueueDatabase(file);
    const queue = new UploadQueue(db);
    try {
      expect(dueOnSettingsChange(queue, config('key-1'))).toEqual({ captures: 0, files: 0 });
      const other = await writerHolding(file, 800);
      // Another key: the check reads the stored fingerprint, then writes the new one.
      expect(() => dueOnSettingsChange(queue, config('key-2'))).not.toThrow();
      expect(await other.done).toBe(0);
      expect(queue.meta.get('other')).toBe(1);
      expect(dueOnSettingsChange(queue, config('key-2'))).toEqual({ captures: 0, files: 0 });
    } finally {
      db.close();
    }
  });
});
