import { describe, expect, it } from 'vitest';
import { MiB, sha256, useCliKit } from '../main/testing/kit.js';
import { drainingCard, jsonLog } from '../main/testing/e2e-cli.js';
import { storedByName } from '../main/testing/e2e-card.js';

// A silent link (docs/engine.md, "A silent link"): storage accepts every connection and then
// reads and answers nothing for 2 min 40 s (a Wi-Fi drop, an expired NAT mapping, a dead modem),
// then the link is back. `drain --wait` runs as a person runs it, with the product's own stall
// timeout (30 s); `status` is asked from another process, as the tray and the app ask the queue.
// The stand-in lets its held requests go on and lifts its bandwidth cap the moment they are
// cleared, so every time measured here is the client's.
const SILENCE_MS = 160_000;
const STALL_MS = 30_000; // the product's (main/engine/parts/stall.ts)
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const kit = useCliKit('silent-link');

/** Runs the CLI; `lines`, when given, gets each line it prints with when it came (performance.now()). */
const cli = (dataDir: string, args: string[], lines?: { at: number; text: string }[]) =>
  kit.run(dataDir, args, { lines });

const statusLine = async (dataDir: string) => (await cli(dataDir, ['status'])).out.split('\n')[0] ?? '';

describe('a silent link', () => {
  it('is shown as "Waiting for storage" within 60 s of its last sign of life, parts wait at most twice the stall timeout, uploads move within 30 s of its return, and the log says the same outage', async () => {
    const replacedBefore = kit.svc.storage.stats.partsReplaced;
    // Slow enough that parts are on the wire when the link goes silent.
    const said: { at: number; text: string }[] = [];
    const { dataDir, files, draining } = await drainingCard(
      kit,
      [
        ['walk-a.mp4', 16 * MiB + 5],
        ['walk-b.mp4', 16 * MiB + 7],
      ],
      6 * MiB,
      said,
    );

    // The link goes silent: every new request is held unread and unanswered; the bodies already
    // being read finish at once, which are the last signs of life storage gives.
    await kit.svc.admin('POST', '/faults', { target: 'storage', times: 0, action: { type: 'hang' } });
    const silentAt = performance.now();
    await kit.svc.admin('PUT', '/settings', { bandwidthBytesPerSecond: null });
    let received = kit.svc.storage.bytesReceived;
    let lastLife = performance.now();
    let lastLifeWall = Date.now();
    while (performance.now() - lastLife < 3000) {
      await sleep(50);
      if (kit.svc.storage.bytesReceived !== received) {
        received = kit.svc.storage.bytesReceived;
        lastLife = performance.now();
        lastLifeWall = Date.now();
      }
    }

    // Within 60 s of the last sign of life, `status` says so, and keeps saying it.
    let first = '';
    do first = await statusLine(dataDir);
    while (!/^Waiting for storage/.test(first) && performance.now() - lastLife < 75_000);
    const shownAfter = performance.now() - lastLife;
    expect(first, `status ${Math.round(shownAfter / 1000)} s after the last sign of life`).toMatch(
      /^Waiting for storage — since /,
    );
    expect(shownAfter).toBeLessThan(60_000);
    const state = (
      JSON.parse((await cli(dataDir, ['status', '--json'])).out) as {
        state: { kind: string; since: number; detail: string };
      }
    ).state;
    expect(state.kind).toBe('waiting-storage');
    // The outage starts at the last sign of life the client saw, not when it noticed.
    expect(Math.abs(state.since - lastLifeWall), `since ${state.since} vs the last byte storage read`).toBeLessThan(
      10_000,
    );
    const shownCause = state.detail.split(' · ')[1];
    while (performance.now() - silentAt < SILENCE_MS - 15_000) {
      await sleep(10_000);
      expect(await statusLine(dataDir)).toMatch(/^Waiting for storage — since /);
    }
    await sleep(Math.max(0, SILENCE_MS - (performance.now() - silentAt)));

    // The link is back.
    const heldUploads = kit.svc.faults.held.filter((h) => h.operation === 'UploadPart');
    await kit.svc.admin('DELETE', '/faults');
    const backAt = performance.now();
    const before = kit.svc.storage.bytesReceived;
    while (kit.svc.storage.bytesReceived < before + 5 * MiB && performance.now() - backAt < 60_000) await sleep(100);
    const movedAfter = performance.now() - backAt;
    expect(movedAfter, "a part of storage received within 30 s of the link's return").toBeLessThan(30_000);

    // Each part request held long enough was given up by the client within twice the stall
    // timeout (its body went at once into the system's buffers, then nothing: its last sign of
    // life is its start), as the drain says: "Part 2 of walk-a.mp4: No progress for 60 s; retry…"
    // at once, or, for a part whose every byte left, "…sent in full, no answer…" once the 15 s
    // in which storage may still store it have passed (main/engine/parts/in-doubt.ts).
    const giveUps = said.flatMap((l) => {
      const m = /Part (\d+) of (\S+): (?:No progress for (\d+) s|sent in full, no answer)/.exec(l.text);
      return m
        ? [{ at: l.at, part: Number(m[1]), file: m[2]!, quietS: m[3] === undefined ? undefined : Number(m[3]) }]
        : [];
    });
    for (const g of giveUps)
      if (g.quietS !== undefined)
        expect(g.quietS, `part ${g.part} of ${g.file} waited`).toBeLessThanOrEqual((2 * STALL_MS) / 1000 + 5);
    const window = 2 * STALL_MS + 15_000 + 15_000;
    const judged = heldUploads.filter((h) => h.at < backAt - window);
    expect(judged.length).toBeGreaterThan(0);
    for (const h of judged) {
      const given = giveUps.find(
        (g) => h.key!.endsWith(g.file) && g.part === h.partNumber && g.at > h.at && g.at < h.at + window,
      );
      const told = giveUps
        .map((g) => `+${Math.round((g.at - silentAt) / 1000)} s part ${g.part} of ${g.file}`)
        .join('; ');
      expect(
        given,
        `part ${h.partNumber} of ${h.key!.split('/').at(-1)} held at +${Math.round((h.at - silentAt) / 1000)} s was given up within ${window / 1000} s (given up: ${told})`,
      ).toBeDefined();
    }

    const drained = await draining;
    expect(drained.code, drained.out).toBe(0);
    expect(kit.svc.storage.stats.partsReplaced - replacedBefore, 'no part stored twice').toBe(0);
    for (const [name, bytes] of files) expect((await storedByName(kit, name)).sha256, name).toBe(sha256(bytes));

    // The log and the morning summary tell the same outage as the screen: same start, same cause.
    const log = await jsonLog(kit, dataDir);
    const outages = log.filter((e) => e.kind === 'outage');
    expect(outages).toHaveLength(1);
    expect(Date.parse(outages[0]!.at)).toBe(state.since);
    expect(log.filter((e) => e.kind === 'outage-over')).toHaveLength(1);
    const summary = JSON.parse((await cli(dataDir, ['--json', 'log', '--summary'])).out) as {
      longestOutage: { from: number; to: number; cause: string };
    };
    expect(summary.longestOutage.from).toBe(state.since);
    expect(summary.longestOutage.cause).toBe(shownCause);
    expect(summary.longestOutage.to - summary.longestOutage.from).toBeGreaterThan(SILENCE_MS - 20_000);
  }, 330_000);
});
