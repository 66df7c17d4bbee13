import { describe, expect, it } from 'vitest';
import { ProgressTracker } from './progress.js';

// Progress, speed and ETA count what storage acknowledged, never bytes handed to the socket.
describe('ProgressTracker counts acknowledged bytes', () => {
  const file = {
    fileId: 1,
    captureRow: 1,
    fileName: 'a.insv',
    bytesTotal: 4000,
    partsTotal: 4,
    doneBytes: 0,
    partsDone: 0,
  };

  it('keeps bytes on the wire apart: a part counts when its ETag came back', () => {
    const t = new ProgressTracker(() => {});
    t.track(file, 0);
    t.partProgress(1, 1, 1000);
    t.partProgress(1, 2, 600);
    const s = t.snapshot(500);
    expect(s.files[0]).toMatchObject({ bytesSent: 0, bytesInFlight: 1600, bytesPerSecond: 0, etaSeconds: null });
    expect(s.overall).toMatchObject({ bytesSent: 0, bytesInFlight: 1600, bytesPerSecond: 0, etaSeconds: null });
    t.partDone(1, 1, 1000, 2000);
    const after = t.snapshot(2000);
    expect(after.files[0]).toMatchObject({ bytesSent: 1000, bytesInFlight: 600, partsDone: 1 });
    // 1000 bytes acknowledged in the 2 s since tracking began: 500 B/s, 3000 bytes left: 6 s.
    expect(after.overall).toMatchObject({ bytesSent: 1000, bytesPerSecond: 500, etaSeconds: 6 });
  });

  it('a part abandoned drops its bytes on the wire, never acknowledged ones: the total does not go back', () => {
    const t = new ProgressTracker(() => {});
    t.track(file, 0);
    t.partDone(1, 1, 1000, 1000);
    t.partProgress(1, 2, 900);
    expect(t.snapshot(1500).overall.bytesSent).toBe(1000);
    t.partDone(1, 2, 0, 1600);
    expect(t.snapshot(1600).overall).toMatchObject({ bytesSent: 1000, bytesInFlight: 0 });
  });

  it('says where an outage is from its first failure until storage answers again, with its first cause and no ETA meanwhile', () => {
    const t = new ProgressTracker(() => {});
    t.track(file, 0);
    t.partDone(1, 1, 1000, 1000);
    t.trouble('storage', 'storage unavailable (HTTP 503)', 3000);
    t.trouble('storage', 'storage unavailable (HTTP 500)', 4000);
    const s = t.snapshot(4000);
    // One start and one cause per outage: the log and the morning summary keep the first.
    expect(s.overall.outage).toEqual({ where: 'storage', since: 3000, cause: 'storage unavailable (HTTP 503)' });
    expect(s.overall.etaSeconds).toBeNull();
    expect(s.files[0]!.etaSeconds).toBeNull();
    t.partDone(1, 2, 1000, 9000);
    expect(t.snapshot(9000).overall.outage).toBeNull();
  });

  it('a silent link is an outage from its last sign of life, not from when the silence was noticed', () => {
    const t = new ProgressTracker(() => {});
    t.track(file, 0);
    t.partDone(1, 1, 1000, 1000);
    t.trouble('storage', 'No answer from storage for 30 s', 32_000, 2000);
    t.trouble('storage', 'No progress for 60 s', 62_000);
    expect(t.snapshot(62_000).overall.outage).toEqual({
      where: 'storage',
      since: 2000,
      cause: 'No answer from storage for 30 s',
    });
    // Moved to the gateway: its own cause, the same start.
    t.trouble('gateway', 'capture service unavailable (HTTP 503)', 70_000);
    expect(t.snapshot(70_000).overall.outage).toEqual({
      where: 'gateway',
      since: 2000,
      cause: 'capture service unavailable (HTTP 503)',
    });
  });

  it('speed is a moving average: parts answered before the window no longer count', () => {
    const t = new ProgressTracker(() => {});
    t.track({ ...file, bytesTotal: 100_000, partsTotal: 100 }, 0);
    t.partDone(1, 1, 20_000, 1000);
    expect(t.snapshot(10_000).overall.bytesPerSecond).toBe(2000);
    expect(t.snapshot(25_000).overall.bytesPerSecond).toBe(0);
  });
});
