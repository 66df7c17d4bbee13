import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { TestService } from '../../e2e/service/testing.js';
import type { ServiceKit } from '../testing/kit.js';
import { MiB, startServiceKit } from '../testing/kit.js';

// The wait for a part's answer after its last byte (docs/engine.md, "A silent link", rule 3)
// comes from the part itself, never from older answers. Behind a proxy that buffers whole bodies
// and then forwards them to storage, a link that was fast and turned slow answers a part only once
// the proxy has sent it on: a delay in proportion to the part's size. Earlier fast answers must
// not cut that wait short, or the part is stored twice (the proxy delivers the abandoned copy too).

let kit: ServiceKit;
let svc: TestService;

beforeAll(async () => {
  kit = await startServiceKit('answer-allowance');
  svc = kit.svc;
});
afterEach(async () => kit.reset());
afterAll(async () => kit.stop());

const STALL_MS = 2000;
// The slowest link assumed for a part taken whole by the system's buffers (EngineOptions.minLinkRate).
const SLOWEST = 128 * 1024;
const PART = MiB; // a one-part file, smaller than the system's buffers: every byte is taken at once

/** UploadPart requests storage received since `from`, per object key and part number. */
function putsSince(from: number): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const r of svc.storage.received.slice(from)) {
    if (r.operation !== 'UploadPart') continue;
    const k = `${r.key} ${r.partNumber}`;
    counts[k] = (counts[k] ?? 0) + 1;
  }
  return counts;
}

describe('the wait for a part\'s answer after its last byte', () => {
  it('after fast answers, a part the proxy forwards slowly is waited for, not sent twice', async () => {
    const u = kit.uploader('buffering-proxy', { stallTimeoutMs: STALL_MS, minLinkRate: SLOWEST, concurrency: 1, answerSettleMs: 500 });
    // Fast first: these answers measure a fast link.
    const fast = kit.file('fast.mp4', 2 * 5 * MiB + 7);
    await u.add([fast.path], { structure: kit.structure(), type: 'interior' });
    expect((await u.engine.drain()).completed).toHaveLength(1);

    // Then slow: the proxy sends each body on at 160 KiB/s once it has all of it, well past twice
    // the stall timeout, and storage stores it even if the client has given up meanwhile.
    const delay = Math.round((PART * 1000) / (160 * 1024)); // 6.4 s
    expect(delay).toBeGreaterThan(2 * STALL_MS + 1000);
    expect((await svc.admin('PUT', '/settings', { partStoreDelayMs: delay })).status).toBe(200);
    const slow = kit.file('slow.mp4', PART);
    const { queued } = await u.add([slow.path], { structure: kit.structure(), type: 'interior' });
    const fileId = u.queue.filesOf(queued[0]!)[0]!.id;
    const before = { ...svc.storage.stats };
    const from = svc.storage.received.length;
    const summary = await u.engine.drain();
    expect(summary.completed.map((f) => f.id)).toContain(fileId);
    expect(Object.values(putsSince(from)), 'PUTs of the one part').toEqual([1]);
    expect(svc.storage.stats.partsReplaced - before.partsReplaced, 'a part stored twice').toBe(0);
    expect((await kit.stored(u, fileId)).sha256).toBe(slow.sha256);
  }, 60_000);

  it('a part whose answer never comes is given up within the stall timeout plus its own bytes at the slowest link, then sent again', async () => {
    const said: { at: number; text: string }[] = [];
    const log = (text: string) => said.push({ at: performance.now(), text });
    const u = kit.uploader('silent-answer', { stallTimeoutMs: STALL_MS, minLinkRate: SLOWEST, concurrency: 1, log: { info: log, warn: log } });
    const fast = kit.file('fast-2.mp4', 5 * MiB + 3);
    await u.add([fast.path], { structure: kit.structure(), type: 'interior' });
    expect((await u.engine.drain()).completed).toHaveLength(1);

    // Storage takes the body into its buffers and then answers nothing, once.
    await kit.fault({ target: 'storage', operation: 'UploadPart', times: 1, action: { type: 'hang' } });
    const silent = kit.file('silent.mp4', PART);
    const { queued } = await u.add([silent.path], { structure: kit.structure(), type: 'interior' });
    const fileId = u.queue.filesOf(queued[0]!)[0]!.id;
    const summary = await u.engine.drain();
    expect(summary.completed.map((f) => f.id)).toContain(fileId);
    const held = svc.faults.held.at(-1)!;
    const given = said.find((l) => /Part 1 of silent\.mp4: No progress for \d+ s after the whole part was sent/.test(l.text));
    expect(given, said.map((l) => l.text).join('\n')).toBeDefined();
    const bound = STALL_MS + (PART * 1000) / SLOWEST; // 10 s
    expect(given!.at - held.at, 'given up after').toBeLessThan(bound + 3000);
    expect(given!.at - held.at, "its own bytes at the slowest link counted").toBeGreaterThan(bound - 1500);
    expect((await kit.stored(u, fileId)).sha256).toBe(silent.sha256);
  }, 60_000);
  it('beside a larger part whose write is stuck (a dead path, not a slow one), a small part is given up at twice the stall timeout', async () => {
    const said: { at: number; text: string }[] = [];
    const log = (text: string) => said.push({ at: performance.now(), text });
    const u = kit.uploader('dead-path', { stallTimeoutMs: STALL_MS, minLinkRate: SLOWEST, concurrency: 2, log: { info: log, warn: log } });
    // Storage holds both requests unread once: the 5 MiB part's body does not fit in the buffers,
    // so its write waits; the 1 MiB part's every byte is taken at once.
    await kit.fault({ target: 'storage', operation: 'UploadPart', times: 2, action: { type: 'hang' } });
    const big = kit.file('dead-big.mp4', 5 * MiB);
    const small = kit.file('dead-small.mp4', PART);
    const { queued } = await u.add([big.path, small.path], { structure: kit.structure(), type: 'interior' });
    const ids = queued.map((row) => u.queue.filesOf(row)[0]!.id);
    const summary = await u.engine.drain();
    expect(summary.completed.map((f) => f.id).sort()).toEqual(ids.sort());
    const held = svc.faults.held.find((h) => h.key!.endsWith('dead-small.mp4'))!;
    const given = said.find((l) => /Part 1 of dead-small\.mp4: No progress for \d+ s after the whole part was sent/.test(l.text));
    expect(given, said.map((l) => l.text).join('\n')).toBeDefined();
    expect(given!.at - held.at, 'given up after').toBeLessThan(2 * STALL_MS + 3000);
    expect((await kit.stored(u, ids[1]!)).sha256).toBe(small.sha256);
    expect((await kit.stored(u, ids[0]!)).sha256).toBe(big.sha256);
  }, 60_000);
});
