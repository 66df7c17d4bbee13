// The part MD5 two ways over the same bytes in the same run, as docs/decisions/0022-one-md5-module.md
// decides between them: (a) the four-lane WebAssembly SIMD kernel (main/hash/), four parts of
// 5 MiB at a time, fed in 1 MiB chunks lying in its slots as the part sender reads them; (b)
// node:crypto's createHash('md5') (OpenSSL) in a worker thread, the same four parts at a time,
// chunk by chunk. 1 GiB each (256 MiB with --quick). Prints CPU s/GiB (user + system of this
// process, taken around the hashing alone: the other thread waits idle) and MiB/s of each, and
// the kernel's saving. Both sides' digests are compared with each other: a mismatch throws.
// Run by `npm run bench:md5 [-- --quick] [--runs N]` (scripts/bench-md5.ts) and `npm run bench -- --only md5`.
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { Worker } from 'node:worker_threads';
import { PartMd5, giveSlot, takeSlot } from '../../main/hash/local-md5.js';
import { SLOT_BYTES } from '../../main/hash/kernel.js';
import type { Figure } from './figures.js';

const MiB = 1024 * 1024;
const PART_BYTES = 5 * MiB;
const PARTS_AT_ONCE = 4;
const CHUNKS_PER_PART = PART_BYTES / SLOT_BYTES;

/** The amount hashed each way: rounds of four parts, as near the MiB asked as whole rounds go; its bytes and GiB. */
interface Amount {
  rounds: number;
  bytes: number;
  gib: number;
}

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
function kernel(chunks: Buffer[], { rounds, bytes, gib }: Amount): Measured {
  // The chunks lie in the kernel's slots, as the part sender reads them there (no copy).
  const slots = chunks.map((c) => {
    const s = takeSlot()!;
    c.copy(s);
    return s;
  });
  let digests: string[] = [];
  const wall = process.hrtime.bigint();
  const before = process.cpuUsage();
  for (let r = 0; r < rounds; r++) {
    const parts = Array.from({ length: PARTS_AT_ONCE }, () => new PartMd5());
    for (let c = 0; c < CHUNKS_PER_PART; c++) parts.forEach((p, i) => p.update(slots[i]!));
    digests = parts.map((p) => p.digestHex());
  }
  const used = process.cpuUsage(before);
  const seconds = Number(process.hrtime.bigint() - wall) / 1e9;
  slots.forEach(giveSlot);
  return { cpuPerGiB: (used.user + used.system) / 1e6 / gib, mibPerSecond: bytes / MiB / seconds, digests };
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

async function crypto(chunks: Buffer[], { rounds, bytes, gib }: Amount): Promise<Measured> {
  const worker = new Worker(WORKER, {
    eval: true,
    workerData: { chunks, rounds, parts: PARTS_AT_ONCE, perPart: CHUNKS_PER_PART },
  });
  const [m] = (await once(worker, 'message')) as [{ cpu: number; seconds: number; digests: string[] }];
  await worker.terminate();
  return { cpuPerGiB: m.cpu / gib, mibPerSecond: bytes / MiB / m.seconds, digests: m.digests };
}

/**
 * Measures both ways `runs` times over about `mib` MiB each (1024 for the figure; 256 for a quick
 * look), printing each run as it ends, and answers the figures: CPU s/GiB and MiB/s of each way,
 * and the saving. Throws if the two ways' digests differ.
 */
export async function md5Figures(runs: number, mib: number): Promise<Figure[]> {
  const rounds = Math.max(1, Math.round((mib * MiB) / (PARTS_AT_ONCE * PART_BYTES)));
  const amount = {
    rounds,
    bytes: rounds * PARTS_AT_ONCE * PART_BYTES,
    gib: (rounds * PARTS_AT_ONCE * PART_BYTES) / (1024 * MiB),
  };
  const chunks = Array.from({ length: PARTS_AT_ONCE }, () => randomBytes(SLOT_BYTES));
  console.log(
    `md5: ${(amount.bytes / MiB).toFixed(0)} MiB per way, ${PARTS_AT_ONCE} parts of ${PART_BYTES / MiB} MiB at a time in ${SLOT_BYTES / MiB} MiB chunks, ${runs} run(s), Node ${process.version}`,
  );
  const k: Measured[] = [];
  const c: Measured[] = [];
  for (let run = 0; run < runs; run++) {
    k.push(kernel(chunks, amount));
    c.push(await crypto(chunks, amount));
    if (k[run]!.digests.join() !== c[run]!.digests.join())
      throw new Error('md5: the kernel and node:crypto disagree on the same bytes');
    console.log(
      `md5 run ${run + 1}: kernel ${k[run]!.cpuPerGiB.toFixed(2)} CPU s/GiB, ${k[run]!.mibPerSecond.toFixed(0)} MiB/s | node:crypto in a worker ${c[run]!.cpuPerGiB.toFixed(2)} CPU s/GiB, ${c[run]!.mibPerSecond.toFixed(0)} MiB/s | saving ${(c[run]!.cpuPerGiB - k[run]!.cpuPerGiB).toFixed(2)} CPU s/GiB`,
    );
  }
  return [
    {
      name: 'MD5, 4 × 5 MiB parts at once: SIMD kernel CPU',
      values: k.map((m) => m.cpuPerGiB),
      unit: 's/GiB',
      better: 'lower',
      digits: 2,
      note: 'main/hash/, in this thread',
    },
    {
      name: 'MD5, 4 × 5 MiB parts at once: node:crypto CPU',
      values: c.map((m) => m.cpuPerGiB),
      unit: 's/GiB',
      better: 'lower',
      digits: 2,
      note: 'createHash in a worker thread',
    },
    {
      name: "MD5: the kernel's saving",
      values: k.map((m, i) => c[i]!.cpuPerGiB - m.cpuPerGiB),
      unit: 's/GiB',
      better: 'higher',
      limit: 0.3,
      digits: 2,
      note: 'same run; under 0.3 the kernel goes (docs/decisions/0022-one-md5-module.md)',
    },
    { name: 'MD5: SIMD kernel rate', values: k.map((m) => m.mibPerSecond), unit: 'MiB/s', better: 'higher', digits: 0 },
    {
      name: 'MD5: node:crypto in a worker rate',
      values: c.map((m) => m.mibPerSecond),
      unit: 'MiB/s',
      better: 'higher',
      digits: 0,
    },
  ];
}
