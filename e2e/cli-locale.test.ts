import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CLI_ENTRY, ROOT, useWorkDir } from '../main/testing/kit.js';
import { queueIn } from '../main/testing/queue-rows.js';

// The CLI's times follow the system's locale (LC_ALL, LC_TIME, LANG), and 24-hour ISO 8601 when
// none is set: with no locale the runtime's own default (en-US) wrote "12:03 AM" where the window
// says "00:03". `status` needs no credentials; the queue holds "Pause until" 00:03 tomorrow.

const work = useWorkDir('cli-locale');
const dir = join(work, 'q');
const queue = queueIn(dir);
const until = new Date();
until.setDate(until.getDate() + 1);
until.setHours(0, 3, 0, 0);
queue.meta.setHold('person', until.toISOString());
afterAll(() => queue.db.close());

/** `capture-uploader status` with the given locale variables and no other (LANG, LC_*) from this process. */
function status(locale: Record<string, string>): Promise<string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env))
    if (v !== undefined && k !== 'LANG' && k !== 'LANGUAGE' && !k.startsWith('LC_')) env[k] = v;
  return new Promise((resolve, reject) =>
    execFile(
      process.execPath,
      ['--import', 'tsx', CLI_ENTRY, '--data-dir', dir, 'status'],
      { cwd: ROOT, env: { ...env, ...locale, NODE_NO_WARNINGS: '1' }, timeout: 60_000 },
      (err, stdout, stderr) => (err ? reject(new Error(`${err.message}\n${stderr}`)) : resolve(stdout)),
    ),
  );
}

describe('CLI times', () => {
  it('with no locale set: 24-hour ISO 8601', async () => {
    expect(await status({})).toMatch(/Paused until \d{4}-\d{2}-\d{2} 00:03\b/);
  });

  it('C.UTF-8, a bare system: 24-hour ISO 8601 too', async () => {
    expect(await status({ LANG: 'C.UTF-8' })).toMatch(/Paused until \d{4}-\d{2}-\d{2} 00:03\b/);
  });

  it("follow the system's locale: LANG, and LC_ALL before it", async () => {
    expect(await status({ LANG: 'en_US.UTF-8' })).toMatch(/Paused until \S+ \d+ 12:03\sAM\b/);
    expect(await status({ LANG: 'en_US.UTF-8', LC_ALL: 'en_GB.UTF-8' })).toMatch(/Paused until \d+ \S+ 00:03\b/);
  });
});
