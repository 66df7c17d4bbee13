import { afterEach, describe, expect, it, vi } from 'vitest';
import { CancelledError } from '../../api/errors.js';
import { Limiter } from './limiter.js';
import { ProgressTracker } from '../progress/progress.js';
import { Bandwidth } from './bandwidth.js';

afterEach(() => {
  vi.useRealTimers();
});

describe('ProgressTracker', () => {
  it('emits at most ten snapshots a second however often parts report', async () => {
    vi.useFakeTimers();
    const emitted: number[] = [];
    const t = new ProgressTracker((files) => emitted.push(files[0]!.bytesInFlight), 100);
    t.track({
      fileId: 1,
      captureRow: 1,
      fileName: 'a.insv',
      bytesTotal: 10_000_000,
      partsTotal: 2,
      doneBytes: 0,
      partsDone: 0,
    });
    for (let ms = 0; ms < 1000; ms++) {
      t.partProgress(1, 1, ms * 1000);
      await vi.advanceTimersByTimeAsync(1);
    }
    expect(emitted.length).toBeLessThanOrEqual(10);
    expect(emitted.length).toBeGreaterThanOrEqual(9);
    expect(emitted.at(-1)).toBeGreaterThan(900_000);
  });

  it('reports bytes, parts, speed and time left per file and overall', () => {
    const t = new ProgressTracker(() => {});
    t.track({
      fileId: 1,
      captureRow: 1,
      fileName: 'a.insv',
      bytesTotal: 1000,
      partsTotal: 2,
      doneBytes: 500,
      partsDone: 1,
    });
    const now = Date.now();
    t.snapshot(now);
    t.partProgress(1, 2, 250);
    // Bytes on the wire are shown apart; speed and ETA wait for storage's answer.
    expect(t.snapshot(now + 1000).files[0]).toMatchObject({
      bytesSent: 500,
      bytesInFlight: 250,
      partsDone: 1,
      bytesPerSecond: 0,
      etaSeconds: null,
    });
    t.partDone(1, 2, 250, now + 1000);
    const s = t.snapshot(now + 1000);
    expect(s.files[0]).toMatchObject({ bytesSent: 750, partsDone: 2, bytesPerSecond: 250, etaSeconds: 1 });
    expect(s.overall).toMatchObject({ bytesTotal: 1000, bytesSent: 750, files: 1 });
  });
});

describe('Bandwidth', () => {
  it('paces chunks to the limit and follows a change at once', async () => {
    vi.useFakeTimers({ now: 0 });
    const bw = new Bandwidth(1_000_000);
    const done: number[] = [];
    const send = async (n: number) => {
      await bw.take(n);
      done.push(Date.now());
    };
    void send(500_000); // half a second of the limit each
    void send(500_000);
    await vi.advanceTimersByTimeAsync(2000);
    expect(done[1]! - done[0]!).toBeGreaterThanOrEqual(490);
    bw.set(4_000_000);
    const t0 = Date.now();
    void send(1_000_000);
    await vi.advanceTimersByTimeAsync(1000);
    expect(done[2]! - t0).toBeLessThanOrEqual(260);
    expect(() => bw.set(0)).toThrow(RangeError);
  });
});

describe('Bandwidth.take', () => {
  it('returns at once when its signal aborts, with the reason, however long the wait', async () => {
    const bw = new Bandwidth(1024);
    void bw.take(1024); // a second's worth: the slice below waits behind it for a minute more
    const controller = new AbortController();
    const reason = new Error('paused');
    const waiting = bw.take(60 * 1024, controller.signal);
    setTimeout(() => controller.abort(reason), 20);
    const t0 = performance.now();
    await expect(waiting).rejects.toBe(reason);
    expect(performance.now() - t0).toBeLessThan(5000); // not the minute it would have waited
    await expect(bw.take(1, controller.signal)).rejects.toBe(reason);
  });
});

describe('Limiter', () => {
  it('shares one limit fairly: the file holding fewer slots goes first, whatever its age', async () => {
    const l = new Limiter(2);
    const order: string[] = [];
    // File 1 (the older one) holds both slots; file 2 arrives first in the wait line, file 1 again after.
    const a1 = await l.acquire(1);
    const a2 = await l.acquire(1);
    const waiting = [
      l.acquire(2).then((r) => (order.push('file2'), r)),
      l.acquire(1).then((r) => (order.push('file1'), r)),
    ];
    expect(l.running).toBe(2);
    a1();
    const first = await Promise.race(waiting);
    expect(order).toEqual(['file2']);
    a2();
    first();
    await Promise.all(waiting).then((rs) => rs.forEach((r) => r()));
    expect(order).toEqual(['file2', 'file1']);
    expect(l.running).toBe(0);
  });

  it('round-robins between files that hold equal shares, not oldest first', async () => {
    const l = new Limiter(1);
    const order: number[] = [];
    const releases: Array<() => void> = [];
    const first = await l.acquire(1);
    // Three parts of file 1 wait ahead of two of file 2 and one of file 3.
    const ws = [1, 1, 1, 2, 2, 3].map((f) => l.acquire(f).then((r) => (order.push(f), releases.push(r))));
    first();
    for (let i = 0; i < ws.length; i++) {
      await vi.waitFor(() => expect(releases.length).toBe(i + 1));
      releases[i]!();
    }
    await Promise.all(ws);
    expect(order).toEqual([2, 3, 1, 2, 1, 1]);
  });

  it('drops to one request on SlowDown and climbs back by one per success', async () => {
    const l = new Limiter(3);
    const rs = await Promise.all([l.acquire(1), l.acquire(2), l.acquire(3)]);
    l.slowDown();
    const next = l.acquire(4);
    rs[0]!();
    rs[1]!();
    await Promise.resolve();
    expect(l.running).toBe(1);
    rs[2]!();
    const r4 = await next;
    expect(l.running).toBe(1);
    l.succeeded();
    l.succeeded();
    const more = [l.acquire(5), l.acquire(6)];
    const got = await Promise.all(more);
    expect(l.running).toBe(3);
    [r4, ...got].forEach((r) => r());
    expect(l.running).toBe(0);
  });

  // Uppy's RateLimitedQueue: pause, drop to one, climb back.
  it('on SlowDown with a pause, starts nothing new for any file until it ends, then one at a time; a shorter pause does not cut it', async () => {
    vi.useFakeTimers();
    try {
      const l = new Limiter(3);
      const running = await l.acquire(1);
      l.slowDown(2000);
      l.slowDown(500);
      const granted: number[] = [];
      const releases: (() => void)[] = [];
      for (const f of [1, 2, 3]) void l.acquire(f).then((r) => (granted.push(f), releases.push(r)));
      running();
      await vi.advanceTimersByTimeAsync(1999);
      expect(granted).toEqual([]);
      await vi.advanceTimersByTimeAsync(1);
      expect(granted).toHaveLength(1);
      l.succeeded();
      await vi.advanceTimersByTimeAsync(0);
      expect(granted).toHaveLength(2);
      expect(l.running).toBe(2);
      releases.splice(0).forEach((r) => r());
      await vi.advanceTimersByTimeAsync(0);
      expect(granted.sort()).toEqual([1, 2, 3]);
      releases.splice(0).forEach((r) => r());
      expect(l.running).toBe(0);
    } finally {
      vi.useRealTimers();
    }
  });

  it('rejects a waiter whose upload was cancelled', async () => {
    const l = new Limiter(1);
    const release = await l.acquire(1);
    const c = new AbortController();
    const pending = l.acquire(1, c.signal);
    c.abort();
    await expect(pending).rejects.toThrow(CancelledError);
    release();
    expect(l.running).toBe(0);
  });
});
