import { afterEach, describe, expect, it } from 'vitest';
import type { CliRun } from '../main/testing/kit.js';
import { MiB, sha256, useCliKit } from '../main/testing/kit.js';
import type { SteppedClock } from '../main/testing/e2e-clock.js';
import { requireFaketime, steppedClock } from '../main/testing/e2e-clock.js';
import { partsRefused } from '../main/testing/e2e-faults.js';

// The CLI as a child whose wall clock is stepped while it runs (main/testing/e2e-clock.ts), as an
// NTP correction or a DST step does; its monotonic clock runs on.
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const kit = useCliKit('clock-step', {}, { before: requireFaketime });
afterEach(async () => {
  await kit.svc.admin('DELETE', '/faults');
  await kit.svc.admin('PUT', '/settings', { bandwidthBytesPerSecond: null, presignExpiresIn: 3600 });
});

/** Runs the CLI; with `clock`, under libfaketime reading its wall-clock offset from that clock's file. */
const cli = (dataDir: string, args: string[], clock?: SteppedClock) => kit.spawn(dataDir, args, { env: clock?.env });

/** Resolves with the run's end, or with undefined once `ms` passed without it (the child is then killed). */
async function within(run: CliRun, ms: number) {
  const timer = setTimeout(() => run.child.kill('SIGKILL'), ms);
  const res = await run.done;
  clearTimeout(timer);
  return res.signal === 'SIGKILL' ? undefined : res;
}

const storedHash = async (size: number) => (await kit.storedBySize(size)).sha256;
const uploadParts = () => kit.puts().length;

/**
 * Queues `name` (`size` bytes) and starts `drain --wait` under a stepped clock, with its first try
 * and four retries refused (HTTP 500): the file then waits on the durable schedule (about 15 s).
 * Once the five were sent and the file's retry time written, the clock steps by `offset` (`stepped`
 * says which way, for the messages). Expects the retry on time: the drain ends with 0 within a
 * minute, after one PUT more, and storage holds the file's bytes.
 */
async function expectRetryOnTimeAcrossStep(name: string, size: number, offset: string, stepped: 'back' | 'forward') {
  const { dataDir, bytes } = await kit.queued(name, size);
  await kit.fault(partsRefused(500, { times: 5 }));
  const clock = steppedClock(kit.work, name);
  const before = uploadParts();
  const run = cli(dataDir, ['drain', '--wait'], clock);
  while (uploadParts() < before + 5) await sleep(100);
  await sleep(500); // the file's retry time is written
  clock.step(offset);
  // On time means within the schedule's first wait (15 s) and then the upload; an hour's wait is not.
  const res = await within(run, 60_000);
  expect(res, `the drain was still waiting a minute after the clock stepped ${stepped}`).toBeDefined();
  expect(res!.code, res!.out).toBe(0);
  // The five refused tries and one more: not a burst of tries, not a part sent twice.
  expect(uploadParts()).toBe(before + 6);
  expect(await storedHash(bytes.length)).toBe(sha256(bytes));
}

describe('the wall clock stepped while the uploader runs', () => {
  it('a retry scheduled before the clock stepped back an hour still happens on time', async () => {
    await expectRetryOnTimeAcrossStep('retry-step', 1 * MiB + 7, '-1h', 'back');
  }, 120_000);

  it('with --bandwidth 64k, a step back does not freeze uploads, and SIGINT ends the process', async () => {
    const { dataDir, bytes } = await kit.queued('bandwidth-step', 3 * MiB);
    const clock = steppedClock(kit.work, 'bandwidth-step');
    const run = cli(dataDir, ['--bandwidth', '64k', 'drain'], clock);
    const start = kit.svc.storage.bytesReceived;
    while (kit.svc.storage.bytesReceived < start + 64 * 1024) await sleep(100);
    clock.step('-1h');
    await sleep(1500);
    const afterStep = kit.svc.storage.bytesReceived;
    await sleep(3000);
    expect(
      kit.svc.storage.bytesReceived,
      'no byte reached storage in the 3 s after the clock stepped back',
    ).toBeGreaterThan(afterStep);
    run.child.kill('SIGINT');
    const res = await within(run, 15_000);
    expect(res, 'the process did not exit after SIGINT').toBeDefined();
    expect(res!.code, res!.out).toBe(130);
    // What was left goes on from the parts stored, and the object is whole.
    const last = await cli(dataDir, ['drain']).done;
    expect(last.code, last.out).toBe(0);
    expect(await storedHash(bytes.length)).toBe(sha256(bytes));
  }, 120_000);

  it('a retry scheduled before the clock stepped forward a day and an hour happens on time, once', async () => {
    await expectRetryOnTimeAcrossStep('retry-step-forward', 1 * MiB + 11, '+25h', 'forward');
  }, 120_000);

  it('stepped forward a day and an hour mid-drain: no presigned URL used after it expired, nothing sent twice', async () => {
    // Four parts one after another at 2 MiB/s (about 10 s), with URLs that live 6 s: the last parts
    // need URLs presigned again, judged by the real passing of time, not by the stepped clock.
    const { dataDir, bytes } = await kit.queued('drain-step-forward', 3 * 5 * MiB + 2 * MiB + 9);
    await kit.svc.admin('PUT', '/settings', { presignExpiresIn: 6 });
    const clock = steppedClock(kit.work, 'drain-step-forward');
    const before = uploadParts();
    const run = cli(dataDir, ['--bandwidth', '2M', '--concurrency', '1', 'drain'], clock);
    while (uploadParts() < before + 2) await sleep(50);
    clock.step('+25h');
    const res = await within(run, 90_000);
    expect(res, 'the drain did not end within 90 s of the step').toBeDefined();
    expect(res!.code, res!.out).toBe(0);
    // Storage checks each URL's expiry on the real clock; a PUT with an expired URL is refused and
    // sent again, so one PUT per part means none was used after it expired, and none was resent.
    expect(uploadParts() - before).toBe(4);
    expect(await storedHash(bytes.length)).toBe(sha256(bytes));
  }, 150_000);
});
