import { realpathSync } from 'node:fs';
import { relative } from 'node:path';
import { cardPrefix } from '../card/card-root.js';
import type { OffloadedFile } from '../offload/offload.js';
import type { CopyOf, CopyRoute } from '../queue/copy-holds.js';

/** One import of this session: the card's root as offered and as resolved, and its files by path relative to the root. */
interface Imported {
  roots: string[];
  running: boolean;
  /** Files copied and checked (verified or not), relative to the card's root. */
  done: Set<string>;
  /** The verified copies, by the card file's path relative to the root. */
  copies: Map<string, CopyOf>;
  /** Its record in the queue (main/offload/record.ts), whose id is known once its start was written. */
  record?: { readonly id: number | undefined };
}

/**
 * Where the recordings of this session's imports are, for the queue's copy route
 * (main/queue/copy-holds.ts): a card file is `copying` while its import runs and has not finished
 * with it, and `copied` once its copy verified (kept for the session, so a recording placed after
 * the card was removed is queued at its copy). Files are matched by their place under the card's
 * root as offered or as its real path (offloadCard resolves links), never by name alone.
 */
export class ImportedCopies implements CopyRoute {
  private readonly imports = new Map<number, Imported>();

  /** An import of the card at `root` starts, recorded in `record`: every file under it is `copying` until settled. */
  begin(id: number, root: string, record?: { readonly id: number | undefined }): void {
    const roots = [root];
    try {
      const real = realpathSync(root);
      if (real !== root) roots.push(real);
    } catch {
      // A card gone already: the import fails at once and ends the wait.
    }
    this.imports.set(id, { roots, running: true, done: new Set(), copies: new Map(), ...(record ? { record } : {}) });
  }

  /** A recording's files were copied and checked: the verified ones are `copied`, none is `copying` any more. */
  settled(id: number, files: readonly OffloadedFile[]): void {
    const i = this.imports.get(id);
    if (!i) return;
    for (const f of files) {
      const rel = this.relativeIn(i, f.source);
      if (rel === undefined) continue;
      i.done.add(rel);
      if (f.verified && f.copyFacts) i.copies.set(rel, { path: f.copy, facts: f.copyFacts });
    }
  }

  /** The import ended (done, failed, or stopped): nothing of it is `copying` any more; its copies stay known. */
  end(id: number): void {
    const i = this.imports.get(id);
    if (i) i.running = false;
  }

  /** The queue's ids of the offloads this session runs now: not interrupted, whenever the queue is opened again. */
  runningOffloads(): number[] {
    return [...this.imports.values()].flatMap((i) => (i.running && i.record?.id !== undefined ? [i.record.id] : []));
  }

  /** Whether an import running now has yet to copy and check the card file at `path` (absolute): a file queued from it is held. */
  copying(path: string): boolean {
    for (const i of this.imports.values()) {
      const rel = this.relativeIn(i, path);
      if (i.running && rel !== undefined && !i.done.has(rel)) return true;
    }
    return false;
  }

  /** The verified copy of the card file at `path` (absolute) made by this session's latest import of it, or undefined. */
  copied(path: string): CopyOf | undefined {
    // The newest import first: a card imported twice uploads from its latest copy.
    for (const i of [...this.imports.values()].reverse()) {
      const rel = this.relativeIn(i, path);
      const copy = rel === undefined ? undefined : i.copies.get(rel);
      if (copy) return copy;
    }
    return undefined;
  }

  /** `path` relative to the import's card root, or undefined when it is not on that card. */
  private relativeIn(i: Imported, path: string): string | undefined {
    const root = i.roots.find((r) => path.startsWith(cardPrefix(r)));
    return root === undefined ? undefined : relative(root, path);
  }
}
