import { execFileSync } from 'node:child_process';
import { mkdtempSync, openSync, closeSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { LocalFileError } from '../../api/errors.js';
import { bytesMd5Etag, cardDeadline } from './part-put.js';

// A look at a file on a card that never answers (a card half out of its reader, a dead network
// share) is given up at its deadline as a device error (ETIMEDOUT), which the engine tries again
// after 2, 5 and 10 s and then fails as unreadable (pulled-cards.ts), instead of waiting for ever.
// A named pipe with no writer plays such a card: opening it for reading blocks until one comes.

const dir = mkdtempSync(join(tmpdir(), 'card-deadline-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('a card that never answers a read', () => {
  it('is given up at the deadline as ETIMEDOUT, naming the file', async () => {
    const fifo = join(dir, 'VID_stuck.insv');
    execFileSync('mkfifo', [fifo]);
    const started = performance.now();
    const err = await bytesMd5Etag(fifo, 0, 1024, 300).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LocalFileError);
    expect((err as LocalFileError).code).toBe('ETIMEDOUT');
    expect((err as Error).message).toMatch(
      /VID_stuck\.insv cannot be read \(ETIMEDOUT\): the card or drive stopped answering/,
    );
    expect(performance.now() - started).toBeLessThan(2000);
    // The blocked open is let go (a writer comes), so no thread of the pool stays stuck after the test.
    closeSync(openSync(fifo, 'w'));
  });

  it('passes an answer, and a failure, through unchanged', async () => {
    await expect(cardDeadline('/x', Promise.resolve(7), 100)).resolves.toBe(7);
    const boom = new Error('EIO');
    await expect(cardDeadline('/x', Promise.reject(boom), 100)).rejects.toBe(boom);
  });
});
