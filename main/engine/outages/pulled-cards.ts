import { basename, dirname } from 'node:path';
import { cardPresent, cardRootOf, remapToCard, volumeIdOf } from '../../card/card-root.js';
import { listCardRoots, mountRoots, windowsDrives } from '../../intake/detect.js';
import { contentFingerprint, fileFacts } from '../../intake/file-identity.js';
import type { QueuedFile } from '../../queue/queue.js';
import type { RemovedCard } from '../../queue/removed-cards.js';
import { RemovedCards } from '../../queue/removed-cards.js';
import { cardRemovedState } from '../../../shared/queue-state.js';
import type { EngineContext } from '../context.js';
import type { CardWatchOptions } from '../events.js';

/** The read errors of a device going away, or of a mount left stale by it. */
// ETIMEDOUT: a look at the file its card never answered (part-put.ts CARD_READ_DEADLINE_MS).
const DEVICE_ERRORS = new Set(['EIO', 'ENXIO', 'ENODEV', 'ESTALE', 'ETIMEDOUT']);
/** Default waits (ms) before each new try after a device error while the card still looks mounted. */
const DEVICE_RETRY_MS = [2000, 5000, 10_000];

/**
 * "Upload straight from the card": a card pulled out while its recordings
 * upload is one wait for the card, not a failure per file. A file that cannot be read while its
 * card's root is gone (or left as an empty mount point) goes back to `pending` with its stored
 * parts kept, no attempt counted; the card is listed in the queue (RemovedCards) and none of its
 * files is started. While a drain runs, the mount folders are watched (the same listing as card
 * detection); a card that appears there is checked to be the same card (its volume UUID where
 * the system gives one; otherwise every unfinished file at the same place in it, with the same
 * size, modification time and fingerprint of its first and last MiB, as queued), then the queue's
 * paths are remapped to where it is now and the uploads resume, without a click, whatever mount
 * path or device number it came back with.
 */
export class PulledCards {
  readonly cards: RemovedCards;
  private timer?: NodeJS.Timeout;
  private watching = false;
  private generation = 0;
  /** Volume UUIDs of card roots seen while mounted (root → UUID or null): a pulled card can no longer be asked. */
  private readonly volumes = new Map<string, string | null>();
  /** Candidates already found not to be a card waited for ("card root\0candidate"), until they go away. */
  private readonly rejected = new Set<string>();
  /** Device errors met per file (id) while its card still looked mounted, for deviceRetryMs. */
  private readonly deviceErrors = new Map<number, number>();

  constructor(
    private readonly ctx: EngineContext,
    private readonly opts: CardWatchOptions,
    /** Has the drain look at the queue again (a card came back). */
    private readonly wake: () => void,
  ) {
    this.cards = new RemovedCards(ctx.queue.db, ctx.queue.meta);
  }

  /** The files waiting for their card (ids): none of them is started. */
  waitingFiles(): number[] {
    return this.cards.waitingFiles();
  }

  /** Whether some card is waited for that still has unfinished files (a drain with `wait` then waits for it). */
  waiting(): boolean {
    return this.cards.waiting().cards > 0;
  }

  /** The queue state's words for the cards waited for ("Card removed: put it back to continue (2 recordings waiting)"), or null. */
  waitLine(): string | null {
    const wait = this.cards.waiting();
    return wait.cards > 0 ? cardRemovedState(wait).headline : null;
  }

  /**
   * Notes the volume UUID of the card a file is about to be read from, while it can still be asked
   * (read again at each start: another card may be mounted at the same path since). Never throws.
   */
  starting(f: QueuedFile): void {
    const root = cardRootOf(f.path);
    if (root !== null) this.volumes.set(root, volumeIdOf(root));
  }

  /**
   * A file's upload ended because the file could not be read (LocalFileError): when its card is
   * gone, the file goes back to `pending` to wait for the card (the card listed once, with one
   * activity line) and this answers true; otherwise false, and the file fails as before.
   * Throws SqliteError when the queue cannot be written.
   */
  waitIfPulled(f: QueuedFile): boolean {
    const root = cardRootOf(f.path);
    if (root === null || cardPresent(root)) return false;
    this.deviceErrors.delete(f.id); // put back later, its reads start afresh
    const card = {
      root,
      name: basename(root) || root,
      volumeId: this.volumes.get(root) ?? null,
      since: new Date().toISOString(),
    };
    if (this.cards.add(card, f.id)) {
      const message = `Card ${card.name} was removed from ${root}: put it back to continue; its recordings resume by themselves, nothing is lost`;
      this.ctx.log.warn(message);
      this.ctx.transitions.note({ kind: 'card-removed', message }, card.name);
    }
    // No attempt counted, no retry time: the file waits for its card, not for a schedule.
    this.ctx.transitions.file(f.id, ['uploading'], 'pending', { error: null });
    this.watch();
    return true;
  }

  /**
   * A file's read failed with `code` and its card was not found gone (waitIfPulled answered
   * false): for a device error (EIO, ENXIO, ENODEV, ESTALE, what a card half out of its reader or
   * a stale mount answers before the mount goes, or ETIMEDOUT, a look at it never answered) the wait in ms before it is tried again, up to
   * `deviceRetryMs.length` times per file while this engine runs; null otherwise (the file fails
   * as unreadable). If the card is gone by the next try, that try finds it so and the file waits
   * for the card instead.
   */
  deviceRetryMs(f: QueuedFile, code: string): number | null {
    if (!DEVICE_ERRORS.has(code)) return null;
    const waits = this.opts.deviceRetryMs ?? DEVICE_RETRY_MS;
    const n = this.deviceErrors.get(f.id) ?? 0;
    if (n >= waits.length) {
      this.deviceErrors.delete(f.id);
      return null;
    }
    this.deviceErrors.set(f.id, n + 1);
    return waits[n]!;
  }

  /** Starts watching the mount folders while a card is waited for (a drain begins or a card was pulled). */
  watch(): void {
    if (this.watching || this.cards.list().length === 0) return;
    this.watching = true;
    // A look still running from a watch stopped and started again (one drain ending, the next
    // beginning) ends with its own generation: two loops never remap the same card.
    const generation = ++this.generation;
    const tick = async () => {
      try {
        await this.look();
      } catch (err) {
        if (!this.ctx.fatal(err)) this.ctx.log.warn(`Looking for a removed card failed: ${String(err)}`);
      }
      if (this.watching && generation === this.generation)
        this.timer = setTimeout(() => void tick(), this.opts.intervalMs ?? 2000);
    };
    this.timer = setTimeout(() => void tick(), 0);
  }

  /** Stops watching (the drain ended); the cards stay waited for in the queue. */
  stop(): void {
    this.watching = false;
    clearTimeout(this.timer);
  }

  private async look(): Promise<void> {
    let cards = this.cards.list();
    // A card whose captures were removed meanwhile is no longer waited for.
    for (const c of cards) if (this.cards.unfinishedOf(c).length === 0) this.cards.drop(c.root);
    cards = this.cards.list();
    if (cards.length === 0) return this.stop();
    const roots = [...(this.opts.mountRoots ?? mountRoots()), ...cards.map((c) => dirname(c.root))];
    const volumes = [
      ...cards.map((c) => c.root),
      ...(process.platform === 'win32' && !this.opts.mountRoots ? windowsDrives() : []),
    ];
    const present = await listCardRoots([...new Set(roots)], volumes);
    for (const key of this.rejected) if (!present.includes(key.split('\0')[1]!)) this.rejected.delete(key);
    for (const card of cards) {
      for (const at of present) {
        const key = `${card.root}\0${at}`;
        if (this.rejected.has(key)) continue;
        const seen = await this.sameCard(card, at);
        if (seen === 'unsure') continue; // being mounted or read badly: looked at again next time
        if (seen === 'other') {
          this.rejected.add(key);
          continue;
        }
        this.back(card, at, seen);
        break;
      }
    }
  }

  /**
   * Whether the card mounted at `at` is `card`: 'other' when its volume UUID differs or a file
   * waited for is missing there or differs; 'unsure' when a file could not be read; else what
   * each unfinished file's device, inode and status-change time are there.
   */
  private async sameCard(
    card: RemovedCard,
    at: string,
  ): Promise<Map<number, { dev: string; ino: string; ctimeNs: string }> | 'other' | 'unsure'> {
    const volumeId = volumeIdOf(at);
    if (card.volumeId !== null && volumeId !== null && card.volumeId !== volumeId) return 'other';
    const seen = new Map<number, { dev: string; ino: string; ctimeNs: string }>();
    for (const f of this.cards.unfinishedOf(card)) {
      const path = remapToCard(f.path, card.root, at)!;
      let facts;
      try {
        facts = await fileFacts(path);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ENOENT' || (err as NodeJS.ErrnoException).code === 'ENOTDIR')
          return 'other';
        return 'unsure';
      }
      if (facts.size !== f.size || Math.trunc(facts.mtimeMs) !== Math.trunc(f.mtimeMs)) return 'other';
      // The same volume UUID settles it; otherwise the content does (names, sizes, first and last MiB).
      if (!(card.volumeId !== null && volumeId === card.volumeId) && f.fingerprint) {
        try {
          if ((await contentFingerprint(path, f.size)) !== f.fingerprint) return 'other';
        } catch {
          return 'unsure';
        }
      }
      seen.set(f.id, { dev: facts.dev, ino: facts.ino, ctimeNs: facts.ctimeNs });
    }
    return seen;
  }

  /** The card is back at `at`: its files' paths remapped in one transaction, announced, and the drain woken. */
  private back(card: RemovedCard, at: string, seen: Map<number, { dev: string; ino: string; ctimeNs: string }>): void {
    const files = this.ctx.queue.transaction(() => {
      // Another look may have found it back first: remapped once, said once.
      if (!this.cards.list().some((c) => c.root === card.root && c.since === card.since)) return undefined;
      const moved = this.cards.remap(card, at, seen);
      const where = at === card.root ? `at ${at}` : `at ${at} (it was at ${card.root})`;
      const recordings = new Set(moved.map((f) => f.captureRow)).size;
      this.ctx.transitions.note(
        { kind: 'card-back', message: `Card ${card.name} is back ${where}: ${recordings} recording(s) resume` },
        card.name,
      );
      return moved;
    })();
    if (!files) return;
    this.ctx.log.info(`Card ${card.name} is back at ${at}; ${files.length} file(s) resume`);
    this.volumes.set(at, volumeIdOf(at));
    for (const f of files) this.ctx.transitions.announceFile(f);
    this.wake();
  }
}
