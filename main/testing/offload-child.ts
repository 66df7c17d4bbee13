import type { ChildProcess } from 'node:child_process';
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, vi } from 'vitest';
import { writeFakeCard } from '../card/fake-card.js';
import type { OffloadRecorder } from '../offload/record.js';

// A card's offload run by another process, the way an app or an `import` stopped mid-copy is:
// its record says `copying` and its lock (main/queue/lock.ts lockOffload) is held until the test
// kills it, as the system drops a killed process's lock.

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/**
 * An offload of a fake card (2 recordings unless told) written at `card` into `library`, run by another process and
 * stuck on its last file's write (a copy still being written), recorded in the queue in `dataDir`
 * as it goes (OffloadRecorder) with the queue open on its own connection, not holding the queue's
 * lock (as the app while it reopens its queue). Answers its id, destination, the `.partial` being
 * written, and the process (the test kills it).
 */
export async function stuckInAnotherProcess(o: {
  dataDir: string;
  library: string;
  card: string;
  at: string;
  recordings?: number;
}): Promise<{ id: number; dest: string; partial: string; child: ChildProcess }> {
  const { dataDir, library, at } = o;
  const card = writeFakeCard(o.card, { recordings: o.recordings ?? 2 });
  const last = card.recordings.at(-1)!.split('/').pop()!;
  const mod = (p: string) => JSON.stringify(join(ROOT, p));
  const code = `
    const { openQueueDatabase } = await import(${mod('main/queue/db.ts')});
    const { offloadCard } = await import(${mod('main/offload/offload.ts')});
    const { OffloadRecorder, listOffloads } = await import(${mod('main/offload/record.ts')});
    const { db } = openQueueDatabase(${JSON.stringify(join(dataDir, 'queue.db'))});
    const journal = new OffloadRecorder(() => db);
    void offloadCard(${JSON.stringify(card.root)}, {
      library: ${JSON.stringify(library)},
      journal,
      now: () => new Date(${JSON.stringify(at)}),
      afterWrite: async (partial, copy) => {
        if (!copy.endsWith(${JSON.stringify(`/${last}`)})) return;
        process.stdout.write(JSON.stringify({ id: journal.id, dest: listOffloads(db).find((o) => o.id === journal.id).destination, partial }) + '\\n');
        setInterval(() => undefined, 60_000); // lives, stuck, until killed
        await new Promise(() => undefined);
      },
    });`;
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', code], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const line = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.includes('\n')) resolve(out.split('\n')[0]!);
    });
    child.on('exit', (c) => reject(new Error(`the offload's process ended (${c}) before it was stuck`)));
  });
  const { id, dest, partial } = JSON.parse(line) as { id: number; dest: string; partial: string };
  await vi.waitFor(() => expect(existsSync(partial)).toBe(true));
  return { id, dest, partial, child };
}

/** Kills `child` (SIGKILL) and resolves once it is gone; at once when it is gone already. */
export const killed = (child: ChildProcess) =>
  new Promise<void>((resolve) =>
    child.exitCode !== null || child.signalCode !== null
      ? resolve()
      : (child.once('exit', () => resolve()), child.kill('SIGKILL')),
  );

/**
 * Drops the offload locks of the imports an app's card imports (`cards`, main/service/card-imports.ts)
 * still runs, as the end of the app's process would: for a test that stands in for a restart with
 * a new app in this process while the old one's stuck import lives on.
 */
export function dropImportLocks(cards: { copies: unknown }): void {
  for (const i of (cards.copies as { imports: Map<number, { record?: OffloadRecorder }> }).imports.values())
    i.record?.abandon();
}
