// MD5 of four independent byte streams at once, one per 32-bit lane of WebAssembly's 128-bit
// SIMD (client CPU per GiB). MD5 is one long chain of dependent steps, so one stream
// runs at the chain's latency (OpenSSL: about 1.3 CPU s/GiB here) whatever the core could do
// beside it; four parts' streams side by side do four blocks in about the time of one or two.
// This is less CPU for the same bytes, not the same CPU moved to another core.
//
// The module is built here, byte by byte, rather than shipped as a compiled blob, so what runs is
// the code below (RFC 1321 §3.4, the sixty-four steps spelled out). Its memory is fixed at
// MEMORY_PAGES and never grows: growing would detach every Buffer viewing it.

/** Bytes of a kernel memory before its slots: the four lanes' state (4 × 16) and one block of each lane transposed (16 × 16), with room to spare so the slots start on a page. */
const HEADER_BYTES = 64 * 1024;
/** Bytes of one data slot: the part sender's read chunk (part-bytes.ts). */
export const SLOT_BYTES = 1024 * 1024;
/**
 * Data slots in the memory: ten shared by the parts being sent (two each while reading and
 * writing, the rest holding chunks that wait to be hashed) and one scratch slot. Each slot used
 * is a resident MiB, which is why there are not more: the throughput bench holds a drain's peak RSS
 * to 100 MB (docs/performance.md, "Client CPU per GiB": two more slots put a 4 GiB drain at 101 MB).
 */
export const SLOTS = 11;
const MEMORY_PAGES = memoryPages(SLOT_BYTES, SLOTS);

/**
 * The 64 KiB pages of a kernel memory laid out as HEADER_BYTES, then `slots` slots of `slotBytes`
 * (a multiple of 64 KiB, so every slot is page-aligned): the part sender's buffers (local-md5.ts).
 */
function memoryPages(slotBytes: number, slots: number): number {
  return (HEADER_BYTES + slots * slotBytes) / 65536;
}

/** Views of the `slots` slots of `slotBytes` of a kernel memory laid out as memoryPages says, in slot order. */
export function slotViews(memory: WebAssembly.Memory, slotBytes: number, slots: number): Buffer[] {
  return Array.from({ length: slots }, (_, i) => Buffer.from(memory.buffer, HEADER_BYTES + i * slotBytes, slotBytes));
}
const BLOCK_AT = 64; // the transposed block: word j of the four lanes at BLOCK_AT + 16 j

const SHIFTS = [
  [7, 12, 17, 22],
  [5, 9, 14, 20],
  [4, 11, 16, 23],
  [6, 10, 15, 21],
];
/** RFC 1321's table: K[i] = floor(|sin(i + 1)| × 2^32). */
const K = Array.from({ length: 64 }, (_, i) => Math.floor(Math.abs(Math.sin(i + 1)) * 2 ** 32) >>> 0);
const wordOf = (i: number) => [i, (5 * i + 1) % 16, (3 * i + 5) % 16, (7 * i) % 16][i >> 4]! % 16;

// WebAssembly opcodes used (core and SIMD, the 2.0 spec's numbering).
const SIMD = 0xfd;
const op = {
  block: 0x02,
  loop: 0x03,
  brIf: 0x0d,
  br: 0x0c,
  end: 0x0b,
  get: 0x20,
  set: 0x21,
  tee: 0x22,
  i32load: 0x28,
  i32const: 0x41,
  i32eqz: 0x45,
  i32add: 0x6a,
  i32sub: 0x6b,
} as const;
const simd = {
  load: [SIMD, 0x00],
  store: [SIMD, 0x0b],
  const: [SIMD, 0x0c],
  splat: [SIMD, 0x11],
  replaceLane: [SIMD, 0x1c],
  not: [SIMD, 0x4d],
  and: [SIMD, 0x4e],
  andnot: [SIMD, 0x4f],
  or: [SIMD, 0x50],
  xor: [SIMD, 0x51],
  shl: [SIMD, 0xab, 0x01],
  shrU: [SIMD, 0xad, 0x01],
  add: [SIMD, 0xae, 0x01],
} as const;

function leb(n: number): number[] {
  const out: number[] = [];
  do {
    let byte = n & 0x7f;
    n >>>= 7;
    if (n !== 0) byte |= 0x80;
    out.push(byte);
  } while (n !== 0);
  return out;
}
function sleb(n: number): number[] {
  const out: number[] = [];
  for (;;) {
    const byte = n & 0x7f;
    n >>= 7;
    if ((n === 0 && !(byte & 0x40)) || (n === -1 && byte & 0x40)) return [...out, byte];
    out.push(byte | 0x80);
  }
}
const section = (id: number, body: number[]) => [id, ...leb(body.length), ...body];
const vector = (items: number[][]) => [...leb(items.length), ...items.flat()];
const name = (s: string) => [...leb(s.length), ...Buffer.from(s)];

// Locals: params 0–3 the lanes' data addresses, 4 the block count; then v128 a b c d, the saved
// aa bb cc dd, and t.
const [P0, N, A, AA, T] = [0, 4, 5, 9, 13];

/** The body of `h(p0, p1, p2, p3, blocks)`: runs `blocks` 64-byte blocks of each lane through MD5, the state in memory [0, 64). */
function kernelBody(): number[] {
  const c: number[] = [];
  const memarg = (align: number, offset: number) => [align, ...leb(offset)];
  const v128At = (offset: number) => [op.i32const, 0, ...simd.load, ...memarg(4, offset)];
  for (let v = 0; v < 4; v++) c.push(...v128At(16 * v), op.set, A + v);
  c.push(op.block, 0x40, op.loop, 0x40);
  c.push(op.get, N, op.i32eqz, op.brIf, 1);
  // Transpose: word j of lane l into lane l of the block's vector j.
  for (let j = 0; j < 16; j++) {
    c.push(op.i32const, 0);
    c.push(op.get, P0, op.i32load, ...memarg(2, 4 * j), ...simd.splat);
    for (let l = 1; l < 4; l++) c.push(op.get, P0 + l, op.i32load, ...memarg(2, 4 * j), ...simd.replaceLane, l);
    c.push(...simd.store, ...memarg(4, BLOCK_AT + 16 * j));
  }
  for (let v = 0; v < 4; v++) c.push(op.get, A + v, op.set, AA + v);
  for (let i = 0; i < 64; i++) {
    // The four variables turn each step: this step's a, b, c, d are locals (a, b, c, d) rotated right by i.
    const [a, b, cc, d] = [0, 1, 2, 3].map((k) => A + ((k - i + 64) % 4)) as [number, number, number, number];
    const s = SHIFTS[i >> 4]![i % 4]!;
    // b was computed by the step before: everything that does not need it (a + M[g] + K[i]) is
    // added first, off the chain the steps form, so each step waits on b for as few operations
    // as can be (MD5 here is bound by that chain's latency, not by the core's throughput).
    const k = Buffer.alloc(16);
    for (let l = 0; l < 4; l++) k.writeUInt32LE(K[i]!, 4 * l);
    c.push(op.get, b, ...simd.const, ...k, ...v128At(BLOCK_AT + 16 * wordOf(i)), ...simd.add, op.get, a, ...simd.add);
    const round = i >> 4;
    // F = (b & c) | (~b & d), as d ^ (b & (c ^ d)); G = (b & d) | (c & ~d), as the sum of its two
    // halves (no bit in both), c & ~d added before b is needed.
    if (round === 0) c.push(op.get, d, op.get, b, op.get, cc, op.get, d, ...simd.xor, ...simd.and, ...simd.xor);
    else if (round === 1) c.push(op.get, cc, op.get, d, ...simd.andnot, ...simd.add, op.get, b, op.get, d, ...simd.and);
    else if (round === 2) c.push(op.get, cc, op.get, d, ...simd.xor, op.get, b, ...simd.xor);
    else c.push(op.get, cc, op.get, b, op.get, d, ...simd.not, ...simd.or, ...simd.xor); // c ^ (b | ~d)
    c.push(...simd.add);
    c.push(
      op.tee,
      T,
      op.i32const,
      ...sleb(s),
      ...simd.shl,
      op.get,
      T,
      op.i32const,
      ...sleb(32 - s),
      ...simd.shrU,
      ...simd.or,
    );
    c.push(...simd.add, op.set, a);
  }
  for (let v = 0; v < 4; v++) c.push(op.get, A + v, op.get, AA + v, ...simd.add, op.set, A + v);
  for (let l = 0; l < 4; l++) c.push(op.get, P0 + l, op.i32const, ...sleb(64), op.i32add, op.set, P0 + l);
  c.push(op.get, N, op.i32const, 1, op.i32sub, op.set, N, op.br, 0, op.end, op.end);
  for (let v = 0; v < 4; v++) c.push(op.i32const, 0, op.get, A + v, ...simd.store, ...memarg(4, 16 * v));
  c.push(op.end);
  const locals = vector([[9, 0x7b]]); // nine v128 locals
  const body = [...locals, ...c];
  return [...leb(body.length), ...body];
}

/** The module's bytes: memory "m" (MEMORY_PAGES, fixed) and function "h". */
function moduleBytes(): Uint8Array<ArrayBuffer> {
  const bytes = [
    ...[0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00],
    ...section(1, vector([[0x60, ...vector([[0x7f], [0x7f], [0x7f], [0x7f], [0x7f]]), 0]])),
    ...section(3, vector([[0]])),
    ...section(5, vector([[0x01, ...leb(MEMORY_PAGES), ...leb(MEMORY_PAGES)]])),
    ...section(
      7,
      vector([
        [...name('m'), 0x02, 0],
        [...name('h'), 0x00, 0],
      ]),
    ),
    ...section(10, vector([kernelBody()])),
  ];
  return new Uint8Array(bytes);
}

/** The four-lane MD5 kernel: its memory, and `h(p0, p1, p2, p3, blocks)` over the state at [0, 64) (word-major: a of lanes 0–3, then b, c, d). */
export interface Md5x4Kernel {
  memory: WebAssembly.Memory;
  h(p0: number, p1: number, p2: number, p3: number, blocks: number): void;
}

/**
 * Compiles the kernel over a memory of its own (synchronously: about a millisecond). Throws a
 * WebAssembly error where SIMD is not available (every Node ≥ 16.4 and Electron has it), or where
 * its memory cannot be had (a process under `ulimit -v`: local-md5.ts then hashes with OpenSSL).
 */
export function md5x4Kernel(): Md5x4Kernel {
  const instance = new WebAssembly.Instance(new WebAssembly.Module(moduleBytes()), {});
  const { m, h } = instance.exports as { m: WebAssembly.Memory; h: Md5x4Kernel['h'] };
  return { memory: m, h };
}
