import { mkdirSync, readFileSync, readdirSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ImportView } from '../../shared/ipc.js';
import { writeFakeCard } from '../card/fake-card.js';
import { openQueueDatabase } from '../queue/db.js';
import { SupportLog } from '../support/log-file.js';
import { useWorkDir } from '../testing/kit.js';
import { CardImports } from './card-imports.js';

// The support log tells a card's story, a line per step, so support can read what happened to a
// card without the engine's events: inserted, import started, copied and verified (bytes and
// time), transfer report written, safe to remove, ejected.

const work = useWorkDir('card-imports-log-test');
let cardImports: CardImports | undefined;
afterEach(() => cardImports?.close());

const until = async (ok: () => boolean, what: string) => {
  for (let i = 0; i < 400 && !ok(); i++) await new Promise((r) => setTimeout(r, 25));
  if (!ok()) throw new Error(`timed out waiting for ${what}`);
};

describe("the support log's lines of a card", () => {
  it('inserted, import started, copied and verified with bytes and time, transfer report written, safe to remove, ejected', async () => {
    const mounts = join(work, 'media');
    mkdirSync(mounts, { recursive: true });
    const { db } = openQueueDatabase(join(work, 'queue.db'));
    const store = new Map<string, unknown>([
      ['library', { library: join(work, 'library'), keepDays: 7, uploadFromCard: false }],
    ]);
    const support = new SupportLog({ dir: join(work, 'logs'), source: 'service' });
    const imports: ImportView[] = [];
    cardImports = new CardImports({
      roots: [mounts],
      pollMs: 50,
      store: { get: (k) => store.get(k), set: (k, v) => store.set(k, v) },
      queueDb: () => db,
      log: support.tee(),
      eject: async () => ({ ejected: true, message: 'X4_LOG was ejected: you can take it out of the reader.' }),
      emit: (event, payload) => {
        if (event === 'capture:event.import') imports.push(payload as ImportView);
      },
    });
    cardImports.start();
    writeFakeCard(join(work, 'X4_LOG'), { recordings: 2, bytes: 3000 });
    const root = join(mounts, 'X4_LOG');
    renameSync(join(work, 'X4_LOG'), root);
    await until(() => cardImports!.list().cards.length === 1, 'the card');
    const { id } = cardImports.startImport(root);
    await until(() => imports.at(-1)?.safeToRemove === true, 'safe to remove');
    await cardImports.eject(id);

    const [file] = readdirSync(join(work, 'logs'));
    const lines = readFileSync(join(work, 'logs', file!), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { level: string; message: string })
      .filter((l) => l.message.includes('X4_LOG'));
    const last = imports.at(-1)!;
    // The card's four lens files and its five others (two previews, two thumbnails, MISC/version.txt).
    const bytes = 4 * 3000 + 2 * (512 + 64) + 8;
    expect(last.bytesDone).toBe(bytes);
    expect(lines.map((l) => l.message)).toEqual([
      `Card X4_LOG inserted at ${root}: Insta360 card, 2 recordings, 11.7 KiB.`,
      `Import of card X4_LOG started: Insta360 card, 2 recordings, 11.7 KiB into ${join(work, 'library')}.`,
      expect.stringMatching(
        new RegExp(
          `^Card X4_LOG: 4 files and 5 other files, ${bytes} bytes \\(12\\.9 KiB\\), copied and verified in \\d+\\.\\d s into ${last.destination!.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\.$`,
        ),
      ),
      `Card X4_LOG: transfer report written to ${last.reportPath}.`,
      expect.stringMatching(/^Card X4_LOG safe to remove, \d+\.\d s after Import\.$/),
      'Card X4_LOG ejected: X4_LOG was ejected: you can take it out of the reader.',
    ]);
    expect(lines.every((l) => l.level === 'info')).toBe(true);
    db.close();
  });
});
