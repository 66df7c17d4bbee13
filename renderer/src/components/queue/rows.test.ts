import { describe, expect, it } from 'vitest';
import type { QueueCapture, QueueFile, QueueTotals } from '../../../../shared/ipc.js';
import { queueHeadline } from './headline.js';
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

describe('queueHeadline', () => {
  const t = (x: Partial<QueueTotals>): QueueTotals => ({
    files: 0, captures: 0, completed: 0, uploading: 0, queued: 0, retrying: 0, paused: 0, failed: 0, cancelled: 0, needYou: 0,
    bytesTotal: 0, bytesDone: 0, bytesRemaining: 0, bytesPerSecond: 0, ...x,
  });
  it('says what the whole queue does, the most hopeful first', () => {
    expect(queueHeadline(t({ files: 200, uploading: 4, retrying: 10, needYou: 2 }))).toEqual({ text: 'Uploading', tone: 'moving' });
    expect(queueHeadline(t({ files: 200, retrying: 200 }))).toEqual({ text: 'Waiting to retry', tone: 'retrying' });
    expect(queueHeadline(t({ files: 3, completed: 2, paused: 1 }))).toEqual({ text: 'Paused', tone: 'paused' });
    expect(queueHeadline(t({ files: 3, completed: 1, failed: 2, needYou: 2 }))).toEqual({ text: '2 need you', tone: 'needs-you' });
    expect(queueHeadline(t({ files: 201, completed: 200, cancelled: 1 }))).toEqual({ text: 'All 200 files uploaded', tone: 'done' });
    expect(queueHeadline(t({ files: 2, completed: 1, queued: 1 }), { blocked: true })).toEqual({ text: 'Stopped', tone: 'needs-you' });
    expect(queueHeadline(t({ files: 2, queued: 2 }), { pausedUntil: '07:00' })).toEqual({ text: 'Paused until 07:00', tone: 'paused' });
    expect(queueHeadline(t({ files: 2, completed: 2 }), { pausedUntil: '07:00' })).toEqual({ text: 'All 2 files uploaded', tone: 'done' });
  });
});
