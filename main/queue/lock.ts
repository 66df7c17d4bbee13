import { closeSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';

/** Another process holds the queue; nothing was opened. */
export class QueueInUseError extends Error {
  override readonly name = 'QueueInUseError';
  constructor(
    readonly dir: string,
    readonly pid: number,
  ) {
    super(`The upload queue in ${dir} is in use by another Capture Uploader (process ${pid}). Close it, or wait for it to finish, and try again.`);
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Takes the queue folder's lock file (`queue.lock`, holding this process id) so that one process
 * is the queue's only writer. A lock left by a process that no longer runs (killed, crashed) is
 * taken over. Returns the release function. Throws QueueInUseError when a live process holds it.
 */
export function lockQueue(dir: string, file = `${dir}/queue.lock`): () => void {
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(file, 'wx');
      writeSync(fd, String(process.pid));
      closeSync(fd);
      return () => rmSync(file, { force: true });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const pid = Number(readFileSync(file, 'utf8').trim());
      if (Number.isInteger(pid) && pid > 0 && pid !== process.pid && alive(pid)) throw new QueueInUseError(dir, pid);
      rmSync(file, { force: true }); // stale: its process is gone
    }
  }
  throw new QueueInUseError(dir, NaN);
}
