import Database from 'better-sqlite3';
import { existsSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { QUEUE_CORE_TABLES, queueDamage } from '../queue/db.js';
import { LATEST_VERSION } from '../queue/migrations/index.js';
import { UploadQueue } from '../queue/queue.js';

// `status` and `log` read the queue without the lock and without credentials: SQLite's WAL lets a
// reader see the last committed state while a drain writes, and nothing here writes.

/**
 * Runs `read` over the queue in `dataDir` (CAPTURE_DATA_DIR, default ~/.capture-uploader), opened
 * read-only, and closes it. Throws Error naming the file when there is no queue there, it is
 * damaged (queueDamage: said with the fix, left where it is), or it needs a newer or older version.
 */
export function withQueueReadOnly<T>(dataDir: string | undefined, read: (queue: UploadQueue) => T): T {
  const file = join(resolve(dataDir ?? process.env.CAPTURE_DATA_DIR ?? join(homedir(), '.capture-uploader')), 'queue.db');
  const none = `No upload queue at ${file} yet: add files first (or give --data-dir).`;
  if (!existsSync(file)) throw new Error(none);
  const sizeBefore = statSync(file).size;
  const walOrShmBefore = existsSync(`${file}-wal`) || existsSync(`${file}-shm`);
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    const version = db.pragma('user_version', { simple: true }) as number;
    // Never taken for an empty queue, nor for one "from an older version" (db.ts queueDamage);
    // moving it aside is for a command that takes the lock, not for this reader.
    const damage = queueDamage(db, { sizeBefore, walOrShmBefore, usedBefore: existsSync(join(dirname(file), 'queue.lock')), coreTables: QUEUE_CORE_TABLES });
    if (damage && version <= LATEST_VERSION) {
      throw new Error(
        `The upload queue ${file} is damaged: ${damage}. Run \`capture-uploader drain\` (or start the app) to move it aside and start a new queue; nothing was changed.`,
      );
    }
    if (version === 0) throw new Error(none);
    if (version !== LATEST_VERSION) {
      throw new Error(
        version > LATEST_VERSION
          ? `The upload queue ${file} was written by a newer version of Capture Uploader (schema ${version}); install it to read this queue.`
          : `The upload queue ${file} is from an older version (schema ${version}); run \`capture-uploader drain\` once to bring it up to date.`,
      );
    }
    return read(new UploadQueue(db));
  } finally {
    db.close();
  }
}
