import { existsSync } from 'node:fs';
import type {
  DetectedCardView,
  EventName,
  EventPayload,
  ImportView,
  LibrarySettings,
  LibraryView,
} from '../../shared/ipc.js';
import { reasonOf } from '../api/errors.js';
import { mountRoots, watchCards, windowsDrives } from '../intake/detect.js';
import { describeCard } from '../../shared/card-offer.js';
import { formatBytes } from '../../shared/format.js';
import type { EjectResult } from '../card/eject.js';
import { ejectCard } from '../card/eject.js';
import type { Logger } from '../engine/engine.js';
import type { CardImportOptions } from '../offload/card-import.js';
import { runCardImport } from '../offload/card-import.js';
import { libraryUsage } from '../offload/library-usage.js';
import { findKnownCopies } from '../offload/known-copies.js';
import type { OffloadedFile } from '../offload/offload.js';
import { settleCopyHolds } from '../queue/copy-holds.js';
import type { QueueDatabase } from '../queue/db.js';
import { cardsInUse } from './cards-in-use.js';
import { ImportedCopies } from './imported-copies.js';
import { OffloadRecorder } from '../offload/record.js';
import { removeFinishedCopies } from '../offload/retention.js';
import { LibrarySettingsStore } from '../settings/library-settings.js';
import type { KeyValueStore } from '../settings/settings.js';

/** Where cards are looked for, and how often (tests give a folder of their own and a short poll). */
export interface CardWatchOptions {
  /** Folders whose sub-folders are candidate volumes; default main/intake/detect.ts mountRoots() (and the drive letters on Windows). */
  roots?: string[];
  /** Milliseconds between looks (default 2,000). */
  pollMs?: number;
  /**
   * Test seam for the browser tests, whose service runs in a worker (so it is a path, not a
   * function): each file's copy, once written, waits until this file exists before it is read
   * back, so a test can place recordings while their card is still being copied.
   */
  copyGate?: string;
}

/** What the card imports needs from the app core. */
export interface CardImportsOptions extends CardWatchOptions {
  store: KeyValueStore;
  emit<E extends EventName>(event: E, payload: EventPayload<E>): void;
  /** The queue's database while the queue is open: the offload record and the retention sweep live there. */
  queueDb(): QueueDatabase | undefined;
  log?: Logger;
  /**
   * Prunes the thumbnail cache (main/service/thumbnail-maker.ts `prune`) at each retention sweep;
   * `now` in ms since 1970. Answers how many entries went and the bytes freed.
   */
  pruneThumbnails?(now: number): Promise<{ removed: string[]; freedBytes: number }>;
  /** Test seams of the copy (main/offload/copy.ts). */
  copySeams?: Pick<CardImportOptions, 'afterWrite' | 'freeBytes'>;
  /** Queued files were moved to their verified copies or released from their hold (their captures' rows): the queue's rows changed and the uploads may start. */
  released?: (captureRows: number[]) => void;
  /** Ejects a card by its mount point (main/card/eject.ts ejectCard by default; tests give a stand-in). */
  eject?: (mountPoint: string) => Promise<EjectResult>;
  /** The cards mounted now, after each look that changed them (the capture plan places a card that matches it). */
  onCardsChanged?: (cards: readonly DetectedCardView[]) => void;
}

const DAY_MS = 24 * 60 * 60 * 1000;

/** The copy seam of CardWatchOptions.copyGate: waits until `path` exists, looking every 50 ms. */
const gateOn = (path: string) => async () => {
  while (!existsSync(path)) await new Promise((r) => setTimeout(r, 50));
};
/** How often copies past their retention are looked for while the app runs. */
const SWEEP_MS = 60 * 60 * 1000;

/**
 * The app's cards, in the upload service's worker: watches the mount folders and
 * tells the window which Insta360 cards are mounted (`capture:event.cards`), imports one into the
 * library folder on request with its progress as `capture:event.import`, keeps each offload's
 * record in the queue, and removes copies past their retention (main/offload/retention.ts) at
 * start and every hour. Each recording's part MD5s are kept as it verifies, and
 * the files a person placed from the card before then, held in the queue, are moved to the
 * verified copies (`copies`, settleHolds). The library settings (folder, days kept, upload straight from the card)
 * are kept in the settings file under `library`.
 */
export class CardImports {
  readonly library: LibrarySettingsStore;
  private cards: DetectedCardView[] = [];
  private readonly imports = new Map<number, ImportView>();
  private readonly busy = new Set<string>();
  /** Where the recordings of this session's imports are: what queued files wait for. */
  readonly copies = new ImportedCopies();
  private nextId = 1;
  private stopWatch?: () => void;
  private sweepTimer?: NodeJS.Timeout;
  private closed = false;

  constructor(private readonly opts: CardImportsOptions) {
    this.library = new LibrarySettingsStore(opts.store);
  }

  /** Starts watching the mount folders, and the hourly retention sweep (a first one now). */
  start(): void {
    const roots = this.opts.roots ?? mountRoots();
    const volumes = this.opts.roots === undefined && process.platform === 'win32' ? windowsDrives() : [];
    this.stopWatch = watchCards(
      roots,
      (cards) => {
        this.logMounts(this.cards, cards);
        this.cards = cards;
        this.emitCards();
        this.opts.onCardsChanged?.(this.viewCards());
      },
      this.opts.pollMs,
      volumes,
    );
    void this.sweep();
    this.sweepTimer = setInterval(() => void this.sweep(), SWEEP_MS);
    this.sweepTimer.unref?.();
    // Which card the queue reads from changes with the queue, not with the mounts: looked at as
    // often as the mounts are, and told to the window when it changed.
    this.inUseTimer = setInterval(() => {
      if (this.inUseKey(this.viewCards()) !== this.toldInUse) this.emitCards();
    }, this.opts.pollMs ?? 2000);
    this.inUseTimer.unref?.();
  }

  private inUseTimer?: NodeJS.Timeout;
  /** The in-use part of the cards last told to the window (inUseKey). */
  private toldInUse = '';

  /**
   * The support log's line for each card that appeared or went since the last look: a card's
   * story there starts with its insertion (docs/offload.md, "The support log").
   */
  private logMounts(before: readonly DetectedCardView[], now: readonly DetectedCardView[]): void {
    const was = new Set(before.map((c) => c.root));
    const is = new Set(now.map((c) => c.root));
    for (const c of now)
      if (!was.has(c.root)) this.opts.log?.info(`Card ${c.name} inserted at ${c.root}: ${describeCard(c)}.`);
    for (const c of before) if (!is.has(c.root)) this.opts.log?.info(`Card ${c.name} removed from ${c.root}.`);
  }

  /**
   * The support log's lines of an import's end, from its last view: copied and verified (bytes
   * and time since Import), the transfer report written, safe to remove; or what was not verified,
   * or why it failed. `startedMs` is when Import was asked (ms since 1970).
   */
  private logImportEnd(v: ImportView, startedMs: number): void {
    const log = this.opts.log;
    if (!log) return;
    const seconds = ((Date.now() - startedMs) / 1000).toFixed(1);
    if (v.phase === 'failed') {
      log.warn(`Import of card ${v.cardName} did not finish after ${seconds} s: ${v.error ?? 'stopped'}`);
      return;
    }
    const copied = v.files.filter((f) => f.state !== 'known');
    const failed = copied.filter((f) => f.state === 'failed').length + (v.others?.failed ?? 0);
    const others = v.others ? ` and ${v.others.files} other files` : '';
    if (failed === 0)
      log.info(
        `Card ${v.cardName}: ${copied.length} files${others}, ${v.bytesDone} bytes (${formatBytes(v.bytesDone)}), copied and verified in ${seconds} s into ${v.destination}.`,
      );
    else
      log.warn(
        `Card ${v.cardName}: ${failed} files not verified, even copied twice, after ${seconds} s: keep the card.`,
      );
    if (v.reportPath) log.info(`Card ${v.cardName}: transfer report written to ${v.reportPath}.`);
    if (v.safeToRemove) log.info(`Card ${v.cardName} safe to remove, ${seconds} s after Import.`);
  }

  /** The cards mounted now, each with what the queue reads from it (cards-in-use.ts). */
  private viewCards(): DetectedCardView[] {
    return cardsInUse(this.opts.queueDb(), this.cards);
  }

  private inUseKey(cards: readonly DetectedCardView[]): string {
    return JSON.stringify(cards.map((c) => [c.root, c.inUse ?? null]));
  }

  /** Stops the watch and the sweep; an import under way carries on to its end (the card is only read). */
  close(): void {
    this.closed = true;
    this.stopWatch?.();
    clearInterval(this.sweepTimer);
    clearInterval(this.inUseTimer);
    // An import does not outlive the service: stopped within a second, its half-written copies
    // removed, its verified ones kept and recorded (offloadCard's `signal`).
    for (const r of this.running.values()) r.ac.abort(new Error('The app is closing.'));
  }

  /**
   * Resolves once every import stopped by `close` has ended (its copies removed, its record
   * written), or after `timeoutMs` (default 2 s) when one is stuck in a write the file system does
   * not finish: its `.partial` is then removed when the queue opens next (main/offload/partials.ts).
   */
  async settled(timeoutMs = 2000): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      Promise.all([...this.running.values()].map((r) => r.done)),
      new Promise<void>((resolve) => (timer = setTimeout(resolve, timeoutMs))),
    ]);
    clearTimeout(timer);
  }

  /**
   * Stops the import `id` a person asked to stop, as `close` stops them all: within a second, its
   * half-written copies removed, its verified copies kept and recorded, the offload recorded as
   * interrupted; its last view (phase `failed`) says what was kept and what was not copied.
   * Resolves once it has ended. Throws Error for an import that is not copying (finished or unknown).
   */
  async stopImport(id: number): Promise<void> {
    const run = this.running.get(id);
    if (!run) throw new Error('This import is not copying any more: there is nothing to stop.');
    run.ac.abort(new Error('Stopped by you.'));
    await run.done;
  }

  /** The imports copying now: each one's abort controller and its end. */
  private readonly running = new Map<number, { ac: AbortController; done: Promise<void> }>();

  /**
   * The cards mounted now (with `inUse` on those the queue reads from, cards-in-use.ts), this session's imports not dismissed (oldest first), and whether the
   * cards are offered for upload straight from the card instead of Import.
   */
  list(): { cards: DetectedCardView[]; imports: ImportView[]; uploadFromCard: boolean } {
    return {
      cards: this.viewCards(),
      imports: [...this.imports.values()],
      uploadFromCard: this.library.get().uploadFromCard,
    };
  }

  /** Tells the window the cards mounted now and how they are offered (`capture:event.cards`). */
  private emitCards(): void {
    if (this.closed) return;
    const cards = this.viewCards();
    this.toldInUse = this.inUseKey(cards);
    this.opts.emit('capture:event.cards', { cards, uploadFromCard: this.library.get().uploadFromCard });
  }

  /**
   * Starts importing the card mounted at `root` (one of `list().cards`) into the library folder and
   * answers its first view; progress follows as events. Throws Error when `root` is not a card
   * mounted now, when that card is being imported already, or when the queue is not open (the
   * offload is recorded there, and its copies are uploaded from it). `by` says in the support log
   * who started it when not a person ("the capture plan").
   */
  startImport(root: string, by?: string): ImportView {
    const card = this.cards.find((c) => c.root === root);
    if (!card) throw new Error(`${root} is not an Insta360 card mounted now: it may have been removed.`);
    if (this.busy.has(root)) throw new Error(`The card ${card.name} is being imported already.`);
    const db = this.opts.queueDb();
    if (!db)
      throw new Error(
        'The app is not set up yet: open Settings and enter the service addresses and your account, or choose the local test service.',
      );
    const id = this.nextId++;
    const first: ImportView = {
      id,
      card: root,
      cardName: card.name,
      destination: null,
      phase: 'copying',
      startedAt: new Date().toISOString(),
      bytesDone: 0,
      bytesTotal: card.bytes,
      bytesPerSecond: 0,
      secondsLeft: null,
      files: [],
      verifiedCopies: [],
      safeToRemove: false,
      error: null,
      mhlPath: null,
      reportPath: null,
    };
    this.imports.set(id, first);
    this.busy.add(root);
    const startedMs = Date.now();
    this.opts.log?.info(
      `Import of card ${card.name} started${by ? ` (${by})` : ''}: ${describeCard(card)} into ${this.library.get().library}.`,
    );
    const update = (v: ImportView) => {
      if (this.imports.has(id)) this.imports.set(id, v);
      if (v.phase !== 'copying') this.logImportEnd(v, startedMs);
      if (!this.closed) this.opts.emit('capture:event.import', v);
    };
    // Recorded as it goes, in the queue open at each step (settings may change meanwhile).
    const journal = new OffloadRecorder(
      () => this.opts.queueDb(),
      (m) => this.opts.log?.warn(m),
    );
    this.copies.begin(id, root, journal);
    const ac = new AbortController();
    const done = runCardImport({
      id,
      root,
      library: this.library.get().library,
      onUpdate: update,
      // The setting as it is when the import starts ("Copy the whole card", on unless turned off).
      wholeCard: this.library.get().wholeCard !== false,
      // No part MD5s in the copy: the upload computes each part's as it reads it for sending, so
      // "safe to remove" waits for no hashing the copy does not need (docs/decisions/0030-part-md5-at-upload.md).
      onRecording: (files) => this.recordingCopied(id, files),
      journal,
      // A card put back is known by its content: what the library holds already is not copied
      // again (docs/decisions/0020-card-known-by-content.md), the same decision as `import`'s.
      knownCopies: async (files) => {
        const now = this.opts.queueDb();
        return now ? findKnownCopies(now, files) : new Map();
      },
      ...this.opts.copySeams,
      ...(this.opts.copyGate ? { afterWrite: gateOn(this.opts.copyGate) } : {}),
      signal: ac.signal,
    })
      .then(
        () => {},
        (err: unknown) => this.opts.log?.warn(`The import of ${root} stopped: ${reasonOf(err)}`),
      )
      .finally(() => {
        this.running.delete(id);
        this.busy.delete(root);
        // Whatever this import did not verify is no longer waited for: it uploads from the card.
        this.copies.end(id);
        this.settleHolds();
      });
    this.running.set(id, { ac, done });
    return first;
  }

  /** One recording of an import is copied and checked. */
  private recordingCopied(id: number, files: readonly OffloadedFile[]): void {
    // Its files placed already move to the verified copies (or, failed twice, upload from the card).
    this.copies.settled(id, files);
    this.settleHolds();
  }

  /**
   * Moves the queued files held for their copies (main/queue/copy-holds.ts) to the copies verified
   * since, and releases those no import copies any more, in one transaction; the queue is told of
   * the files that changed. Run after each recording, at each import's end, when a queue opens
   * (no import of an earlier run is running: its held files upload from the card) and after a
   * registration. A failure is logged; the hold is then settled at the next of these.
   */
  settleHolds(): void {
    const db = this.opts.queueDb();
    if (!db) return;
    try {
      const { moved, released, captures } = settleCopyHolds(db, this.copies);
      if (released.length)
        this.opts.log?.info(
          `${released.length} file(s) placed from a card upload from the card: their copies were not verified.`,
        );
      if (moved.length + released.length) this.opts.released?.(captures);
    } catch (err) {
      this.opts.log?.warn(`The files waiting for their verified copies could not be moved to them: ${reasonOf(err)}`);
    }
  }

  /**
   * Ejects the card of import `id` once it is said safe to remove (main/card/eject.ts): answers
   * whether it was ejected and the sentence for the screen. Throws Error when the import is not
   * one of this session's, or its card is not safe to remove (still copying, a file not verified).
   */
  async eject(id: number): Promise<EjectResult> {
    const view = this.imports.get(id);
    if (!view) throw new Error('That import is no longer on screen.');
    if (!view.safeToRemove)
      throw new Error(`The card ${view.cardName} is not safe to remove yet: keep it in the reader.`);
    const result = await (this.opts.eject ?? ejectCard)(view.card);
    if (result.ejected) this.opts.log?.info(`Card ${view.cardName} ejected: ${result.message}`);
    else this.opts.log?.warn(`Card ${view.cardName} not ejected: ${result.message}`);
    return result;
  }

  /** Takes an import off the screen (its copies and record stay); one still copying stays. */
  dismiss(id: number): void {
    if (this.imports.get(id)?.phase !== 'copying') this.imports.delete(id);
  }

  /** The library settings with the folder's use now. */
  async view(): Promise<LibraryView> {
    const s = this.library.get();
    const db = this.opts.queueDb();
    return { ...s, usage: db ? await libraryUsage(db, s.library) : { bytes: 0, copies: 0 } };
  }

  /**
   * Stores the library settings, tells the window how cards are offered now (Import, or upload
   * straight from the card), and sweeps at once with the new number of days; answers the view.
   */
  async save(next: LibrarySettings): Promise<LibraryView> {
    this.library.save(next);
    this.emitCards();
    await this.sweep();
    return this.view();
  }

  /**
   * Removes the copies whose captures completed more than the chosen days ago, and prunes the
   * thumbnail cache (pruneThumbnails); a failure is logged and tried at the next sweep.
   */
  async sweep(): Promise<void> {
    const db = this.opts.queueDb();
    if (!db) return;
    try {
      const removed = await removeFinishedCopies(db, Date.now(), this.library.get().keepDays * DAY_MS);
      if (removed.length)
        this.opts.log?.info(
          `Removed ${removed.length} imported copies from the library: their captures completed more than ${this.library.get().keepDays} days ago.`,
        );
    } catch (err) {
      this.opts.log?.warn(`The library's old copies could not be removed: ${reasonOf(err)}`);
    }
    try {
      const pruned = await this.opts.pruneThumbnails?.(Date.now());
      if (pruned?.removed.length)
        this.opts.log?.info(
          `Removed ${pruned.removed.length} thumbnails not used for a while from the library (${pruned.freedBytes} bytes).`,
        );
    } catch (err) {
      this.opts.log?.warn(`The library's old thumbnails could not be removed: ${reasonOf(err)}`);
    }
  }
}
