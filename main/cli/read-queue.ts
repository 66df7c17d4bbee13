import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { withQueueFileReadOnly } from '../queue/reader.js';
import type { UploadQueue } from '../queue/queue.js';

// `status` and `log` read the queue without the lock and without credentials: SQLite's WAL lets a
// reader see the last committed state while a drain writes, and nothing here writes.

/**
 * Runs `read` over the queue in `dataDir` (CAPTURE_DATA_DIR, default ~/.capture-uploader), opened
 * read-only, and closes it (main/queue/reader.ts withQueueFileReadOnly). Throws Error naming the
 * file when there is no queue there, it is damaged, or it needs a newer or older version.
 */
export function withQueueReadOnly<T>(dataDir: string | undefined, read: (queue: UploadQueue) => T): T {
  return withQueueFileReadOnly(
    join(resolve(dataDir ?? process.env.CAPTURE_DATA_DIR ?? join(homedir(), '.capture-uploader')), 'queue.db'),
    read,
  );
}
