import { z } from 'zod';
import { id } from './common.js';

// The card offer, the import and the library settings of the IPC contract (shared/ipc.ts re-exports them and spreads `cardChannels` and `cardEvents` into its maps).

/**
 * A mounted volume holding `DCIM/Camera*` (main/intake/detect.ts): its root path, its name, recordings (captures) and their bytes.
 * `inUse`, when the upload queue reads from it: the recordings (captures) with a file not uploaded
 * yet on it, and `waited` when they were waiting for this card to come back (main/service/cards-in-use.ts).
 */
const detectedCard = z.object({
  root: z.string(),
  name: z.string(),
  recordings: z.number().int().min(0),
  bytes: z.number().min(0),
  inUse: z.object({ recordings: z.number().int().min(0), waited: z.boolean() }).optional(),
});
export type DetectedCardView = z.infer<typeof detectedCard>;

/**
 * One file of an import: its path on the card, its name, its size and bytes copied so far (bytes),
 * and where it is: waiting, copying (or being read back), verified (its recording's every file
 * read back with the card's XXH64), or failed (copied twice and still not verified: `error`
 * names the file and says why).
 */
const importFileView = z.object({
  source: z.string(),
  name: z.string(),
  size: z.number().min(0),
  bytesDone: z.number().min(0),
  state: z.enum(['waiting', 'copying', 'verified', 'failed', 'known']),
  error: z.string().nullable(),
  /**
   * State `known`: the file's verified copy was in the library already, from an earlier import of
   * this card (main/offload/known-copies.ts), and not copied again; its recording is `uploaded`,
   * `queued` (waiting to upload) or `copied` (not placed yet).
   */
  already: z.enum(['uploaded', 'queued', 'copied']).optional(),
});
export type ImportFileView = z.infer<typeof importFileView>;

/**
 * What a card put back holds already (shared/card-offer.ts KnownCardSummary, said by
 * describeKnownCard): recordings on the card, those known, of which uploaded, queued and only
 * copied; the newest earlier import's start (ISO 8601) and folder.
 */
const knownCardView = z.object({
  recordings: z.number().int().min(0),
  known: z.number().int().min(0),
  uploaded: z.number().int().min(0),
  queued: z.number().int().min(0),
  copied: z.number().int().min(0),
  importedAt: z.string().nullable(),
  destination: z.string().nullable(),
});

/**
 * A card import as the screen shows it: `phase` copying, then done (every file checked) or failed
 * (nothing copied: no room, no recording); bytes over all files; `verifiedCopies`, the library
 * paths of the recordings whose every file verified, in the order they verified (what the
 * registration panel is handed); `safeToRemove` only when every file verified. Times ISO 8601.
 */
const importView = z.object({
  id,
  card: z.string(),
  cardName: z.string(),
  /** The folder in the library holding this card's copies, once known. */
  destination: z.string().nullable(),
  phase: z.enum(['copying', 'done', 'failed']),
  startedAt: z.string(),
  bytesDone: z.number().min(0),
  bytesTotal: z.number().min(0),
  /** The copy's smoothed rate in bytes per second (main/offload/copy-rate.ts); 0 before any byte moved. */
  bytesPerSecond: z.number().min(0),
  /** Seconds left at that rate; null while unknown (the first second, or nothing moving). */
  secondsLeft: z.number().min(0).nullable(),
  files: z.array(importFileView),
  verifiedCopies: z.array(z.string()),
  safeToRemove: z.boolean(),
  /** Why the import stopped before copying (phase failed), for a person. */
  error: z.string().nullable(),
  /** The ASC MHL written beside the copies. */
  mhlPath: z.string().nullable(),
  /** The card's recordings found in the library already, not copied again (files in state `known`); absent or null when none. */
  known: knownCardView.nullable().optional(),
  /** The transfer report (HTML) beside the ASC MHL (main/offload/transfer-report.ts), once written. */
  reportPath: z.string().nullable(),
  /**
   * With "Copy the whole card": the card's files that are not recordings (previews, thumbnails,
   * MISC …), copied after the recordings and checked the same way, never uploaded: how many, their
   * bytes (counted in `bytesTotal` too), how many verified and failed so far. Absent or null when
   * only recordings are copied.
   */
  others: z
    .object({
      files: z.number().int().min(0),
      bytes: z.number().min(0),
      verified: z.number().int().min(0),
      failed: z.number().int().min(0),
    })
    .nullable()
    .optional(),
});
export type ImportView = z.infer<typeof importView>;

/**
 * The library settings a person chooses: the folder copies go to, days copies stay after their
 * capture completed, whether uploads read straight from the card, and whether an import copies the
 * whole card (every file, so the card may be formatted) or the recordings only; absent means the
 * whole card (main/settings/library-settings.ts).
 */
const librarySettings = z.object({
  library: z.string().trim().min(1, 'Choose a library folder'),
  keepDays: z.number().int().min(0).max(3650),
  uploadFromCard: z.boolean(),
  wholeCard: z.boolean().optional(),
});
export type LibrarySettings = z.infer<typeof librarySettings>;

/** The library settings and the folder's use: bytes and number of imported copies still on disk. */
const libraryView = librarySettings.extend({
  usage: z.object({ bytes: z.number().min(0), copies: z.number().int().min(0) }),
});
export type LibraryView = z.infer<typeof libraryView>;

/** The channels of the card offer, import and library settings (spread into shared/ipc.ts `channels`). */
export const cardChannels = {
  /**
   * The cards mounted now, the imports of this session (running or finished, not dismissed), and
   * whether "Upload straight from the card" is on (the offer is then "Upload from the card", not Import).
   */
  'capture:cards.list': {
    args: z.void(),
    result: z.object({ cards: z.array(detectedCard), imports: z.array(importView), uploadFromCard: z.boolean() }),
  },
  /**
   * Starts importing a card offered now (its root as `cards.list` gave it): answers at once with
   * the import; `capture:event.import` carries its progress. Refuses a path that is not a card
   * mounted now, and a card already being imported.
   */
  'capture:cards.import': { args: z.object({ root: z.string().min(1) }), result: importView },
  /**
   * Stops an import copying now, within a second: the copies verified so far stay (and are
   * recorded), the half-written ones are removed; its last `capture:event.import` (phase `failed`)
   * says what was kept and what was not copied. Answers once it has stopped. Refuses an import
   * that is not copying.
   */
  'capture:cards.stop': { args: z.object({ id }), result: z.void() },
  /** Takes a finished import off the screen (its copies and record stay). */
  'capture:cards.dismiss': { args: z.object({ id }), result: z.void() },
  /**
   * Ejects the card of a finished import said safe to remove (main/card/eject.ts): `ejected` when
   * it can be taken out, else `message` says what to do (a program still using it…). Refuses an
   * import that is not safe to remove.
   */
  'capture:cards.eject': { args: z.object({ id }), result: z.object({ ejected: z.boolean(), message: z.string() }) },
  'capture:library.get': { args: z.void(), result: libraryView },
  'capture:library.save': { args: librarySettings, result: libraryView },
} as const;

/** The card events (spread into shared/ipc.ts `events`). */
export const cardEvents = {
  /**
   * The cards mounted changed (one appeared or was removed), or the library settings were saved:
   * all those mounted now, and whether they are offered for upload straight from the card.
   */
  'capture:event.cards': z.object({ cards: z.array(detectedCard), uploadFromCard: z.boolean() }),
  /** An import moved: the whole import as it is now, at most ten a second whatever changed (main/offload/card-import.ts), its end at once. */
  'capture:event.import': importView,
} as const;
