import { randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MiB, sha256, prng, useCliKit } from '../main/testing/kit.js';

// As a person meets it: `capture-uploader drain` stopped with Ctrl-C (SIGINT) at
// seeded random instants, 50 times in a row on one queue, each run started as soon as the last
// exited; then one drain to the end. No part may be stored twice.
const RUNS = 50;
const FILES = 12;

const kit = useCliKit('interrupt-drain');

const cli = (dataDir: string, args: string[]) => kit.spawn(dataDir, ['--concurrency', '2', ...args]);

describe('drain stopped by Ctrl-C at random instants', () => {
  it(`${RUNS} interrupted drains, then one to the end: no part stored twice, every object byte-identical`, async () => {
    const dataDir = join(kit.work, 'queue');
    const cards = join(kit.work, 'cards');
    mkdirSync(cards);
    const random = prng(17_16);
    const files = new Map<number, string>(); // size → SHA-256; sizes differ so each object is found by its size
    for (let i = 0; i < FILES; i++) {
      const bytes = randomBytes(5 * MiB + 1 + i * 4099 + Math.floor(random() * 4096)); // two parts
      files.set(bytes.length, sha256(bytes));
      writeFileSync(join(cards, `walk-${i}.mp4`), bytes);
    }
    const add = await cli(dataDir, ['add', '--structure', kit.structure(), '--type', 'interior', cards]).done;
    expect(add.code, add.out).toBe(0);
    const before = { ...kit.svc.storage.stats };
    // Slow enough that parts are in flight, and the system's buffers full, when Ctrl-C comes.
    await kit.svc.admin('PUT', '/settings', { bandwidthBytesPerSecond: 1 * MiB });
    for (let run = 0; run < RUNS; run++) {
      const drain = cli(dataDir, ['drain']);
      const after = 1200 + Math.floor(random() * 2500); // the CLI takes about a second to start
      const timer = setTimeout(() => drain.child.kill('SIGINT'), after);
      const res = await drain.done;
      clearTimeout(timer);
      // 130: stopped by the CLI's handler; killed by the signal itself: Ctrl-C came before the CLI had started.
      expect([0, 130, 'SIGINT'], `run ${run}: ${res.out}`).toContain(res.code ?? res.signal);
      expect(
        kit.svc.storage.stats.partsReplaced - before.partsReplaced,
        `run ${run}, Ctrl-C after ${after} ms: a part was stored twice`,
      ).toBe(0);
    }
    await kit.svc.admin('PUT', '/settings', { bandwidthBytesPerSecond: null });
    const last = await cli(dataDir, ['drain']).done;
    expect(last.code, last.out).toBe(0);
    expect(kit.svc.storage.stats.partsReplaced - before.partsReplaced).toBe(0);
    for (const [size, digest] of files) {
      expect((await kit.storedBySize(size)).sha256, `file of ${size} bytes`).toBe(digest);
    }
  }, 900_000);
});
