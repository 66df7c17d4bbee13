import { readdir, realpath, stat } from 'node:fs/promises';
import { join } from 'node:path';

/** A folder inside a dropped tree that could not be listed, with the errno code (EACCES, EIO …). */
export interface UnlistableFolder {
  path: string;
  code: string;
}

/**
 * Folders an operating system keeps on a removable volume, never the camera's: the recycle bin,
 * Spotlight's and fsevents' indexes, Windows' volume information. Dot-folders are skipped too.
 */
const SYSTEM_FOLDERS = new Set(['system volume information', '$recycle.bin', 'lost+found']);

/** Whether a folder of this name is left out of a walk (hidden, or kept by the operating system). */
const isSkippedFolder = (name: string): boolean => name.startsWith('.') || SYSTEM_FOLDERS.has(name.toLowerCase());

/**
 * Lists every file under `root` (a folder), however deep: a card's root, its `DCIM`, a camera
 * folder (`DCIM/Camera01`) or a folder holding several cards all give their recordings (
 * deliver 1). Paths come back as found (joined to `root`, links not resolved), in name order,
 * folders after the files beside them. Hidden and system folders are not entered; a folder
 * reached twice (through a symbolic link, or a link that loops) is entered once. Symbolic links
 * to files, and links that lead nowhere, are returned as files for the caller to explain.
 * Throws only the signal's reason, when `signal` aborts (checked between two names); a folder
 * that cannot be listed is returned in `unlistable`.
 */
export async function listTree(
  root: string,
  signal?: AbortSignal,
): Promise<{ files: string[]; unlistable: UnlistableFolder[] }> {
  const files: string[] = [];
  const unlistable: UnlistableFolder[] = [];
  const entered = new Set<string>();
  const visit = async (dir: string): Promise<void> => {
    let real: string;
    let names: string[];
    try {
      real = await realpath(dir);
      if (entered.has(real)) return;
      entered.add(real);
      names = (await readdir(dir)).sort();
    } catch (err) {
      unlistable.push({ path: dir, code: (err as NodeJS.ErrnoException).code ?? 'error' });
      return;
    }
    const folders: string[] = [];
    for (const name of names) {
      // Stopped between two names: a listing writes nothing.
      signal?.throwIfAborted();
      const at = join(dir, name);
      // stat follows links: a link to a folder is a folder, a link to nothing is left to the caller.
      const isDir = await stat(at).then(
        (s) => s.isDirectory(),
        () => false,
      );
      if (!isDir) files.push(at);
      else if (!isSkippedFolder(name)) folders.push(at);
    }
    for (const f of folders) await visit(f);
  };
  await visit(root);
  return { files, unlistable };
}
