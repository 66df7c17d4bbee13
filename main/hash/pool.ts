// The copy's side of the part MD5 thread. Measured on this 2-core machine
// (README, Performance → Card offload): OpenSSL's MD5 on the copy's thread cost 1.4 CPU s/GiB and
// held the offload at 0.65 of cp's throughput, since that thread also runs the copy's reads,
// writes and XXH64. Here the copy reads each chunk into a slot of a shared memory, writes and
// XXH64s it as before, and lends the slot to a worker thread, which hashes the parts where the
// chunk lies (no copy), four parts at a time with the SIMD kernel (file-parts.ts): the MD5
// then costs about 0.55 CPU s/GiB, on the other core. A slot comes back once its bytes are hashed.
import { Worker } from 'node:worker_threads';
import type { FromMd5Worker, ToMd5Worker } from './md5-worker.js';
import type { PoolLayout } from './file-parts.js';
import { HEADER_BYTES, memoryPages, slotViews } from './kernel.js';

/**
 * Slots in the pool. Two files are copied at once, each holding two slots (one being read, one
 * being written); the rest hold chunks that wait for four parts to have bytes (at 5 MiB parts and
 * 8 MiB chunks, about three chunks per file). 10 × 8 MiB: 80 MiB of shared memory per offload.
 */
const SLOTS = 10;

/** One file's part MD5s in the pool: chunks lent in file order, then its digests. */
export interface PoolFile {
  /** Lends the thread `slot` (from take) holding the file's next `length` bytes; the slot is not the caller's any more. */
  add(slot: Buffer, length: number): void;
  /** Every byte was lent: resolves with the MD5 of each part, 16 bytes each in part order (rejects if the thread failed). */
  finish(): Promise<Buffer>;
  /** The file's copy failed: its bytes are dropped and its slots come back. */
  abort(): void;
}

/**
 * A pool of aligned chunk buffers (page-aligned: fit for O_DIRECT, direct-io.ts) in a shared
 * memory, and the worker thread that hashes the part MD5s of the chunks lent to it. One per
 * offload; `close()` ends the thread (call it however the offload ends: a live thread keeps
 * Node from exiting). Errors: take and finish reject once the thread failed or was closed.
 */
export class PartMd5Pool {
  private readonly layout: PoolLayout;
  private readonly slots: Buffer[];
  private readonly free: number[] = [];
  private readonly waiters: { resolve: (b: Buffer) => void; reject: (e: Error) => void }[] = [];
  private readonly digests = new Map<number, { resolve: (b: Buffer) => void; reject: (e: Error) => void }>();
  private nextFile = 0;
  /** Slots the thread has freed so far: a 'need' the thread finds outdated (it freed more since) is ignored. */
  private freedSeen = 0;
  private failure?: Error;

  private constructor(
    private readonly worker: Worker,
    layout: PoolLayout,
  ) {
    this.layout = layout;
    this.slots = slotViews(layout.memory, layout.slotBytes, layout.slots);
    for (let i = layout.slots - 1; i >= 0; i--) this.free.push(i);
    worker.on('message', (m: FromMd5Worker) => {
      if (m.t === 'free') {
        this.freedSeen += m.slots.length;
        for (const s of m.slots) this.give(this.slots[s]!);
      } else if (m.t === 'digests') {
        this.digests.get(m.file)?.resolve(Buffer.from(m.md5s.buffer, m.md5s.byteOffset, m.md5s.byteLength));
        this.digests.delete(m.file);
      } else this.fail(new Error(`The part MD5 thread failed: ${m.error}`));
    });
    worker.on('error', (err) => this.fail(new Error(`The part MD5 thread failed: ${err.message}`)));
    worker.on('exit', () => this.fail(new Error('The part MD5 thread has ended.')));
  }

  /** Starts the thread with a pool of `slots` slots of `slotBytes` (a multiple of 64 KiB). */
  static start(slotBytes: number, slots = SLOTS): PartMd5Pool {
    const pages = memoryPages(slotBytes, slots);
    const memory = new WebAssembly.Memory({ initial: pages, maximum: pages, shared: true });
    const layout: PoolLayout = { memory, header: HEADER_BYTES, slotBytes, slots };
    const { url, entry } = workerEntry();
    return new PartMd5Pool(new Worker(url, { workerData: { pool: layout, ...(entry ? { entry } : {}) } }), layout);
  }

  /** A free slot (slotBytes, page-aligned), waiting for the thread to free one when none is. */
  take(): Promise<Buffer> {
    if (this.failure) return Promise.reject(this.failure);
    const i = this.free.pop();
    if (i !== undefined) return Promise.resolve(this.slots[i]!);
    return new Promise((resolve, reject) => {
      this.waiters.push({ resolve, reject });
      this.post({ t: 'need', freedSeen: this.freedSeen, waiters: this.waiters.length }); // the thread hashes its oldest bytes, even with fewer than four parts, to free one
    });
  }

  /** Gives back a slot from take that was not lent (a read that found the file's end, a failed copy). */
  give(slot: Buffer): void {
    const i = (slot.byteOffset - this.layout.header) / this.layout.slotBytes;
    if (slot.buffer !== this.layout.memory.buffer || this.slots[i] !== slot) throw new Error('not a slot of this pool');
    const w = this.waiters.shift();
    if (w) w.resolve(slot);
    else this.free.push(i);
  }

  /** Begins a file whose parts are `partSize` bytes (§4.6: part N covers bytes (N-1)·partSize up to N·partSize). */
  file(partSize: number): PoolFile {
    const id = ++this.nextFile;
    this.post({ t: 'begin', file: id, partSize });
    let ended = false;
    return {
      add: (slot, length) => {
        const i = (slot.byteOffset - this.layout.header) / this.layout.slotBytes;
        this.post({ t: 'chunk', file: id, slot: i, length });
      },
      finish: () => {
        ended = true;
        if (this.failure) return Promise.reject(this.failure);
        const p = new Promise<Buffer>((resolve, reject) => this.digests.set(id, { resolve, reject }));
        this.post({ t: 'end', file: id });
        return p;
      },
      abort: () => {
        if (ended) return;
        ended = true;
        this.post({ t: 'abort', file: id });
      },
    };
  }

  /** Ends the thread; what waits on it rejects. */
  async close(): Promise<void> {
    this.fail(new Error('The part MD5 thread has ended.'));
    await this.worker.terminate();
  }

  private post(m: ToMd5Worker): void {
    if (!this.failure) this.worker.postMessage(m);
  }

  private fail(err: Error): void {
    if (this.failure) return;
    this.failure = err;
    for (const w of this.waiters.splice(0)) w.reject(err);
    for (const d of this.digests.values()) d.reject(err);
    this.digests.clear();
  }
}

/**
 * The thread's module: from source (this file is TypeScript: tests, tsx) through the tsx bootstrap
 * main/service/worker.ts uses too; from a bundle (the CLI's dist/cli, the app's dist/main/electron),
 * offload-md5-worker.js beside the entry, which is this code's folder, or its parent when esbuild
 * put this code in a shared chunk (chunks/). Told from the URL alone, with no file system call,
 * so it holds inside the app's asar archive too.
 */
function workerEntry(): { url: URL; entry?: string } {
  if (import.meta.url.endsWith('.ts'))
    return {
      url: new URL('../service/tsx-boot.mjs', import.meta.url),
      entry: new URL('./md5-worker.ts', import.meta.url).href,
    };
  return {
    url: new URL(
      /\/chunks\/[^/]*$/.test(import.meta.url) ? '../offload-md5-worker.js' : './offload-md5-worker.js',
      import.meta.url,
    ),
  };
}
