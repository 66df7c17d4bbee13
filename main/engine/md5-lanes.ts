// The parts' MD5s, computed four parts at a time by the SIMD kernel (md5x4-kernel.ts).
//
// The part sender reads each part in 1 MiB chunks into slots of the kernel's own memory (no copy)
// and hands each chunk to its part's PartMd5, which only queues it: a chunk is hashed when chunks
// of four parts wait, when a slot is wanted and none is free, or when a part wants its digest
// (storage answered). Hashing at once instead, most chunks were hashed alone, at a quarter of the
// kernel's rate: on loopback a part's bytes go out in a burst and the part then waits for its
// answer, so few parts are reading at any one moment, while many have chunks waiting. A part whose
// first chunk is not in the kernel's memory (the slots all lent) is hashed by OpenSSL; a later
// chunk not in it is copied in through a scratch slot and hashed at once. Everything here is
// synchronous: no thread, no timer.
import type { Hash } from 'node:crypto';
import { createHash } from 'node:crypto';
import type { Md5x4Kernel } from './md5x4-kernel.js';
import { HEADER_BYTES, SLOTS, SLOT_BYTES, md5x4Kernel } from './md5x4-kernel.js';

const LANES = 4;
const INITIAL = [0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476];

let kernel: Md5x4Kernel | undefined;
let heap: Uint8Array;
let words: Uint32Array; // the state area [0, 64) as 16 words: word l of a, then b, c, d
const freeSlots: Buffer[] = [];
let scratch: Buffer; // the last slot: chunks from outside the memory, and the padding block

function init(): Md5x4Kernel {
  if (kernel) return kernel;
  kernel = md5x4Kernel();
  const buffer = kernel.memory.buffer;
  heap = new Uint8Array(buffer);
  words = new Uint32Array(buffer, 0, 16);
  for (let i = SLOTS - 2; i >= 0; i--) freeSlots.push(Buffer.from(buffer, HEADER_BYTES + i * SLOT_BYTES, SLOT_BYTES));
  scratch = Buffer.from(buffer, HEADER_BYTES + (SLOTS - 1) * SLOT_BYTES, SLOT_BYTES);
  return kernel;
}

/**
 * A SLOT_BYTES (1 MiB) buffer in the kernel's memory, so a chunk read into it is hashed where it
 * lies. When none is free, the chunks waiting are hashed first (which frees the slots whose writes
 * are done); undefined if still none. Give it back with giveSlot once nothing reads, writes or
 * hashes it (PartMd5.update's `hashed` says when its hash is done).
 */
export function takeSlot(): Buffer | undefined {
  init();
  // The chunks waiting longest are mostly written already: hashing frees their slots.
  run(() => freeSlots.length > 0);
  return freeSlots.pop();
}

/** Whether `buffer` is a slot of the kernel's memory (from takeSlot). */
export function isSlot(buffer: Buffer): boolean {
  return kernel !== undefined && buffer.buffer === kernel.memory.buffer;
}

/** Returns a buffer from takeSlot. */
export function giveSlot(slot: Buffer): void {
  freeSlots.push(slot);
}

/** A chunk waiting to be hashed: address in the kernel's memory, length (a multiple of 64 bytes), and who to tell once hashed. */
interface Chunk {
  at: number;
  length: number;
  hashed?: () => void;
}

/** One part's running MD5 as the kernel sees it: the state (a, b, c, d) and its chunks waiting, in order. */
interface Lane {
  state: Uint32Array;
  chunks: Chunk[];
}

// Lanes with chunks waiting, in the order they queued their first.
const waiting = new Set<Lane>();

/**
 * Hashes waiting chunks, four lanes per kernel call, until `done()`: `first` (a lane whose chunks
 * are wanted now) always runs, with up to three others as passengers; each call runs as many
 * blocks as the shortest current chunk of its lanes has; with fewer than four lanes waiting, the
 * empty ones run a copy of another, dropped.
 */
function run(done: () => boolean, first?: Lane): void {
  while (!done() && waiting.size > 0) {
    const live = first && first.chunks.length > 0 ? [first, ...[...waiting].filter((l) => l !== first).slice(0, LANES - 1)] : [...waiting].slice(0, LANES);
    const blocks = Math.min(...live.map((l) => l.chunks[0]!.length)) / 64;
    const lane = (i: number) => live[i] ?? live[0]!;
    for (let i = 0; i < LANES; i++) for (let w = 0; w < 4; w++) words[w * 4 + i] = lane(i).state[w]!;
    kernel!.h(lane(0).chunks[0]!.at, lane(1).chunks[0]!.at, lane(2).chunks[0]!.at, lane(3).chunks[0]!.at, blocks);
    live.forEach((l, i) => {
      for (let w = 0; w < 4; w++) l.state[w] = words[w * 4 + i]!;
      const chunk = l.chunks[0]!;
      chunk.at += blocks * 64;
      chunk.length -= blocks * 64;
      if (chunk.length > 0) return;
      l.chunks.shift();
      if (l.chunks.length === 0) waiting.delete(l);
      chunk.hashed?.();
    });
  }
}

/**
 * The MD5 of one part's bytes, fed in order. A chunk in a slot is only queued: its bytes must stay
 * unchanged until its `hashed` is called (settle() hashes it at once).
 */
export class PartMd5 {
  private readonly lane: Lane = { state: Uint32Array.from(INITIAL), chunks: [] };
  private bytes = 0;
  private readonly tail = Buffer.alloc(64);
  private tailLength = 0;
  private scalar?: Hash;

  constructor() {
    init();
  }

  /**
   * Adds `chunk` after the bytes given so far. `hashed` is called once its bytes are read (at
   * once, or later for a chunk left waiting in a slot); until then they must not change.
   */
  update(chunk: Buffer, hashed?: () => void): void {
    // A part whose first chunk is not in a slot (every slot lent: many parts at once) is hashed by
    // OpenSSL throughout: one lane alone would cost the kernel's time for four.
    if (this.bytes === 0 && !this.scalar && !isSlot(chunk)) this.scalar = createHash('md5');
    if (this.scalar) {
      this.scalar.update(chunk);
      return hashed?.();
    }
    this.bytes += chunk.length;
    let from = 0;
    if (this.tailLength > 0) {
      from = Math.min(64 - this.tailLength, chunk.length);
      chunk.copy(this.tail, this.tailLength, 0, from);
      this.tailLength += from;
      if (this.tailLength < 64) return hashed?.();
      this.now(this.tail, 0, 64);
      this.tailLength = 0;
    }
    const whole = (chunk.length - from) & ~63;
    const rest = chunk.length - from - whole;
    if (rest > 0) chunk.copy(this.tail, 0, from + whole);
    this.tailLength = rest;
    if (whole > 0 && isSlot(chunk)) {
      this.lane.chunks.push({ at: chunk.byteOffset + from, length: whole, hashed });
      waiting.add(this.lane);
      // Four parts have chunks waiting: hashed while all four have some, the rest kept for later batches.
      run(() => waiting.size < LANES);
      return;
    }
    for (let done = 0; done < whole; done += SLOT_BYTES) this.now(chunk, from + done, Math.min(SLOT_BYTES, whole - done));
    hashed?.();
  }

  /** Hashes the chunks this part left waiting, if any (other parts' chunks riding along in the spare lanes). */
  settle(): void {
    run(() => this.lane.chunks.length === 0, this.lane);
  }

  /** The MD5 of every byte given, as 32 lowercase hex digits. The hash may not be updated afterwards. */
  digestHex(): string {
    if (this.scalar) return this.scalar.digest('hex');
    // RFC 1321 §3.1–3.2: a 1 bit, zeros to 56 mod 64, the length in bits (64-bit little-endian).
    const pad = Buffer.alloc(this.tailLength < 56 ? 64 : 128);
    this.tail.copy(pad, 0, 0, this.tailLength);
    pad[this.tailLength] = 0x80;
    pad.writeUInt32LE((this.bytes * 8) >>> 0, pad.length - 8);
    pad.writeUInt32LE(Math.floor((this.bytes * 8) / 2 ** 32), pad.length - 4);
    this.now(pad, 0, pad.length);
    const out = Buffer.alloc(16);
    for (let i = 0; i < 4; i++) out.writeUInt32LE(this.lane.state[i]!, 4 * i);
    return out.toString('hex');
  }

  /** Hashes bytes [from, from + length) of `data` now (length a multiple of 64, at most a slot), after the chunks waiting. */
  private now(data: Buffer, from: number, length: number): void {
    this.settle();
    heap.set(data.subarray(from, from + length), scratch.byteOffset);
    this.lane.chunks.push({ at: scratch.byteOffset, length });
    waiting.add(this.lane);
    this.settle();
  }
}
