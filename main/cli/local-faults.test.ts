import { describe, expect, it } from 'vitest';
import { plainFault } from './local-faults.js';

// The sentences a fault reaching the command line is said in: what is wrong, where, and the fix,
// never SQLite's own words alone. (As root, which CI runs as, permissions cannot be refused, so
// the errors are the ones better-sqlite3 throws, made here.)

const sqliteError = (code: string, message: string) => Object.assign(new Error(message), { code });

describe('plainFault', () => {
  it('explains a queue that cannot even be opened to read (status on a folder this user cannot write)', () => {
    const said = plainFault(sqliteError('SQLITE_CANTOPEN', 'unable to open database file'), '/srv/site/queue-data');
    expect(said).toBe(
      'The upload queue /srv/site/queue-data/queue.db cannot be opened, not even to read it: this user cannot write its folder /srv/site/queue-data (SQLite keeps a shared-memory file beside the queue) or read the file itself. Run as the user who owns it, or give this user read and write permission to the folder, and run again. Nothing was changed.',
    );
    expect(said).not.toContain('unable to open database file');
  });

  it('keeps any other message as it is', () => {
    expect(plainFault(new Error('Something else went wrong'), '/srv/q')).toBe('Something else went wrong');
  });
});
