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

  it('an I/O error where the disk has room is the disk failing, named; memory refused says so', () => {
    // /tmp has more than the 64 MB the queue asks for on this machine.
    expect(plainFault(sqliteError('SQLITE_IOERR_READ', 'disk I/O error'), '/tmp')).toBe(
      'The disk holding /tmp failed to read or write /tmp/queue.db (SQLITE_IOERR_READ: disk I/O error): check the disk (its health, its cable), then run again. Nothing was marked failed; nothing queued was lost.',
    );
    expect(plainFault(sqliteError('ENOMEM', 'Cannot allocate memory'), '/tmp')).toBe(
      'This computer ran out of memory (ENOMEM): close other programs, or run with a lower --concurrency, then run again. Nothing was marked failed; nothing queued was lost.',
    );
  });

  it('keeps any other message as it is', () => {
    expect(plainFault(new Error('Something else went wrong'), '/srv/q')).toBe('Something else went wrong');
  });
});
