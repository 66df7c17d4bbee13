import { describe, expect, it } from 'vitest';
import { MiB, sha256, useCliKit } from '../main/testing/kit.js';
import { drainingCard, jsonLog } from '../main/testing/e2e-cli.js';
import { storedByName } from '../main/testing/e2e-card.js';

// A silent capture gateway (docs/engine.md, "A silent capture gateway"): mid-drain, the gateway
// accepts every connection and then reads and answers nothing, for 70 s (longer than a call's
// 60 s idle timeout, so a call is given up and sent again into the same silence); then it answers
// again. `drain --wait` runs as a person runs it, with the product's own stall timeout (30 s);
// `status` is asked from another process, as the tray and the app ask the queue.
const SILENCE_MS = 70_000;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const kit = useCliKit('silent-gateway');

const cli = (dataDir: string, args: string[]) => kit.run(dataDir, args);

const statusLine = async (dataDir: string) => (await cli(dataDir, ['status'])).out.split('\n')[0] ?? '';

describe('a silent capture gateway', () => {
  it('is "Waiting for the gateway" within 60 s of its silence, until it answers again; the drain then completes, byte for byte, no part sent twice', async () => {
    const from = kit.svc.storage.received.length;
    // Slow enough that parts are on the wire when the gateway falls silent.
    const { dataDir, files, draining } = await drainingCard(
      kit,
      [
        ['stair-a.mp4', 12 * MiB + 5],
        ['stair-b.mp4', 12 * MiB + 9],
      ],
      4 * MiB,
    );
    await kit.svc.admin('POST', '/faults', { target: 'gateway', times: 0, action: { type: 'hang' } });
    await kit.svc.admin('PUT', '/settings', { bandwidthBytesPerSecond: null });

    // Its silence begins with the first call it holds (complete-batch, presign-missing or a status read).
    while (!kit.svc.faults.held.some((h) => h.target === 'gateway')) await sleep(50);
    const heldAt = kit.svc.faults.held.find((h) => h.target === 'gateway')!.at;
    let first = '';
    do first = await statusLine(dataDir);
    while (!/^Waiting for the gateway/.test(first) && performance.now() - heldAt < 75_000);
    const shownAfter = performance.now() - heldAt;
    expect(first, `status ${Math.round(shownAfter / 1000)} s after the gateway fell silent`).toMatch(
      /^Waiting for the gateway — since .* · network down · /,
    );
    expect(shownAfter).toBeLessThan(60_000);
    const state = (JSON.parse((await cli(dataDir, ['status', '--json'])).out) as { state: { kind: string } }).state;
    expect(state.kind).toBe('waiting-gateway');
    while (performance.now() - heldAt < SILENCE_MS) {
      await sleep(10_000);
      expect(await statusLine(dataDir)).toMatch(/^Waiting for the gateway — since /);
    }

    // The gateway answers again: the calls it held go on.
    await kit.svc.admin('DELETE', '/faults');
    const drained = await draining;
    expect(drained.code, drained.out).toBe(0);
    expect(await statusLine(dataDir)).toMatch(/^All 2 files uploaded/);

    const puts = new Map<string, number>();
    for (const r of kit.svc.storage.received.slice(from))
      if (r.operation === 'UploadPart')
        puts.set(
          `${r.key!.split('/').at(-1)} ${r.partNumber}`,
          (puts.get(`${r.key!.split('/').at(-1)} ${r.partNumber}`) ?? 0) + 1,
        );
    expect(puts.size, 'parts sent').toBe(6);
    expect(
      [...puts].filter(([, n]) => n > 1),
      'parts sent twice',
    ).toEqual([]);
    for (const [name, bytes] of files) expect((await storedByName(kit, name)).sha256, name).toBe(sha256(bytes));

    // The log tells the same outage: at the capture gateway, over when it answered again.
    const log = await jsonLog(kit, dataDir);
    expect(log.filter((e) => e.kind === 'outage').map((e) => e.message)).toEqual([
      expect.stringMatching(/^No answer from the capture gateway for \d+ s/) as string,
    ]);
    expect(log.filter((e) => e.kind === 'outage-over').map((e) => e.message)).toEqual([
      'the capture gateway answered again',
    ]);
  }, 240_000);
});
