import type Database from 'better-sqlite3';
import { cardPrefix, remapToCard } from '../card/card-root.js';
import type { QueueMeta } from './meta.js';
import type { FileRowRaw, QueuedFile } from './rows.js';
import { toFile } from './rows.js';
import { statementCache } from './statements.js';

/**
 * A card pulled out while its recordings were uploading straight from it:
 * where it was mounted (`root`), its folder name, the volume's UUID when the system gave one
 * (card-root.ts volumeIdOf), since when it is missing (ISO 8601), and the queue's files on it
 * then (ids). Files, not a path prefix, wait: another card mounted at the same path meanwhile
 * (two cards with the same label) uploads as usual.
 */
export interface RemovedCard {
  root: string;
  name: string;
  volumeId: string | null;
  since: string;
  files: number[];
}

/** The removed cards' figures for the queue's state: how many cards, and the recordings (captures) with a file left on them. */
export interface CardWait {
  cards: number;
  recordings: number;
  /** The cards' names (their folder or volume label, RemovedCard.name), oldest first: what a person reads on the card. */
  names: string[];
}

/** Stored under this `queue_meta` key as JSON: a list of RemovedCard. No migration: queue_meta (migration 3) holds it. */
const KEY = 'removedCards';

/** Files not finished yet: what still has to be read from a card. */
const UNFINISHED = `state NOT IN ('completed', 'cancelled') AND replaced_by IS NULL`;
/** Files whose id is in the JSON array bound as the parameter (one fixed statement, whatever the count). */
const AMONG = 'id IN (SELECT value FROM json_each(?))';

/**
 * The cards the queue waits for, kept in `queue_meta` so the wait outlives a restart and the
 * CLI's `status` (a read-only reader) says it too. A file on a removed card keeps its state
 * (`pending`, its stored parts kept) and is simply not started (QueueSchedule.dueFiles's
 * `waiting`) until the card is back and its paths are remapped (`remap`).
 * Throws better-sqlite3's SqliteError on a storage failure.
 */
export class RemovedCards {
  private readonly sql: (text: string) => Database.Statement;

  constructor(
    private readonly db: Database.Database,
    private readonly meta: QueueMeta,
  ) {
    this.sql = statementCache(db);
  }

  /** The cards waited for, oldest first. */
  list(): RemovedCard[] {
    return this.meta.get<RemovedCard[]>(KEY) ?? [];
  }

  /** The ids of the files waiting for their card: none of them is started. */
  waitingFiles(): number[] {
    return this.list().flatMap((c) => c.files);
  }

  /**
   * Adds the card pulled out from `card.root` to the wait, with file `also` (whose read failed) and
   * every other unfinished file of the queue on it now. Answers whether the card is new to the
   * wait; a file already waiting changes nothing.
   */
  add(card: Omit<RemovedCard, 'files'>, also: number): boolean {
    const cards = this.list();
    const waiting = new Set(cards.flatMap((c) => c.files));
    if (waiting.has(also)) return false;
    // A file held for its verified copy (copy-holds.ts) reads nothing from the card: it waits for its copy, not for the card.
    const onCard = (
      this.sql(`SELECT id FROM files WHERE ${UNFINISHED} AND awaiting_copy = 0 AND instr(path, ?) = 1 ORDER BY id`).all(
        cardPrefix(card.root),
      ) as { id: number }[]
    )
      .map((r) => r.id)
      .filter((id) => id !== also && !waiting.has(id));
    const same = cards.find((c) => c.root === card.root);
    if (same) same.files.push(also, ...onCard);
    this.meta.set(KEY, same ? cards : [...cards, { ...card, files: [also, ...onCard] }]);
    return same === undefined;
  }

  /** Ends the wait for the card at `root` (no file of it is left, or it is back). */
  drop(root: string): void {
    const left = this.list().filter((c) => c.root !== root);
    if (left.length) this.meta.set(KEY, left);
    else this.meta.delete(KEY);
  }

  /** The unfinished files waiting for `card`, by id. */
  unfinishedOf(card: RemovedCard): QueuedFile[] {
    return (
      this.sql(`SELECT * FROM files WHERE ${UNFINISHED} AND ${AMONG} ORDER BY id`).all(
        JSON.stringify(card.files),
      ) as FileRowRaw[]
    ).map(toFile);
  }

  /** How many cards are waited for, and the recordings with a file left on them. */
  waiting(): CardWait {
    return cardWait(this.sql, this.list());
  }

  /**
   * The card once at `card.root` is back at `to`, its identity confirmed: in one transaction,
   * every file that waited for it gets its path on the new mount (and, where given in `seen`, the
   * device, inode and status-change time it has there, so the next checks read nothing again),
   * and the wait ends. Answers the files moved that are not finished.
   */
  remap(
    card: RemovedCard,
    to: string,
    seen: ReadonlyMap<number, { dev: string; ino: string; ctimeNs: string }>,
  ): QueuedFile[] {
    return this.db.transaction(() => {
      const rows = this.sql(`SELECT id, path FROM files WHERE ${AMONG}`).all(JSON.stringify(card.files)) as {
        id: number;
        path: string;
      }[];
      const setPath = this.sql('UPDATE files SET path = ? WHERE id = ?');
      const setIdentity = this.sql('UPDATE files SET dev = ?, ino = ?, ctime_ns = ? WHERE id = ?');
      for (const r of rows) {
        setPath.run(remapToCard(r.path, card.root, to) ?? r.path, r.id);
        const s = seen.get(r.id);
        if (s) setIdentity.run(s.dev, s.ino, s.ctimeNs, r.id);
      }
      this.drop(card.root);
      return this.unfinishedOf(card);
    })();
  }
}

/**
 * The figures of CardWait for `cards`, with the queue's own statements (totals.ts reads it inside
 * its snapshot). A card with no unfinished file left (its captures removed meanwhile) counts for nothing.
 */
export function cardWait(
  sql: (text: string) => Database.Statement,
  cards: readonly RemovedCard[] = removedCardsIn(sql),
): CardWait {
  let count = 0;
  let recordings = 0;
  const names: string[] = [];
  for (const c of cards) {
    const r = sql(`SELECT COUNT(DISTINCT capture_row) AS n FROM files WHERE ${UNFINISHED} AND ${AMONG}`).get(
      JSON.stringify(c.files),
    ) as { n: number };
    if (r.n === 0) continue;
    count++;
    recordings += r.n;
    names.push(c.name);
  }
  return { cards: count, recordings, names };
}

/** The removed cards as stored, read with the given statements. */
function removedCardsIn(sql: (text: string) => Database.Statement): RemovedCard[] {
  const r = sql('SELECT value FROM queue_meta WHERE key = ?').get(KEY) as { value: string } | undefined;
  return r ? (JSON.parse(r.value) as RemovedCard[]) : [];
}
