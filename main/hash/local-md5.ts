// The parts' MD5s in the part sender's own thread, four parts at a time through the one lane
// scheduler (lanes.ts) and the SIMD kernel over its own memory (kernel.ts).
//
// The part sender reads each part in 1 MiB chunks into slots of the kernel's own memory (no copy)
// and hands each chunk to its part's PartMd5, which only queues it: a chunk is hashed when chunks
// of four parts wait, when a slot is wanted and none is free, or when a part wants its digest
// (storage answered). Hashing at once instead, most chunks were hashed alone, at a quarter of the
// kernel's rate: on loopback a part's bytes go out in a burst and the part then waits for its
// answer, so few parts are reading at any one moment, while many have chunks waiting. A part whose
// first chunk is not in the kernel's memory (the slots all lent) is hashed by OpenSSL; a later
// chunk not in it is copied in through a scratch slot and hashed at once. Everything here is
// synchronous: no thread, no timer. Where the kernel's memory cannot be had (WebAssembly memories
// reserve gigabytes of address space: a process under `ulimit -v`, a 32-bit host), every part is
// hashed by OpenSSL: slower, and a local limit, never a reason to fail a file.
import type { Hash } from 'node:crypto';
import { createHash } from 'node:crypto';
import type { Md5x4Kernel } from './kernel.js';
import { SLOTS, SLOT_BYTES, md5x4Kernel, slotViews } from './kernel.js';
import type { Md5Lane } from './lanes.js';
import { LANES, LaneScheduler, laneDigest, md5Lane, md5Padding } from './lanes.js';

let kernel: Md5x4Kernel | undefined;
/** Why the kernel could not be made, once tried and refused. */
let refused: string | undefined;
let heap: Uint8Array;
let lanes: LaneScheduler;
const freeSlots: Buffer[] = [];
let scratch: Buffer; // the last slot: chunks from outside the memory, and the padding block

function init(): Md5x4Kernel | undefined {
  if (kernel || refused !== undefined) return kernel;
  try {
    kernel = md5x4Kernel();
  } catch (err) {
    refused = err instanceof Error ? err.message : String(err);
    return undefined;
  }
  const buffer = kernel.memory.buffer;
  heap = new Uint8Array(buffer);
  lanes = new LaneScheduler(kernel);
  const slots = slotViews(kernel.memory, SLOT_BYTES, SLOTS);
  scratch = slots.pop()!;
  freeSlots.push(...slots.reverse());
  return kernel;
}

/**
 * A SLOT_BYTES (1 MiB) buffer in the kernel's memory, so a chunk read into it is hashed where it
 * lies. When none is free, the chunks waiting are hashed first (which frees the slots whose writes
 * are done); undefined if still none. Give it back with giveSlot once nothing reads, writes or
 * hashes it (PartMd5.update's `hashed` says when its hash is done).
 */
export function takeSlot(): Buffer | undefined {
  if (!init()) return undefined; // no kernel: chunks go in the sender's own buffers, to OpenSSL
  // The chunks waiting longest are mostly written already: hashing frees their slots.
  lanes.run(() => freeSlots.length > 0);
  return freeSlots.pop();
}

/**
 * Why the four-lane kernel is not used, when its memory could not be had (the WebAssembly error's
 * message: "WebAssembly.Instance(): Out of memory: …"); undefined when it is used. Tries to make it
 * on the first call. Every part MD5 is then computed by node:crypto (OpenSSL).
 */
export function md5KernelRefused(): string | undefined {
  init();
  return refused;
}

/** Whether `buffer` is a slot of the kernel's memory (from takeSlot). */
export function isSlot(buffer: Buffer): boolean {
  return kernel !== undefined && buffer.buffer === kernel.memory.buffer;
}

/** Returns a buffer from takeSlot. */
export function giveSlot(slot: Buffer): void {
  freeSlots.push(slot);
}

/**
 * The MD5 of one part's bytes, fed in order. A chunk in a slot is only queued: its bytes must stay
 * unchanged until its `hashed` is called (settle() hashes it at once).
 */
export class PartMd5 {
  private readonly lane: Md5Lane = md5Lane();
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
      lanes.queue(this.lane, { at: chunk.byteOffset + from, length: whole, hashed });
      // Four parts have chunks waiting: hashed while all four have some, the rest kept for later batches.
      lanes.run(() => lanes.waiting.size < LANES);
      return;
    }
    for (let done = 0; done < whole; done += SLOT_BYTES)
      this.now(chunk, from + done, Math.min(SLOT_BYTES, whole - done));
    hashed?.();
  }

  /** Hashes the chunks this part left waiting, if any (other parts' chunks riding along in the spare lanes). */
  settle(): void {
    lanes.run(() => this.lane.segments.length === 0, this.lane);
  }

  /** The MD5 of every byte given, as 32 lowercase hex digits. The hash may not be updated afterwards. */
  digestHex(): string {
    if (this.scalar) return this.scalar.digest('hex');
    if (!kernel) return createHash('md5').digest('hex'); // nothing was fed, and there is no kernel
    const pad = md5Padding(this.tail, this.tailLength, this.bytes);
    this.now(Buffer.from(pad.buffer, pad.byteOffset, pad.length), 0, pad.length);
    return laneDigest(this.lane).toString('hex');
  }

  /** Hashes bytes [from, from + length) of `data` now (length a multiple of 64, at most a slot), after the chunks waiting. */
  private now(data: Buffer, from: number, length: number): void {
    this.settle();
    heap.set(data.subarray(from, from + length), scratch.byteOffset);
    lanes.queue(this.lane, { at: scratch.byteOffset, length });
    this.settle();
  }
}
