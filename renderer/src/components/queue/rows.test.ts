import { describe, expect, it } from 'vitest';
import type { QueueCapture, QueueFile } from '../../../../shared/ipc.js';
import { queueRows, registeredCaptureState } from './rows.js';

let next = 1;
const file = (state: QueueFile['state'], extra: Partial<QueueFile> = {}): QueueFile => ({
  id: next++, captureRow: 1, fileName: `f${next}.insv`, path: `/card/f${next}.insv`, size: 100, state, error: null,
  bytesSent: 0, partsDone: 0, partsTotal: 1, bytesPerSecond: 0, etaSeconds: null, retryAt: null, attempts: 0, ...extra,
});
const clock = (ms: number) => new Date(ms).toISOString().slice(11, 16);

describe('registeredCaptureState', () => {
  it('says what the capture does from its files, not "Uploading" when nothing moves', () => {
    const at = Date.UTC(2026, 10, 23, 3, 14);
    expect(registeredCaptureState([file('uploading'), file('pending', { retryAt: at })], clock)).toBe('Uploading');
    expect(registeredCaptureState([file('pending', { retryAt: at + 60_000 }), file('pending', { retryAt: at }), file('completed')], clock)).toBe('Retrying at 03:14');
    expect(registeredCaptureState([file('pending'), file('pending', { retryAt: at })], clock)).toBe('Waiting to upload');
    expect(registeredCaptureState([file('paused'), file('completed')], clock)).toBe('Paused');
    expect(registeredCaptureState([file('failed'), file('paused')], clock)).toBe('Needs you');
    expect(registeredCaptureState([file('completed'), file('cancelled')], clock)).toBe('Completed');
  });

  it('never shows a retry time already past: "Retrying now" (issue 18 #1)', () => {
    const at = Date.UTC(2026, 10, 23, 3, 14);
    expect(registeredCaptureState([file('pending', { retryAt: at })], (ms) => (ms <= at + 60_000 ? null : clock(ms)))).toBe('Retrying now');
  });
});

describe('queueRows', () => {
  it('"Active" lists what moves by itself: uploading, waiting, retrying; not paused, failed or completed', () => {
    const capture = { id: 1, label: 'walk', state: 'registered' } as QueueCapture;
    const files = [file('uploading'), file('pending'), file('pending', { retryAt: 1 }), file('paused'), file('failed'), file('completed')];
    const byId = Object.fromEntries(files.map((f) => [f.id, f]));
    const rows = queueRows([1], { 1: files.map((f) => f.id) }, { 1: capture }, byId, 'active');
    expect(rows.filter((r) => r.kind === 'file').map((r) => byId[r.id]!.state)).toEqual(['uploading', 'pending', 'pending']);
  });
});

describe('queueRows order (issue 18 #6)', () => {
  it('puts captures still at work before completed ones, each in queue order', () => {
    const a = file('completed', { captureRow: 1 });
    const b = file('uploading', { captureRow: 2 });
    const c = file('completed', { captureRow: 3 });
    const d = file('pending', { captureRow: 4 });
    const byId = Object.fromEntries([a, b, c, d].map((f) => [f.id, f]));
    const capture = (id: number) => ({ id, label: `c${id}`, state: 'registered', error: null, retryAt: null, captureId: `x${id}`, structure: 's', design: null, type: 'interior', capturedAt: '' }) as QueueCapture;
    const rows = queueRows([1, 2, 3, 4], { 1: [a.id], 2: [b.id], 3: [c.id], 4: [d.id] }, { 1: capture(1), 2: capture(2), 3: capture(3), 4: capture(4) }, byId, 'all');
    expect(rows.filter((r) => r.kind === 'capture').map((r) => r.id)).toEqual([2, 4, 1, 3]);
  });
});
