import { mkdtempSync, openSync, readFileSync, rmSync, writeSync, closeSync, ftruncateSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { readMediaMetadata } from './metadata.js';

// No file a person hands the client may hang it: the readers of a recording's MP4 boxes and of
// its Insta360 trailer take a number of steps bounded by the file, whatever its bytes say
// (docs/media-readers.md). The seed is the real fixture, read and corrupted in memory; only the
// corrupted copies are written, to a temporary folder.
const fixtures = fileURLToPath(new URL('../../../shared/fixtures/', import.meta.url));
const seed = readFileSync(join(fixtures, 'sample.insv'));
const work = mkdtempSync(join(tmpdir(), 'metadata-bounds-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const MiB = 1024 * 1024;
const TAIL = 72;
const SIGNATURE = '8db42d694ccc418790edff439fe026bf';
// Where the fixture's trailer starts (its size field is in the tail).
const trailerStart = seed.length - seed.readUInt32LE(seed.length - TAIL + 32);
const mp4Part = seed.subarray(0, trailerStart);

/** The fixture's 72-byte tail with `trailerSize` in its size field. */
function tail(trailerSize: number): Buffer {
  const t = Buffer.from(seed.subarray(seed.length - TAIL));
  t.writeUInt32LE(trailerSize >>> 0, 32);
  t.write(SIGNATURE, 40, 'latin1');
  return t;
}

let n = 0;
/**
 * Writes `head`, then `gap` bytes of zeros (a hole: no disk is used), then `end`, to a new file;
 * returns its path and size in bytes.
 */
function damaged(head: Uint8Array, gap: number, end: Uint8Array): { path: string; size: number } {
  const path = join(work, `damaged-${++n}.insv`);
  const fd = openSync(path, 'w');
  try {
    writeSync(fd, head, 0, head.length, 0);
    const size = head.length + gap + end.length;
    ftruncateSync(fd, size);
    writeSync(fd, end, 0, end.length, head.length + gap);
    return { path, size };
  } finally {
    closeSync(fd);
  }
}

/** Reads the file's metadata; answers how it ended (read or refused with an Error) and the ms taken. */
async function timedRead(path: string): Promise<{ ms: number; outcome: 'read' | 'refused' }> {
  const t0 = performance.now();
  const outcome = await readMediaMetadata(path).then(
    () => 'read' as const,
    (err: unknown) => {
      // A refusal is an Error that says what is wrong, never a crash of the reader itself.
      expect(err).toBeInstanceOf(Error);
      return 'refused' as const;
    },
  );
  return { ms: performance.now() - t0, outcome };
}

// Generous on a loaded 2-core machine: a bounded reader takes milliseconds whatever the size,
// since it reads only headers; an unbounded one takes minutes on the 64 MiB cases.
const allowedMs = (size: number) => 3000 + 500 * (size / MiB);

describe('a damaged recording cannot hang the reader', () => {
  it(
    'a trailer whose size field says 64 MiB over 64 MiB of zeros (zero-size frames): the container is read, no camera, at once',
    { timeout: 30_000 },
    async () => {
      const { path, size } = damaged(mp4Part, 64 * MiB, tail(64 * MiB + TAIL));
      const t0 = performance.now();
      const m = await readMediaMetadata(path);
      expect(m).toMatchObject({ createdAt: '2023-11-21T20:16:09.000Z', width: 736, height: 368 });
      expect(m.camera).toBeUndefined();
      expect(performance.now() - t0).toBeLessThan(allowedMs(size));
    },
  );

  it('a trailer size field larger than the file: no camera, at once', { timeout: 30_000 }, async () => {
    const { path, size } = damaged(mp4Part, 8 * MiB, tail(0xffffffff));
    const t0 = performance.now();
    expect((await readMediaMetadata(path)).camera).toBeUndefined();
    expect(performance.now() - t0).toBeLessThan(allowedMs(size));
  });

  it(
    '8 MiB of empty 8-byte boxes and no moov: refused as not an MP4 container, at once',
    { timeout: 30_000 },
    async () => {
      const free = Buffer.alloc(8 * MiB);
      for (let at = 0; at < free.length; at += 8) {
        free.writeUInt32BE(8, at);
        free.write('free', at + 4, 'latin1');
      }
      const { path, size } = damaged(free, 0, Buffer.alloc(0));
      const t0 = performance.now();
      await expect(readMediaMetadata(path)).rejects.toThrow(/not an MP4 container/);
      expect(performance.now() - t0).toBeLessThan(allowedMs(size));
    },
  );

  it('the real trailer still gives its camera when zero-size frames of its own lie beyond the info frame', async () => {
    const { path } = damaged(seed, 0, Buffer.alloc(0));
    expect((await readMediaMetadata(path)).camera).toEqual({
      model: 'Insta360 OneR',
      serialNumber: 'IAEAN00000XXXX',
      firmware: 'v2.0.0_build11',
    });
  });

  it(
    'fuzz: truncated and corrupted copies of the fixture are read or refused within a time per MiB',
    { timeout: 240_000 },
    async () => {
      // One case: the fixture cut at `cut` bytes (or whole), with `edits` bytes overwritten (offsets
      // drawn mostly in the trailer and the MP4 headers), an optional hole of `gap` bytes before a
      // tail whose size field is `sizeField`, and zero-size frame headers stacked before that tail.
      const edit = fc.record({
        region: fc.constantFrom('trailer', 'headers', 'anywhere'),
        at: fc.nat(),
        byte: fc.integer({ min: 0, max: 255 }),
      });
      const damage = fc.record({
        cut: fc.option(fc.integer({ min: 0, max: seed.length }), { nil: undefined }),
        edits: fc.array(edit, { maxLength: 24 }),
        gap: fc.constantFrom(0, 0, 1024, MiB, 16 * MiB, 64 * MiB),
        sizeField: fc.option(fc.oneof(fc.nat(), fc.constantFrom(0, 6, 72, 64 * MiB, 0xffffffff)), { nil: undefined }),
        zeroFrames: fc.nat({ max: 64 }),
      });
      await fc.assert(
        fc.asyncProperty(damage, async (d) => {
          const bytes = Buffer.from(seed.subarray(0, d.cut ?? seed.length));
          for (const e of d.edits) {
            if (bytes.length === 0) break;
            const [from, to] =
              e.region === 'trailer'
                ? [Math.min(trailerStart, bytes.length - 1), bytes.length]
                : e.region === 'headers'
                  ? [0, Math.min(1895 + 16, bytes.length)]
                  : [0, bytes.length];
            bytes[from + (e.at % Math.max(1, to - from))] = e.byte;
          }
          // With a tail of its own: the hole and the zero-size frame headers sit between the bytes and it.
          const end =
            d.sizeField === undefined
              ? Buffer.alloc(0)
              : Buffer.concat([Buffer.alloc(6 * d.zeroFrames), tail(d.sizeField)]);
          const { path, size } = damaged(bytes, d.sizeField === undefined ? 0 : d.gap, end);
          const { ms } = await timedRead(path);
          rmSync(path);
          expect(ms).toBeLessThan(allowedMs(size));
        }),
        { numRuns: 60, seed: 20261127 },
      );
    },
  );
});
