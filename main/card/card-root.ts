import { readdirSync, readFileSync, readlinkSync, statSync } from 'node:fs';
import { basename, dirname, join, resolve, sep } from 'node:path';

// In "upload straight from the card" mode the card is the unit a pulled card
// is waited for by. A card is found from a file's path alone, without touching the disk, because
// when it matters the card is gone and nothing on it can be read.

/**
 * The root of the card a file is on: the folder that holds the `DCIM` folder (matched in any case,
 * as FAT and exFAT do) on the file's path, or null for a file not laid out as a camera writes a card
 * (loose files, a folder of copies). String work only: nothing is read.
 * `/media/ana/X4/DCIM/Camera01/VID_…insv` → `/media/ana/X4`; `E:\DCIM\Camera01\…` → `E:\`.
 */
export function cardRootOf(path: string): string | null {
  let dir = dirname(path);
  for (;;) {
    if (basename(dir).toUpperCase() === 'DCIM') return dirname(dir);
    const up = dirname(dir);
    if (up === dir) return null;
    dir = up;
  }
}

/** Where `path`, on the card once mounted at `from`, is with the card mounted at `to`; null when it is not on that card. */
export function remapToCard(path: string, from: string, to: string): string | null {
  const prefix = cardPrefix(from);
  return path.startsWith(prefix) ? cardPrefix(to) + path.slice(prefix.length) : null;
}

/** `root` with one trailing separator: the prefix every path on the card starts with (`E:\` stays `E:\`). */
export function cardPrefix(root: string): string {
  return root.endsWith(sep) || root.endsWith('/') ? root : root + sep;
}

/**
 * Whether the card at `root` is there: the folder exists and holds its `DCIM` folder. An empty
 * mount point left behind by an unmount, or a folder that cannot be listed (a card being pulled
 * answers EIO), is not a card. Never throws.
 */
export function cardPresent(root: string): boolean {
  try {
    const dcim = readdirSync(root).find((n) => n.toUpperCase() === 'DCIM');
    return dcim !== undefined && statSync(join(root, dcim)).isDirectory();
  } catch {
    return false;
  }
}

/**
 * The file system UUID of the volume mounted exactly at `root`, where the system says it: on Linux
 * from /proc/self/mountinfo and /dev/disk/by-uuid (a FAT or exFAT card's volume serial, "1A2B-3C4D").
 * Null on other systems, for a folder that is not a mount point (a card copied to a folder, the
 * tests' fake mounts) and when it cannot be read; the card is then recognised by its files.
 * Never throws.
 */
export function volumeIdOf(
  root: string,
  files: { mountinfo: string; byUuid: string } = { mountinfo: '/proc/self/mountinfo', byUuid: '/dev/disk/by-uuid' },
): string | null {
  if (process.platform !== 'linux') return null;
  try {
    const want = resolve(root);
    let source: string | undefined;
    for (const line of readFileSync(files.mountinfo, 'utf8').split('\n')) {
      // "36 35 8:17 / /media/ana/X4 rw,nosuid - exfat /dev/sdb1 rw,…": mount point 5th, source after " - fstype".
      const [left, right] = line.split(' - ');
      const mountPoint = left
        ?.split(' ')[4]
        ?.replace(/\\([0-7]{3})/g, (_, octal: string) => String.fromCharCode(parseInt(octal, 8))); // "\\040": a space
      if (mountPoint === want && right) source = right.split(' ')[1];
    }
    if (!source?.startsWith('/')) return null; // tmpfs, overlay …: no device, no UUID
    for (const uuid of readdirSync(files.byUuid)) {
      if (resolve(files.byUuid, readlinkSync(join(files.byUuid, uuid))) === source) return uuid;
    }
  } catch {
    // No /proc or no udev (a container): the files decide.
  }
  return null;
}
