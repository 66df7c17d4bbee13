import { FileChangedError, LocalFileError } from '../../api/errors.js';
import { fileFacts, identityMoved } from '../../intake/file-identity.js';
import type { QueuedFile } from '../../queue/queue.js';
import type { EngineContext } from '../context.js';
import { assertUnchanged, bytesMd5Etag, cardDeadline } from './part-put.js';

const PLAIN_MD5_ETAG = /^"([0-9a-f]{32})"$/;

/**
 * The check that a file still holds the bytes queued, for one file's upload: what
 * file-identity.ts `contentDifference` checks (size, modification time, first and last MiB), and,
 * whenever the file's device, inode or status-change time differs from the queued ones, a re-read
 * of every part storage already holds, each compared with the MD5 of the bytes that were sent.
 *
 * Why: a write in the middle of a file with its modification time put back changes neither its
 * size nor its mtime nor its ends, but it always moves the status-change time; so does a chmod, a
 * hard link or a remount, which change no byte. The MD5s tell the two apart (docs/decisions/
 * 0002-stored-parts-reread.md): same bytes, the upload goes on; other bytes, FileChangedError
 * and the multipart upload is never completed (§4.7 is never called), so storage never puts
 * together a mix of old and new bytes.
 *
 * The MD5 a part is compared with is, first found: the one computed as it was sent in this run
 * (`sent`), the one the offload computed while copying it, or its ETag when that is a plain MD5
 * and storage's ETags are MD5s (parts stored by an earlier run). A stored part with none of these
 * (an earlier run's part under KMS) cannot be proven unchanged, and the file fails as changed
 * rather than risk a mix. Parts proven under one device:inode:ctime are not read again until it moves.
 * Checks are run one at a time, so concurrent parts never read the same part twice.
 */
export class StoredBytesCheck {
  /** Quoted MD5 of the bytes sent, by part number, for parts this run sent (whatever storage's ETags are). */
  private readonly sent = new Map<number, string>();
  private provenKey: string | undefined;
  private readonly proven = new Set<number>();
  private chain: Promise<void> = Promise.resolve();

  constructor(
    private readonly ctx: EngineContext,
    private readonly file: QueuedFile,
    /** The offload's quoted part MD5s for this file by part number - 1, when they may be used. */
    private readonly known: () => string[] | undefined,
  ) {}

  /** Records the quoted MD5 of the bytes of part `n` storage accepted in this run. */
  noteSent(n: number, md5Etag: string): void {
    this.sent.set(n, md5Etag);
    this.proven.delete(n);
  }

  /**
   * Resolves when the file holds the bytes queued and the parts storage holds are proven to hold
   * the bytes sent (see the class comment): on the first check under a new device:inode:ctime,
   * every part in the queue with an ETag; with `final` (before complete-batch, §4.7), also every
   * one stored since. Between the two, a check under a key already proven reads nothing more, so
   * a 10,000-part file is not listed again for each part. Throws FileChangedError, or
   * LocalFileError when the file cannot be read.
   */
  assert(opts: { final?: boolean } = {}): Promise<void> {
    const run = this.chain.then(() => this.once(opts.final ?? false));
    this.chain = run.catch(() => undefined);
    return run;
  }

  private async once(final: boolean): Promise<void> {
    const { file } = this;
    for (;;) {
      await assertUnchanged(file.path, file);
      const before = await this.facts();
      if (!identityMoved(before, file)) return;
      const key = `${before.dev}:${before.ino}:${before.ctimeNs}`;
      if (key === this.provenKey && !final) return;
      if (key !== this.provenKey) {
        this.provenKey = key;
        this.proven.clear();
      }
      const read: number[] = [];
      for (const p of this.ctx.queue.parts(file.id)) {
        if (!p.etag || this.proven.has(p.partNumber)) continue;
        const expected = this.expectedMd5(p.partNumber, p.etag);
        if (!expected) {
          throw new FileChangedError(
            file.path,
            `its status-change time, inode or device moved, and part ${p.partNumber}, stored by an earlier run under ETags that are not MD5 digests, cannot be compared with its bytes now`,
          );
        }
        const offset = (p.partNumber - 1) * file.partSize!;
        if ((await this.md5Of(offset, p.size)) !== expected) {
          throw new FileChangedError(
            file.path,
            `part ${p.partNumber}, bytes ${offset}–${offset + p.size - 1}, differs from the bytes storage holds, though its size and modification time were kept`,
          );
        }
        read.push(p.partNumber);
      }
      // A write during the reading moves the status-change time again: then read again under the new one.
      const after = await this.facts();
      if (`${after.dev}:${after.ino}:${after.ctimeNs}` !== key) continue;
      for (const n of read) this.proven.add(n);
      return;
    }
  }

  private expectedMd5(n: number, etag: string): string | undefined {
    const known = this.sent.get(n) ?? this.known()?.[n - 1];
    if (known) return known;
    return PLAIN_MD5_ETAG.test(etag) && this.ctx.etagsAreMd5 !== false ? etag : undefined;
  }

  private async facts() {
    try {
      return await cardDeadline(this.file.path, fileFacts(this.file.path));
    } catch (err) {
      if (err instanceof LocalFileError) throw err;
      throw new LocalFileError(this.file.path, (err as NodeJS.ErrnoException).code ?? 'error');
    }
  }

  private md5Of(offset: number, size: number): Promise<string> {
    return bytesMd5Etag(this.file.path, offset, size);
  }
}
