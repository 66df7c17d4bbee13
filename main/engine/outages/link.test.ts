import { describe, expect, it } from 'vitest';
import { LinkMonitor } from './link.js';
import { Bandwidth } from '../scheduling/bandwidth.js';

// The silent-link rule (docs/engine.md, "A silent link"), on the monotonic clock: times are
// passed in explicitly (ms, performance.now()'s scale).
describe('LinkMonitor: a silent link', () => {
  it('is silent once parts are in flight and no sign of life came for the stall timeout', () => {
    const link = new LinkMonitor(new Bandwidth(null), 30_000);
    const t0 = performance.now();
    expect(link.silentSince(t0 + 60_000), 'nothing in flight: nothing to judge').toBeUndefined();
    const part = link.open();
    link.alive(t0 + 1000);
    expect(link.silentSince(t0 + 30_999)).toBeUndefined();
    expect(link.silentSince(t0 + 31_000)).toBe(t0 + 1000);
    // A byte taken or an answer: alive again.
    link.answered(5 * 1024 * 1024, t0, t0 + 40_000);
    expect(link.silentSince(t0 + 50_000)).toBeUndefined();
    part.close();
    expect(link.silentSince(t0 + 500_000), 'closed: nothing in flight').toBeUndefined();
  });

  it("is not silent while a part is held back by this computer's own bandwidth limit, nor while a connection may still drain what it holds", () => {
    const link = new LinkMonitor(new Bandwidth(null), 30_000);
    const part = link.open();
    const t0 = link.lastLife();
    part.holding = true;
    expect(link.silentSince(t0 + 40_000)).toBeUndefined();
    part.holding = false;
    part.drainingUntil = t0 + 100_000; // 4 MiB at 32 KiB/s, measured on its own connection
    expect(link.silentSince(t0 + 129_000)).toBeUndefined();
    expect(link.silentSince(t0 + 130_000)).toBe(t0);
    part.close();
  });

  it('tells the engine once per silence, with the wall-clock time of the last sign of life', async () => {
    const told: { since: number; quietMs: number }[] = [];
    const link = new LinkMonitor(new Bandwidth(null), 200, (since, quietMs) => told.push({ since, quietMs }));
    const part = link.open();
    const lifeWall = Date.now();
    link.alive();
    await new Promise((r) => setTimeout(r, 700));
    expect(told).toHaveLength(1);
    expect(told[0]!.quietMs).toBeGreaterThanOrEqual(200);
    expect(Math.abs(told[0]!.since - lifeWall)).toBeLessThan(100);
    link.alive();
    await new Promise((r) => setTimeout(r, 600));
    expect(told).toHaveLength(2);
    part.close();
  });

  it('assumes no rate before a part is answered', () => {
    const link = new LinkMonitor(new Bandwidth(null), 30_000);
    expect(link.rate()).toBeUndefined();
    link.answered(1024 * 1024, 0, 1000);
    expect(link.rate()).toBe(1024 * 1024);
  });
});
