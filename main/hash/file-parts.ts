// The part MD5s of the offload's files, four parts at a time through the one lane scheduler
// (lanes.ts), run by the hashing thread (md5-worker.ts) over the chunk pool the copy reads into (pool.ts).
//
// Why four parts: MD5 is one chain of dependent steps; OpenSSL runs one stream at about 1.4 CPU
// s/GiB here, the SIMD kernel (kernel.ts) four streams in about the time of one.
// The parts of a file are independent streams, but the copy reads them one after the other, so
// chunks wait here, unhashed in their pool slot, until four parts have bytes waiting; then one
// kernel call advances all four. A slot goes back to the copy once every byte of it is hashed.
// When the copy wants a slot and none is free (part sizes too large for four parts to fit in the
// pool), the oldest waiting bytes are hashed with fewer lanes, at a lower rate, never a wrong one.
import { md5x4Kernel } from './kernel.js';
import type { Md5Lane, Segment } from './lanes.js';
import { LANES, LaneScheduler, laneDigest, md5Lane, md5Padding } from './lanes.js';
/** Where scratch blocks start in the pool's header (the kernel's state and block sit below). */
const SCRATCH_AT = 1024;
/** Bytes of a scratch block: a part's padding takes up to two MD5 blocks (RFC 1321 §3.1). */
const SCRATCH_BYTES = 128;

/** The shape of a chunk pool: a shared memory of `header` bytes, then `slots` slots of `slotBytes`. */
export interface PoolLayout {
  memory: WebAssembly.Memory;
  header: number;
  slotBytes: number;
  slots: number;
}

/** Bytes waiting in a lane, in the pool: a slot's (`slot`) or a scratch block's (`scratch`). */
interface PoolSegment extends Segment {
  slot?: number;
  scratch?: number;
}

/** One part's running MD5 (lanes.ts) and its place: its file and part, bytes fed, bytes short of a block. */
interface Lane extends Md5Lane {
  file: FileLanes;
  part: number;
  bytes: number;
  tail: Uint8Array;
  tailLength: number;
  segments: PoolSegment[];
  final: boolean;
}

interface FileLanes {
  partSize: number;
  parts: number;
  open?: Lane;
  lanes: Set<Lane>;
  digests: Buffer[];
  ended: boolean;
}

/**
 * The hashing side of a chunk pool: files begin, their chunks arrive in file order (`chunk`), and
 * `end` answers the MD5 of each part of `partSize` bytes (capture-upload-interface.md §4.6: part N
 * covers bytes (N-1)·partSize up to N·partSize; an empty file is one empty part), exactly as
 * node:crypto's MD5 of those bytes. `freed` is told each slot whose bytes are all hashed.
 * Synchronous and single-threaded: the worker calls it for each message.
 */
export class PartMd5Lanes {
  private readonly lanes: LaneScheduler<Lane>;
  private readonly heap: Uint8Array;
  private readonly files = new Map<number, FileLanes>();
  private readonly refs: number[];
  private readonly freeScratch: number[] = [];
  /** Kernel calls made and lanes they advanced (a lane a call runs twice counts once): how well the pool batches. */
  readonly stats: { calls: number; lanes: number };

  constructor(
    private readonly pool: PoolLayout,
    private readonly freed: (slot: number) => void,
  ) {
    this.lanes = new LaneScheduler<Lane>(md5x4Kernel(pool.memory));
    this.stats = this.lanes.stats;
    this.heap = new Uint8Array(pool.memory.buffer);
    this.refs = new Array<number>(pool.slots).fill(0);
    for (let at = pool.header - SCRATCH_BYTES; at >= SCRATCH_AT; at -= SCRATCH_BYTES) this.freeScratch.push(at);
  }

  /** Starts file `id`, to be cut into parts of `partSize` bytes (a positive integer). */
  begin(id: number, partSize: number): void {
    if (!Number.isSafeInteger(partSize) || partSize <= 0)
      throw new RangeError(`partSize must be a positive integer, not ${partSize}`);
    this.files.set(id, { partSize, parts: 0, lanes: new Set(), digests: [], ended: false });
  }

  /** The file's next `length` bytes are in `slot` from its start. The slot is lent until `freed` names it. */
  chunk(id: number, slot: number, length: number): void {
    const f = this.file(id);
    const base = this.pool.header + slot * this.pool.slotBytes;
    this.refs[slot]! += 1; // held while the chunk is cut up, so it is not freed halfway
    for (let done = 0; done < length; ) {
      const lane = f.open ?? this.openLane(f);
      const take = Math.min(f.partSize - lane.bytes, length - done);
      this.feed(lane, base + done, take, slot);
      done += take;
      if (lane.bytes === f.partSize) this.close(lane);
    }
    this.release(slot);
    // Four parts have bytes waiting: hashed while four have some; the rest waits for company.
    this.lanes.run(() => this.lanes.waiting.size < LANES);
  }

  /** Hashes the oldest waiting bytes until at least one slot is freed (the copy waits for one), or nothing waits; answers whether one was. */
  need(): boolean {
    let freedOne = false;
    const was = this.onFreed;
    this.onFreed = () => (freedOne = true);
    try {
      while (!freedOne && this.lanes.waiting.size > 0) {
        const oldest = this.lanes.waiting.values().next().value!;
        this.lanes.run(() => freedOne || oldest.segments.length === 0, oldest);
      }
    } finally {
      this.onFreed = was;
    }
    return freedOne;
  }

  /** The file is complete: hashes what it left waiting and answers its parts' MD5s, 16 bytes each in part order. */
  end(id: number): Buffer {
    const f = this.file(id);
    if (f.open) this.close(f.open);
    else if (f.parts === 0) this.close(this.openLane(f)); // an empty file is one empty part
    f.ended = true;
    for (const lane of [...f.lanes]) this.lanes.run(() => lane.segments.length === 0, lane);
    for (const lane of [...f.lanes]) this.done(lane);
    this.files.delete(id);
    return Buffer.concat(f.digests);
  }

  /** Forgets a file (its copy failed): its waiting bytes are dropped and their slots freed. */
  abort(id: number): void {
    const f = this.files.get(id);
    if (!f) return;
    for (const lane of f.lanes) {
      for (const s of lane.segments) this.settled(s);
      lane.segments = [];
      this.lanes.waiting.delete(lane);
    }
    this.files.delete(id);
  }

  private onFreed: () => void = () => {};

  private file(id: number): FileLanes {
    const f = this.files.get(id);
    if (!f) throw new Error(`part MD5s: no file ${id} was begun`);
    return f;
  }

  private openLane(f: FileLanes): Lane {
    const lane: Lane = {
      ...md5Lane(),
      file: f,
      part: f.parts++,
      bytes: 0,
      tail: new Uint8Array(64),
      tailLength: 0,
      segments: [],
      final: false,
    };
    f.open = lane;
    f.lanes.add(lane);
    return lane;
  }

  /** Adds `length` bytes at pool address `at` to a lane: whole blocks wait in place, a block cut by a chunk's end is gathered in the tail. */
  private feed(lane: Lane, at: number, length: number, slot: number): void {
    lane.bytes += length;
    let from = 0;
    if (lane.tailLength > 0) {
      from = Math.min(64 - lane.tailLength, length);
      lane.tail.set(this.heap.subarray(at, at + from), lane.tailLength);
      lane.tailLength += from;
      if (lane.tailLength < 64) return;
      this.queueScratch(lane, lane.tail);
      lane.tailLength = 0;
    }
    const whole = (length - from) & ~63;
    if (whole > 0) {
      this.refs[slot]! += 1;
      this.queue(lane, { at: at + from, length: whole, slot });
    }
    const rest = length - from - whole;
    if (rest > 0) lane.tail.set(this.heap.subarray(at + from + whole, at + length), 0);
    lane.tailLength = rest;
  }

  /** The part has all its bytes: queues its padding (RFC 1321 §3.1–3.2, lanes.ts md5Padding). */
  private close(lane: Lane): void {
    this.queueScratch(lane, md5Padding(lane.tail, lane.tailLength, lane.bytes));
    lane.final = true;
    lane.file.open = undefined;
  }

  /** Copies `bytes` (64 or 128) into a scratch block of the pool and queues them on the lane. */
  private queueScratch(lane: Lane, bytes: Uint8Array): void {
    // Every scratch block waiting (many parts' tails): hash everything, which frees them all.
    if (this.freeScratch.length === 0) this.lanes.run(() => false);
    const at = this.freeScratch.pop()!;
    this.heap.set(bytes, at);
    this.queue(lane, { at, length: bytes.length, scratch: at });
  }

  /** Queues `segment` on the lane: once hashed, its scratch block or share of a slot is given back, and an ended file's lane yields its digest. */
  private queue(lane: Lane, segment: PoolSegment): void {
    segment.hashed = () => {
      this.settled(segment);
      if (lane.file.ended) this.done(lane);
    };
    this.lanes.queue(lane, segment);
  }

  /** A segment was hashed (or dropped): its scratch block or its share of a slot is given back. */
  private settled(s: PoolSegment): void {
    if (s.scratch !== undefined) this.freeScratch.push(s.scratch);
    if (s.slot !== undefined) this.release(s.slot);
  }

  private release(slot: number): void {
    this.refs[slot]! -= 1;
    if (this.refs[slot] !== 0) return;
    this.freed(slot);
    this.onFreed();
  }

  /** A lane of an ended file with nothing waiting: its digest is the state, little-endian. */
  private done(lane: Lane): void {
    if (!lane.final || lane.segments.length > 0) return;
    lane.file.digests[lane.part] = laneDigest(lane);
    lane.file.lanes.delete(lane);
  }
}
