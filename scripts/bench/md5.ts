// npm run bench:md5 [-- --quick] [--runs N]
//
// The part MD5 two ways over the same bytes in the same run, as docs/decisions/one-md5-module.md
// decides between them: (a) the four-lane WebAssembly SIMD kernel (main/hash/), four parts of
// 5 MiB at a time, fed in 1 MiB chunks lying in its slots as the part sender reads them; (b)
// node:crypto's createHash('md5') (OpenSSL) in a worker thread, the same four parts at a time,
// chunk by chunk. 1 GiB each (256 MiB with --quick). Prints CPU s/GiB (user + system of this
// process, taken around the hashing alone: the other thread waits idle) and MiB/s of each, and
// the kernel's saving. Both sides' digests are compared with each other: a mismatch exits 1.
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { parseArgs } from 'node:util';
import { Worker } from 'node:worker_threads';
import { PartMd5, giveSlot, takeSlot } from '../../main/hash/local-md5.js';
import { SLOT_BYTES } from '../../main/hash/kernel.js';

const MiB = 1024 * 1024;
const PART_BYTES = 5 * MiB;
const PARTS_AT_ONCE = 4;
const CHUNKS_PER_PART = PART_BYTES / SLOT_BYTES;

const { values: flags } = parseArgs({ options: { quick: { type: 'boolean', default: false }, runs: { type: 'string', default: '2' } } });
const TOTAL_MIB = flags.quick ? 256 : 1024;
/** Rounds of four parts: the bytes hashed are rounds × 4 × 5 MiB, as near the target as whole rounds go. */
const ROUNDS = Math.round((TOTAL_MIB * MiB) / (PARTS_AT_ONCE * PART_BYTES));
const BYTES = ROUNDS * PARTS_AT_ONCE * PART_BYTES;
const GiB = BYTES / (1024 * MiB);

/** One measured way: CPU seconds per GiB, MiB/s, and the digests of the four parts of the last round. */
interface Measured {
  cpuPerGiB: number;
  mibPerSecond: number;
  digests: string[];
}

/**
 * (a) The kernel: each round, four parts of five 1 MiB chunks, chunk c of every part in turn (as
 * four part senders read). Part i is its chunk `chunks[i]` five times: the kernel's memory has ten
 * slots to lend, and the bytes' values do not move the cost.
 */
function kernel(chunks: Buffer[]): Measured {
  // The chunks lie in the kernel's slots, as the part sender reads them there (no copy).
  const slots = chunks.map((c) => {
    const s = takeSlot()!;
    c.copy(s);
    return s;
  });
  let digests: string[] = [];
  const wall = process.hrtime.bigint();
  const before = process.cpuUsage();
  for (let r = 0; r < ROUNDS; r++) {
    const parts = Array.from({ length: PARTS_AT_ONCE }, () => new PartMd5());
    for (let c = 0; c < CHUNKS_PER_PART; c++) parts.forEach((p, i) => p.update(slots[i]!));
    digests = parts.map((p) => p.digestHex());
  }
  const used = process.cpuUsage(before);
  const seconds = Number(process.hrtime.bigint() - wall) / 1e9;
  slots.forEach(giveSlot);
  return { cpuPerGiB: (used.user + used.system) / 1e6 / GiB, mibPerSecond: BYTES / MiB / seconds, digests };
}

// (b) node:crypto in a worker thread: the same rounds, chunks and order. Its CPU is taken inside the
// worker around the hashing, while the main thread sleeps in its event loop waiting for the answer.
const WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
const { createHash } = require('node:crypto');
const { chunks, rounds, parts, perPart } = workerData;
const bufs = chunks.map((c) => Buffer.from(c.buffer, c.byteOffset, c.byteLength));
const wall = process.hrtime.bigint();
const before = process.cpuUsage();
let digests = [];
for (let r = 0; r < rounds; r++) {
  const h = Array.from({ length: parts }, () => createHash('md5'));
  for (let c = 0; c < perPart; c++) h.forEach((x, i) => x.update(bufs[i]));
  digests = h.map((x) => x.digest('hex'));
}
const used = process.cpuUsage(before);
parentPort.postMessage({ cpu: (used.user + used.system) / 1e6, seconds: Number(process.hrtime.bigint() - wall) / 1e9, digests });
`;

async function crypto(chunks: Buffer[]): Promise<Measured> {
  const worker = new Worker(WORKER, { eval: true, workerData: { chunks, rounds: ROUNDS, parts: PARTS_AT_ONCE, perPart: CHUNKS_PER_PART } });
  const [m] = (await once(worker, 'message')) as [{ cpu: number; seconds: number; digests: string[] }];
  await worker.terminate();
  return { cpuPerGiB: m.cpu / GiB, mibPerSecond: BYTES / MiB / m.seconds, digests: m.digests };
}

const chunks = Array.from({ length: PARTS_AT_ONCE }, () => randomBytes(SLOT_BYTES));
console.log(`bench:md5: ${(BYTES / MiB).toFixed(0)} MiB per way, ${PARTS_AT_ONCE} parts of ${PART_BYTES / MiB} MiB at a time in ${SLOT_BYTES / MiB} MiB chunks, ${flags.runs} run(s), Node ${process.version}`);
const rows: { kernel: Measured; crypto: Measured }[] = [];
for (let run = 0; run < Number(flags.runs); run++) {
  const k = kernel(chunks);
  const c = await crypto(chunks);
  if (k.digests.join() !== c.digests.join()) {
    console.error('bench:md5: the kernel and node:crypto disagree on the same bytes');
    process.exit(1);
  }
  rows.push({ kernel: k, crypto: c });
  console.log(
    `run ${run + 1}: kernel ${k.cpuPerGiB.toFixed(2)} CPU s/GiB, ${k.mibPerSecond.toFixed(0)} MiB/s | node:crypto in a worker ${c.cpuPerGiB.toFixed(2)} CPU s/GiB, ${c.mibPerSecond.toFixed(0)} MiB/s | saving ${(c.cpuPerGiB - k.cpuPerGiB).toFixed(2)} CPU s/GiB`,
  );
}
const best = (f: (r: (typeof rows)[number]) => number) => Math.min(...rows.map(f));
const k = best((r) => r.kernel.cpuPerGiB);
const c = best((r) => r.crypto.cpuPerGiB);
console.log(`best: kernel ${k.toFixed(2)} CPU s/GiB, node:crypto in a worker ${c.toFixed(2)} CPU s/GiB, saving ${(c - k).toFixed(2)} CPU s/GiB (keep the kernel at ≥ 0.30)`);
