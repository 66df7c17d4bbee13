import { afterEach, describe, expect, it } from 'vitest';
import { MiB, sha256, useCliKit, waitFor } from '../main/testing/kit.js';
import { partAnswerLost, partsHung } from '../main/testing/e2e-faults.js';

// Reproduced: storage, like real S3, takes a while after a part's last byte before it
// stores the part and answers, and keeps a whole body even when the client has gone. Ctrl-C in
// that moment, then `drain` again at once: presign-missing still lists the part (storage has not
// stored it yet), and a client that trusts that first answer sends the part a second time.
// Longer than the 5 s a fully sent part is given for its answer on quit, so the part is truly
// left in doubt; shorter than the 15 s the next start waits for such a part (main/engine/parts/in-doubt.ts).
const STORE_DELAY_MS = 8000;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const kit = useCliKit('answer-in-doubt');

/** The CLI one part at a time, so a part is alone in flight when the test stops it. */
const cli = (dataDir: string, args: string[]) => kit.spawn(dataDir, ['--concurrency', '1', ...args]);

const queued = (name: string, size: number) => kit.queued(name, size);
const puts = () => kit.puts();
const storedHash = async (size: number) => (await kit.storedBySize(size)).sha256;

/**
 * Starts a drain of the queue in `dataDir`, waits until a whole part body reached storage (or, with
 * `until: 'put'`, until a part PUT began), then `settleMs` (ms) more, and stops it with `signal`.
 * Resolves with storage's counters and its PUT count from before the drain, and how the drain ended.
 */
async function stoppedDrain(
  dataDir: string,
  signal: 'SIGINT' | 'SIGKILL',
  opts: { until?: 'body' | 'put'; settleMs?: number } = {},
) {
  const before = { ...kit.svc.storage.stats };
  const putsBefore = puts().length;
  const first = cli(dataDir, ['drain']);
  if (opts.until === 'put') await waitFor(() => puts().length > putsBefore, 60_000, 'a PUT at storage');
  else
    await waitFor(
      () => kit.svc.storage.stats.partBodiesReceived > before.partBodiesReceived,
      60_000,
      'a whole part body at storage',
    );
  if (opts.settleMs) await sleep(opts.settleMs);
  first.child.kill(signal);
  return { before, putsBefore, stopped: await first.done };
}

/** Expects storage to have stored no part since `before`: else the next drain's test proves nothing. */
function expectNotStoredYet(before: { partsStored: number }): void {
  expect(
    kit.svc.storage.stats.partsStored - before.partsStored,
    'stored before the next drain began: the test proves nothing',
  ).toBe(0);
}

/** Runs the next drain of `dataDir` to its end, expecting exit 0; returns the part PUTs storage got since `putsBefore`. */
async function nextDrain(dataDir: string, putsBefore: number) {
  const last = await cli(dataDir, ['drain']).done;
  expect(last.code, last.out).toBe(0);
  return puts().slice(putsBefore);
}

describe('Ctrl-C while storage is storing a part whose whole body arrived', () => {
  afterEach(async () => {
    await kit.svc.admin('PUT', '/settings', { partStoreDelayMs: 0 });
    await kit.svc.admin('DELETE', '/faults');
  });

  it('the next drain, started at once, does not send that part again; the object is byte-identical', async () => {
    const { dataDir, bytes } = await queued('longer-than-quit', 5 * MiB + 3 * MiB + 17); // two parts, one sent at a time
    await kit.svc.admin('PUT', '/settings', { partStoreDelayMs: STORE_DELAY_MS });
    // Part 1's whole body is in storage, which is now storing it: Ctrl-C.
    const { before, putsBefore, stopped } = await stoppedDrain(dataDir, 'SIGINT');
    expect(stopped.code, stopped.out).toBe(130);
    expectNotStoredYet(before);
    const sent = await nextDrain(dataDir, putsBefore);
    expect(sent.filter((r) => r.partNumber === 1).length, 'PUTs of part 1').toBe(1);
    expect(sent.filter((r) => r.partNumber === 2).length, 'PUTs of part 2').toBe(1);
    expect(kit.svc.storage.stats.partsReplaced - before.partsReplaced, 'a part was stored twice').toBe(0);
    expect(await storedHash(bytes.length)).toBe(sha256(bytes));
  }, 120_000);

  it('an answer that comes within a few seconds is waited for on Ctrl-C, and its ETag kept', async () => {
    const { dataDir, bytes } = await queued('within-quit', 5 * MiB + 2 * MiB + 5);
    await kit.svc.admin('PUT', '/settings', { partStoreDelayMs: 2500 });
    const { before, putsBefore, stopped } = await stoppedDrain(dataDir, 'SIGINT');
    expect(stopped.code, stopped.out).toBe(130);
    // The drain ended only after storage's answer: the part is stored, and the queue has its ETag.
    expect(kit.svc.storage.stats.partsStored - before.partsStored).toBe(1);
    const status = await cli(dataDir, ['status', '--json']).done;
    expect(status.out).toMatch(/"storedParts":1\b/);
    const sent = await nextDrain(dataDir, putsBefore);
    expect(sent.map((r) => r.partNumber).sort()).toEqual([1, 2]);
    expect(kit.svc.storage.stats.partsReplaced - before.partsReplaced).toBe(0);
    expect(await storedHash(bytes.length)).toBe(sha256(bytes));
  }, 120_000);

  it('an answer lost mid-run, then a crash while the part is in doubt: the next drain, started at once, does not send it again', async () => {
    const { dataDir, bytes } = await queued('crash-in-doubt', 2 * MiB + 9); // one part: nothing else in flight at the kill
    await kit.svc.admin('PUT', '/settings', { partStoreDelayMs: STORE_DELAY_MS });
    // The connection drops as part 1's last byte arrives; storage stores it STORE_DELAY_MS later.
    await kit.fault(partAnswerLost({ partNumber: 1, times: 1 }));
    // After a second more the client has seen the connection drop, and is asking whether storage has the part.
    const { before, putsBefore, stopped: killed } = await stoppedDrain(dataDir, 'SIGKILL', { settleMs: 1000 });
    expect(killed.signal).toBe('SIGKILL');
    expectNotStoredYet(before);
    const sent = await nextDrain(dataDir, putsBefore);
    expect(
      sent.map((r) => r.partNumber),
      'PUTs',
    ).toEqual([1]);
    expect(kit.svc.storage.stats.partsStored - before.partsStored).toBe(1);
    expect(kit.svc.storage.stats.partsReplaced - before.partsReplaced, 'a part was stored twice').toBe(0);
    expect(await storedHash(bytes.length)).toBe(sha256(bytes));
  }, 120_000);

  it('a part in doubt that storage never got is sent again once the settle time is over, and stored once', async () => {
    const { dataDir, bytes } = await queued('never-arrived', 1 * MiB + 3);
    // Storage takes the request and never reads its body: every byte leaves the client into the
    // system's buffers, no answer comes, and the reset on quit drops them.
    await kit.fault(partsHung({ times: 1 }));
    // 1.5 s after the PUT began, the 1 MiB is in the system's buffers.
    const { before, putsBefore, stopped } = await stoppedDrain(dataDir, 'SIGINT', { until: 'put', settleMs: 1500 });
    expect(stopped.code, stopped.out).toBe(130);
    // The PUTs since the drain that was stopped: the hung one and one more.
    expect((await nextDrain(dataDir, putsBefore)).length, 'the hung PUT and one more').toBe(2);
    expect(kit.svc.storage.stats.partsStored - before.partsStored).toBe(1);
    expect(kit.svc.storage.stats.partsReplaced - before.partsReplaced).toBe(0);
    expect(await storedHash(bytes.length)).toBe(sha256(bytes));
  }, 120_000);
});
