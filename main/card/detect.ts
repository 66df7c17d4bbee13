import { readdir, stat } from 'node:fs/promises';
import { userInfo } from 'node:os';
import { join } from 'node:path';
import { inspectPaths } from '../intake/intake.js';

/** A mounted volume laid out as an Insta360 card: its root, its name, its recordings (captures) and their bytes. */
export interface DetectedCard {
  root: string;
  name: string;
  recordings: number;
  bytes: number;
}

/**
 * The folders removable volumes are mounted under (issue 19 deliver 2): on Linux
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
  try {
    const dcim = (await readdir(root)).find((n) => n.toUpperCase() === 'DCIM');
    if (!dcim) return false;
    for (const n of await readdir(join(root, dcim))) {
      if (/^camera/i.test(n) && (await stat(join(root, dcim, n))).isDirectory()) return true;
    }
  } catch {
    // A volume being mounted or pulled, or one this user cannot read, is not offered.
  }
  return false;
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
 * them. Never throws: a root that does not exist gives nothing.
 */
export async function findCards(roots: readonly string[], volumes: readonly string[] = []): Promise<DetectedCard[]> {
  const cards: DetectedCard[] = [];
  for (const root of await listCardRoots(roots, volumes)) {
    const { groups } = await inspectPaths([root]);
    const bytes = groups.reduce((n, g) => n + g.files.reduce((m, f) => m + f.size, 0), 0);
    cards.push({ root, name: root.split(/[\\/]/).filter(Boolean).pop() ?? root, recordings: groups.length, bytes });
  }
  return cards;
}

// What the app and the CLI say of a card ("Insta360 card, 48 recordings, 96 GiB") is shared with the renderer.
export { describeCard } from '../../shared/card-offer.js';

/**
 * Watches the mount folders for cards: `onChange` gets the cards mounted whenever a card appears
 * or is removed (by root), checked every `intervalMs` (a poll: mount folders are few, and
 * inotify does not see a mount). Answers a function that stops the watch.
 */
export function watchCards(roots: readonly string[], onChange: (cards: DetectedCard[]) => void, intervalMs = 2000, volumes: readonly string[] = []): () => void {
  let last: string | undefined; // the first look is always reported, even when it finds no card
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  const tick = async () => {
    const cards = await findCards(roots, volumes);
    const key = cards.map((c) => c.root).join('\0');
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
