import { closeSync, fsyncSync, openSync, rmSync, statSync, writeSync } from 'node:fs';

/** Bytes kept in reserve beside queue.db: far more than one capture's registration commits (its part rows and their WAL frames). */
export const ANSWER_RESERVE_BYTES = 2 * 1024 * 1024;

/**
 * Room on the queue's disk kept for the answer to an add-capture (§4.4): a file of
 * `ANSWER_RESERVE_BYTES` written in full (not sparse) beside queue.db, `queue.db.reserve`.
 * add-capture is not idempotent, so an answer the queue cannot record leaves a capture the
 * platform holds and the queue does not know: the registrar sends a registration only while the
 * reserve is in place, and when committing the answer fails for room, it releases the reserve
 * (deletes it) and commits again (docs/decisions/0008-answer-reserve.md).
 *
 * A queue in memory (`:memory:`, tests) has no folder: the reserve is always "in place".
 */
export class AnswerReserve {
  readonly file: string | undefined;

  /** `queueFile`: the path of queue.db (better-sqlite3's `db.name`), or `:memory:`. */
  constructor(
    queueFile: string,
    private readonly bytes = ANSWER_RESERVE_BYTES,
  ) {
    this.file = queueFile === '' || queueFile === ':memory:' ? undefined : `${queueFile}.reserve`;
  }

  /**
   * Makes sure the reserve is in place, writing it (zeros, then fsync) when it is missing or short.
   * Answers false when the disk has no room for it (ENOSPC, EDQUOT, EFBIG): a partial file is
   * removed, so it takes no room. Throws any other error of writing it (EACCES, EROFS, EIO).
   */
  ensure(): boolean {
    if (!this.file) return true;
    try {
      if (statSync(this.file).size >= this.bytes) return true;
    } catch {
      // not there yet: written below
    }
    try {
      const fd = openSync(this.file, 'w');
      try {
        const zeros = Buffer.alloc(Math.min(this.bytes, 1024 * 1024));
        for (let at = 0; at < this.bytes; at += zeros.length)
          writeSync(fd, zeros, 0, Math.min(zeros.length, this.bytes - at), at);
        fsyncSync(fd);
      } finally {
        closeSync(fd);
      }
      return true;
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'ENOSPC' || code === 'EDQUOT' || code === 'EFBIG') {
        rmSync(this.file, { force: true });
        return false;
      }
      throw err;
    }
  }

  /** Deletes the reserve, giving its room to the queue. Answers whether there was one to release. Never throws. */
  release(): boolean {
    if (!this.file) return false;
    try {
      statSync(this.file);
      rmSync(this.file, { force: true });
      return true;
    } catch {
      return false;
    }
  }
}
