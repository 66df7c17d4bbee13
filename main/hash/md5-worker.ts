// The part MD5 thread of an offload: started by pool.ts, it hashes the
// chunks the copy hands it, in place in the shared pool, four parts at a time (file-parts.ts),
// and talks only in the messages below. Built as its own entry (offload-md5-worker.js beside the
// bundles, package.json build:cli and build:main); from source through main/service/tsx-boot.mjs.
import { parentPort, workerData } from 'node:worker_threads';
import type { PoolLayout } from './file-parts.js';
import { PartMd5Lanes } from './file-parts.js';

/** What the copy sends: a file begins, a chunk of it lies in a slot, it ended or failed, or the copy waits for slots (having heard of `freedSeen` freed). */
export type ToMd5Worker =
  | { t: 'begin'; file: number; partSize: number }
  | { t: 'chunk'; file: number; slot: number; length: number }
  | { t: 'end'; file: number }
  | { t: 'abort'; file: number }
  | { t: 'need'; freedSeen: number; waiters: number };

/** What the thread answers: slots free again, a file's digests (16 bytes each, part order), or why it stopped. */
export type FromMd5Worker =
  | { t: 'free'; slots: number[] }
  | { t: 'digests'; file: number; md5s: Uint8Array }
  | { t: 'failed'; error: string };

const port = parentPort!;
const freed: number[] = [];
let freedTotal = 0;
const lanes = new PartMd5Lanes(workerData.pool as PoolLayout, (slot) => {
  freed.push(slot);
  freedTotal += 1;
});

port.on('message', (m: ToMd5Worker) => {
  try {
    let md5s: Buffer | undefined;
    if (m.t === 'begin') lanes.begin(m.file, m.partSize);
    else if (m.t === 'chunk') lanes.chunk(m.file, m.slot, m.length);
    // The copy waits for `waiters` slots. Slots freed since it last heard are on their way, and
    // count: hashing with fewer than four parts to free more would waste the kernel.
    else if (m.t === 'need') {
      while (freedTotal < m.freedSeen + m.waiters && lanes.need());
    } else if (m.t === 'abort') lanes.abort(m.file);
    else md5s = lanes.end(m.file);
    // The slots first: the copy may be waiting for one.
    if (freed.length > 0) port.postMessage({ t: 'free', slots: freed.splice(0) } satisfies FromMd5Worker);
    if (md5s && m.t === 'end') port.postMessage({ t: 'digests', file: m.file, md5s } satisfies FromMd5Worker);
  } catch (err) {
    port.postMessage({ t: 'failed', error: err instanceof Error ? err.message : String(err) } satisfies FromMd5Worker);
  }
});
