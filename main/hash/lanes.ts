// The one lane scheduler of the part MD5s (docs/decisions/0022-one-md5-module.md): every part being
// hashed is a lane with its running state and the byte runs waiting for it; the runs wait, unhashed
// where they lie in the kernel's memory, until four lanes have some, and one kernel call then
// advances all four. MD5 is one chain of dependent steps, so a stream hashed alone runs at the
// chain's latency; four side by side cost about what one does (kernel.ts). Used by the part sender
// (local-md5.ts, over the kernel's own memory). Synchronous, single-threaded.
import type { Md5x4Kernel } from './kernel.js';

/** Streams one kernel call advances. */
export const LANES = 4;
/** RFC 1321 §3.3: the state (a, b, c, d) before the first block. */
const INITIAL = [0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476];

/** A run of bytes waiting in the kernel's memory: byte address, length (a multiple of 64), and who to tell once it is hashed. */
export interface Segment {
  at: number;
  length: number;
  hashed?: () => void;
}

/** One stream's running MD5 as the kernel sees it: the state (a, b, c, d) and its runs waiting, in order. */
export interface Md5Lane {
  state: Uint32Array;
  segments: Segment[];
}

/** A fresh lane: RFC 1321's initial state, nothing waiting. */
export function md5Lane(): Md5Lane {
  return { state: Uint32Array.from(INITIAL), segments: [] };
}

/**
 * The last block or two of a stream of `bytes` bytes whose last `tailLength` (< 64) bytes are
 * `tail`: RFC 1321 §3.1–3.2, a 1 bit, zeros to 56 mod 64, the length in bits (64-bit little-endian).
 * 64 or 128 bytes.
 */
export function md5Padding(tail: Uint8Array, tailLength: number, bytes: number): Uint8Array {
  const pad = new Uint8Array(tailLength < 56 ? 64 : 128);
  pad.set(tail.subarray(0, tailLength));
  pad[tailLength] = 0x80;
  const view = new DataView(pad.buffer);
  view.setUint32(pad.length - 8, (bytes * 8) >>> 0, true);
  view.setUint32(pad.length - 4, Math.floor((bytes * 8) / 2 ** 32), true);
  return pad;
}

/** The digest of a lane whose padding has been hashed: its state, little-endian (RFC 1321 §3.5), 16 bytes. */
export function laneDigest(lane: Md5Lane): Buffer {
  const d = Buffer.alloc(16);
  for (let i = 0; i < 4; i++) d.writeUInt32LE(lane.state[i]!, 4 * i);
  return d;
}

/**
 * The lanes with runs waiting, and the kernel that hashes them. The kernel's state area [0, 64)
 * (word-major: a of lanes 0–3, then b, c, d) is written and read around each call.
 */
export class LaneScheduler<L extends Md5Lane = Md5Lane> {
  /** Lanes with runs waiting, in the order they started waiting. */
  readonly waiting = new Set<L>();
  /** Kernel calls made and lanes they advanced (a lane a call runs twice counts once): how well the runs batch. */
  readonly stats = { calls: 0, lanes: 0 };
  private readonly words: Uint32Array;

  constructor(private readonly kernel: Md5x4Kernel) {
    this.words = new Uint32Array(kernel.memory.buffer, 0, 16);
  }

  /** Queues `segment` after the lane's runs waiting; its bytes must stay unchanged until its `hashed` is called. */
  queue(lane: L, segment: Segment): void {
    lane.segments.push(segment);
    this.waiting.add(lane);
  }

  /**
   * Hashes waiting runs, four lanes per kernel call, until `stop()` or nothing waits: `first` (a
   * lane whose runs are wanted now) always runs when it has some, with up to three others as
   * passengers; each call runs as many blocks as the shortest current run of its lanes; with fewer
   * than four lanes waiting, the spare ones repeat lane 0 and are dropped. A run's `hashed` is
   * called once its last block is in the state (the lane already out of `waiting` if it was its last).
   */
  run(stop: () => boolean, first?: L): void {
    while (!stop() && this.waiting.size > 0) {
      const others = [...this.waiting].filter((l) => l !== first);
      const live = first && first.segments.length > 0 ? [first, ...others.slice(0, LANES - 1)] : others.slice(0, LANES);
      const blocks = Math.min(...live.map((l) => l.segments[0]!.length)) / 64;
      const lane = (i: number) => live[i] ?? live[0]!;
      for (let i = 0; i < LANES; i++) for (let w = 0; w < 4; w++) this.words[w * 4 + i] = lane(i).state[w]!;
      this.kernel.h(
        lane(0).segments[0]!.at,
        lane(1).segments[0]!.at,
        lane(2).segments[0]!.at,
        lane(3).segments[0]!.at,
        blocks,
      );
      this.stats.calls += 1;
      this.stats.lanes += live.length;
      for (const [i, l] of live.entries()) {
        for (let w = 0; w < 4; w++) l.state[w] = this.words[w * 4 + i]!;
        const s = l.segments[0]!;
        s.at += blocks * 64;
        s.length -= blocks * 64;
        if (s.length > 0) continue;
        l.segments.shift();
        if (l.segments.length === 0) this.waiting.delete(l);
        s.hashed?.();
      }
    }
  }
}
