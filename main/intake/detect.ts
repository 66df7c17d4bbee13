import { readdir, stat } from 'node:fs/promises';
import { userInfo } from 'node:os';
import { join } from 'node:path';
import { inspectPaths } from './intake.js';

/** A mounted volume laid out as an Insta360 card: its root, its name, its recordings (captures) and their bytes. */
export interface DetectedCard {
  root: string;
  name: string;
  recordings: number;
  bytes: number;
}

/**
 * The folders removable volumes are mounted under: on Linux
 * `/media/$USER`, `/run/media/$USER` (udisks) and `/media`; on macOS `/Volumes`; on Windows each
 * drive letter's root is itself a volume, so the roots are the letters D: to Z:.
 */
export function mountRoots(platform: NodeJS.Platform = process.platform, user: string = userInfo().username): string[] {
  if (platform === 'darwin') return ['/Volumes'];
  if (platform === 'win32') return [];
  return [`/media/${user}`, `/run/media/${user}`, '/media'];
}

/** Windows drive roots D:\ to Z:\ (A–C are floppies and the system disk), each a candidate volume. */
export const windowsDrives = (): string[] => Array.from({ length: 23 }, (_, i) => `${String.fromCharCode(68 + i)}:\\`);

/** Whether a volume holds `DCIM/Camera*` (names matched case-insensitively, as FAT and exFAT do). */
async function isInsta360Volume(root: string): Promise<boolean> {
  return (await layoutOf(root)).cameras.length > 0;
}

/**
 * The roots of the Insta360 cards mounted now, without reading their recordings: every folder
 * directly under one of `roots` (and each of `volumes`, for Windows drive letters) that holds
 * `DCIM/Camera*`. Never throws: a root that does not exist gives nothing.
 */
export async function listCardRoots(roots: readonly string[], volumes: readonly string[] = []): Promise<string[]> {
  const candidates = [...volumes];
  for (const r of roots) {
    const names = await readdir(r).catch(() => [] as string[]);
    for (const n of names.sort()) candidates.push(join(r, n));
  }
  const found: string[] = [];
  for (const root of candidates) if (!found.includes(root) && (await isInsta360Volume(root))) found.push(root);
  return found;
}

/**
 * The Insta360 cards mounted now (listCardRoots), with their recordings counted as `add` groups
 * them. Every card is walked in full (a one-off look, as the CLI's `import` makes); a watch uses
 * a CardScanner, which walks a card again only when it changed. Never throws: a root that does
 * not exist gives nothing.
 */
export async function findCards(roots: readonly string[], volumes: readonly string[] = []): Promise<DetectedCard[]> {
  return new CardScanner().scan(roots, volumes);
}

/** Counts a card's recordings and their bytes the way `add` groups them (the full walk). */
async function countCard(root: string): Promise<DetectedCard> {
  const { groups } = await inspectPaths([root]);
  const bytes = groups.reduce((n, g) => n + g.files.reduce((m, f) => m + f.size, 0), 0);
  return { root, name: root.split(/[\\/]/).filter(Boolean).pop() ?? root, recordings: groups.length, bytes };
}

/**
 * Within this many ms of now, a folder's modification time does not yet prove it unchanged:
 * FAT keeps times to 2 s, so a file written in the same 2 s as the walk leaves the time as it was.
 * Such a volume is looked at again at the next poll, until its times are older.
 */
const SETTLE_MS = 3000;

interface KnownVolume {
  /** The names under the root last seen: the `DCIM` folder (in its own case) and its `Camera*` folders. */
  dcim: string | null;
  cameras: string[];
  /** The identity the last full look saw (null: look again at the next poll). */
  identity: string | null;
  card: DetectedCard | null;
}

/**
 * Card detection that stays cheap while nothing changes (a card on a slow USB
 * reader must not be re-listed every 2 s all night). Each scan lists the mount folders, and per
 * volume takes a cheap identity: the root's device, inode and modification time, and the
 * modification times of its `DCIM` folder and of each `DCIM/Camera*` folder (a file added to a
 * camera folder, a camera folder added, or the card mounted again all change it). Only a volume
 * seen for the first time, or whose identity changed, is read: whether it holds `DCIM/Camera*`,
 * and for a card the full walk that counts its recordings and bytes. A volume that is not a card
 * (a USB stick) is remembered the same way, so it is not listed at each poll either.
 */
export class CardScanner {
  private readonly known = new Map<string, KnownVolume>();

  /** The cards mounted now (as findCards answers). Never throws. */
  async scan(roots: readonly string[], volumes: readonly string[] = []): Promise<DetectedCard[]> {
    const candidates = [...volumes];
    for (const r of roots) {
      const names = await readdir(r).catch(() => [] as string[]);
      for (const n of names.sort()) if (!candidates.includes(join(r, n))) candidates.push(join(r, n));
    }
    // A volume gone from the mount folders is forgotten: back later, it is walked again.
    for (const root of this.known.keys()) if (!candidates.includes(root)) this.known.delete(root);
    const cards: DetectedCard[] = [];
    for (const root of candidates) {
      const card = await this.look(root);
      if (card) cards.push(card);
    }
    return cards;
  }

  private async look(root: string): Promise<DetectedCard | null> {
    const known = this.known.get(root);
    if (known?.identity && (await identityOf(root, known)) === known.identity) return known.card;
    // First seen, or changed: which DCIM and camera folders it holds, then (a card) the full walk.
    const seen: KnownVolume = { ...(await layoutOf(root)), identity: null, card: null };
    // The identity is taken before the walk: a change during the walk shows at the next scan.
    const identity = await identityOf(root, seen, Date.now());
    if (seen.cameras.length > 0) seen.card = await countCard(root);
    // Pulled during the walk, a card's walk finds fewer files or none: offered so, it would read
    // "0 recordings" for a poll. One whose folders are gone after the walk is not offered, and
    // is looked at again at the next poll (by then it has left the mount folder).
    if (seen.card && (await identityOf(root, seen)) === null) {
      this.known.delete(root);
      return null;
    }
    seen.identity = identity;
    this.known.set(root, seen);
    return seen.card;
  }
}

/** The `DCIM` folder under `root` (in its own case, or null) and its `Camera*` folders; nothing when it cannot be read. */
async function layoutOf(root: string): Promise<{ dcim: string | null; cameras: string[] }> {
  try {
    const dcim = (await readdir(root)).find((n) => n.toUpperCase() === 'DCIM') ?? null;
    if (!dcim) return { dcim, cameras: [] };
    const cameras: string[] = [];
    for (const n of (await readdir(join(root, dcim))).sort()) {
      if (/^camera/i.test(n) && (await stat(join(root, dcim, n))).isDirectory()) cameras.push(n);
    }
    return { dcim, cameras };
  } catch {
    // A volume being mounted or pulled, or one this user cannot read, is not offered.
    return { dcim: null, cameras: [] };
  }
}

/**
 * A volume's cheap identity: stat of its root, its `DCIM` and each camera folder, no listing.
 * Null when one cannot be read, or (given `now`, ms) when a time is too recent to be trusted yet.
 */
async function identityOf(
  root: string,
  v: Pick<KnownVolume, 'dcim' | 'cameras'>,
  now?: number,
): Promise<string | null> {
  const folders = [root, ...(v.dcim ? [join(root, v.dcim), ...v.cameras.map((c) => join(root, v.dcim!, c))] : [])];
  const parts: string[] = [];
  for (const f of folders) {
    const s = await stat(f, { bigint: true }).catch(() => null);
    if (!s) return null;
    if (now !== undefined && Math.abs(now - Number(s.mtimeMs)) < SETTLE_MS) return null;
    parts.push(`${s.dev}:${s.ino}:${s.mtimeNs}`);
  }
  return parts.join('|');
}

// What the app and the CLI say of a card ("Insta360 card, 48 recordings, 96 GiB") is shared with the renderer.
export { describeCard } from '../../shared/card-offer.js';

/**
 * Watches the mount folders for cards: `onChange` gets the cards mounted whenever a card appears,
 * is removed (by root) or its count of recordings or bytes changed, checked every `intervalMs` (a
 * poll: mount folders are few, and inotify does not see a mount). A poll only lists the mount
 * folders and stats each volume's root, `DCIM` and camera folders (CardScanner); a card is walked
 * when it appears or changed. Answers a function that stops the watch.
 */
export function watchCards(
  roots: readonly string[],
  onChange: (cards: DetectedCard[]) => void,
  intervalMs = 2000,
  volumes: readonly string[] = [],
): () => void {
  let last: string | undefined; // the first look is always reported, even when it finds no card
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  const scanner = new CardScanner();
  const tick = async () => {
    const cards = await scanner.scan(roots, volumes);
    const key = JSON.stringify(cards);
    if (!stopped && key !== last) {
      last = key;
      onChange(cards);
    }
    if (!stopped) timer = setTimeout(() => void tick(), intervalMs);
  };
  void tick();
  return () => {
    stopped = true;
    clearTimeout(timer);
  };
}
