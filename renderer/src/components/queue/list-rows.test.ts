import { describe, expect, it } from 'vitest';
import type { QueueCapture, QueueFile } from '../../../../shared/ipc.js';
import { localTime } from '../../../../shared/night-summary.js';
import { retryWait } from '../../../../shared/queue-state.js';
import { fileStateText, queueRows, registeredCaptureState } from './list-rows.js';
import { queueFile } from '../../../../shared/testing/queue-fixtures.js';

let next = 1;
const file = (state: QueueFile['state'], extra: Partial<QueueFile> = {}): QueueFile => {
  const id = next++;
  return queueFile(state, { id, fileName: `f${next}.insv`, path: `/card/f${next}.insv`, size: 100, ...extra });
};
const hhmm = (ms: number) => new Date(ms).toISOString().slice(11, 16);
/** What the rows pass: retryWait's words, with UTC times and "now" at 03:15. */
const clock = (ms: number) =>
  ms > Date.UTC(2026, 10, 23, 3, 15) ? `Retrying at ${hhmm(ms)}` : `Retry due since ${hhmm(ms)}`;

describe('registeredCaptureState', () => {
  it('says what the capture does from its files, not "Uploading" when nothing moves', () => {
    const at = Date.UTC(2026, 10, 23, 3, 14);
    expect(registeredCaptureState([file('uploading'), file('pending', { retryAt: at })], clock)).toBe('Uploading');
    expect(
      registeredCaptureState(
        [file('pending', { retryAt: at + 120_000 }), file('pending', { retryAt: at + 180_000 }), file('completed')],
        clock,
      ),
    ).toBe('Retrying at 03:16');
    expect(registeredCaptureState([file('pending'), file('pending', { retryAt: at })], clock)).toBe(
      'Waiting to upload',
    );
    expect(registeredCaptureState([file('paused'), file('completed')], clock)).toBe('Paused');
    expect(registeredCaptureState([file('failed'), file('paused')], clock)).toBe('Needs you');
    expect(registeredCaptureState([file('completed'), file('cancelled')], clock)).toBe('Completed');
  });

  it('says a capture placed while its card was copied waits for its verified copy, never that it needs you', () => {
    expect(
      registeredCaptureState([file('pending', { awaitingCopy: true }), file('pending', { awaitingCopy: true })], clock),
    ).toBe('Waiting for its verified copy');
    expect(registeredCaptureState([file('pending', { awaitingCopy: true }), file('uploading')], clock)).toBe(
      'Uploading',
    );
  });

  it('says "Waiting for storage" (or the gateway), not "Uploading", while an outage holds the files it was sending (3 a.m. reading)', () => {
    expect(registeredCaptureState([file('uploading'), file('pending')], clock, 'storage')).toBe('Waiting for storage');
    expect(registeredCaptureState([file('uploading')], clock, 'gateway')).toBe('Waiting for the gateway');
    // Paused and completed captures say so whatever the link does.
    expect(registeredCaptureState([file('paused'), file('completed')], clock, 'storage')).toBe('Paused');
    expect(registeredCaptureState([file('completed')], clock, 'storage')).toBe('Completed');
    expect(registeredCaptureState([file('uploading')], clock, null)).toBe('Uploading');
  });

  it('says "Retrying now" only while a retry is on the wire; a retry whose time has come and waits says since when it is due', () => {
    const at = Date.UTC(2026, 10, 23, 3, 14);
    expect(registeredCaptureState([file('pending', { retryAt: at, attempts: 1 })], clock)).toBe(
      'Retry due since 03:14',
    );
    expect(
      registeredCaptureState(
        [file('pending', { retryAt: at, attempts: 1 }), file('pending', { retryAt: at + 600_000, attempts: 1 })],
        clock,
      ),
    ).toBe('Retry due since 03:14');
    expect(
      registeredCaptureState(
        [file('uploading', { attempts: 1 }), file('pending', { retryAt: at, attempts: 1 })],
        clock,
      ),
    ).toBe('Retrying now');
    // A first try on the wire beside a retry is an upload.
    expect(registeredCaptureState([file('uploading', { attempts: 1 }), file('uploading')], clock)).toBe('Uploading');
    expect(registeredCaptureState([file('uploading', { attempts: 2 })], clock, 'storage')).toBe('Waiting for storage');
  });
});

describe('fileStateText', () => {
  it('says "Retrying now" only while the retry is on the wire; a retry waiting says when it is due', () => {
    const now = Date.UTC(2026, 10, 23, 5, 30);
    const words = (f: QueueFile, outage: 'storage' | null = null) => fileStateText(f, false, now, outage);
    const due = now - 120_000;
    expect(words(file('pending', { retryAt: due, attempts: 1 }))).toBe(`${retryWait(due, now)} (attempt 2)`);
    expect(words(file('pending', { retryAt: due, attempts: 1 }))).toMatch(/^Retry due since /);
    expect(words(file('pending', { retryAt: now + 120_000, attempts: 2 }))).toMatch(/^Retrying at .+ \(attempt 3\)$/);
    expect(words(file('uploading', { attempts: 1 }))).toBe('Retrying now (attempt 2)');
    expect(words(file('uploading'))).toBe('Uploading');
    expect(words(file('uploading', { attempts: 1 }), 'storage')).toBe('Waiting for storage');
    expect(words(file('pending'))).toBe('Queued');
  });
});

describe('retryWait', () => {
  it('says "Retrying at" while the time is ahead and "Retry due since" once it has come, never "Retrying now"', () => {
    const now = Date.UTC(2026, 10, 23, 5, 30);
    expect(retryWait(now + 120_000, now, 'en-GB')).toBe(
      `Retrying at ${localTime(now + 120_000, { now, locale: 'en-GB' })}`,
    );
    expect(retryWait(now - 120_000, now, 'en-GB')).toBe(
      `Retry due since ${localTime(now - 120_000, { now, locale: 'en-GB' })}`,
    );
    expect(retryWait(now, now, 'en-GB')).toMatch(/^Retry due since /);
  });
});

describe('queueRows', () => {
  it('"Active" lists what moves by itself: uploading, waiting, retrying; not paused, failed or completed', () => {
    const capture = { id: 1, label: 'walk', state: 'registered' } as QueueCapture;
    const files = [
      file('uploading'),
      file('pending'),
      file('pending', { retryAt: 1 }),
      file('paused'),
      file('failed'),
      file('completed'),
    ];
    const byId = Object.fromEntries(files.map((f) => [f.id, f]));
    const rows = queueRows([1], { 1: files.map((f) => f.id) }, { 1: capture }, byId, 'active');
    expect(rows.filter((r) => r.kind === 'file').map((r) => byId[r.id]!.state)).toEqual([
      'uploading',
      'pending',
      'pending',
    ]);
  });
});

/** Capture row `id`, registered as `x<id>` on `structure`, taken at `capturedAt` (ISO 8601, or '' when unknown). */
const registeredCapture = (id: number, structure: string, capturedAt: string) =>
  ({
    id,
    label: `c${id}`,
    state: 'registered',
    error: null,
    retryAt: null,
    captureId: `x${id}`,
    structure,
    design: null,
    type: 'interior',
    capturedAt,
  }) as QueueCapture;

describe('queueRows order', () => {
  it('puts captures still at work before completed ones, each in queue order', () => {
    const a = file('completed', { captureRow: 1 });
    const b = file('uploading', { captureRow: 2 });
    const c = file('completed', { captureRow: 3 });
    const d = file('pending', { captureRow: 4 });
    const byId = Object.fromEntries([a, b, c, d].map((f) => [f.id, f]));
    const capture = (id: number) => registeredCapture(id, 's', '');
    const rows = queueRows(
      [1, 2, 3, 4],
      { 1: [a.id], 2: [b.id], 3: [c.id], 4: [d.id] },
      { 1: capture(1), 2: capture(2), 3: capture(3), 4: capture(4) },
      byId,
      'all',
    );
    expect(rows.filter((r) => r.kind === 'capture').map((r) => r.id)).toEqual([2, 4, 1, 3]);
  });
});

describe('queueRows folding', () => {
  const capture = (id: number, structure = 's', day = '2026-11-22') =>
    registeredCapture(id, structure, `${day}T08:00:00+01:00`);

  it('one line per capture, its files only once opened; completed captures of one batch in one line, opened on demand', () => {
    const f = [
      file('uploading', { captureRow: 1 }),
      file('pending', { captureRow: 1 }),
      file('completed', { captureRow: 2 }),
      file('completed', { captureRow: 3 }),
      file('completed', { captureRow: 4 }),
      file('pending', { captureRow: 5 }),
    ];
    const byId = Object.fromEntries(f.map((x) => [x.id, x]));
    const filesOf = { 1: [f[0]!.id, f[1]!.id], 2: [f[2]!.id], 3: [f[3]!.id], 4: [f[4]!.id], 5: [f[5]!.id] };
    const captures = { 1: capture(1), 2: capture(2), 3: capture(3), 4: capture(4, 'other'), 5: capture(5) };
    const shape = (fold: Parameters<typeof queueRows>[5]) =>
      queueRows([1, 2, 3, 4, 5], filesOf, captures, byId, 'all', fold).map((r) =>
        r.kind === 'batch' ? `batch ${r.ids.join('+')}${r.open ? ' open' : ''}` : `${r.kind} ${r.id}`,
      );

    expect(shape({ detailed: false, open: {}, openBatches: {} })).toEqual([
      'capture 1',
      'capture 5',
      'batch 2+3',
      'capture 4',
    ]);
    expect(shape({ detailed: false, open: { 1: true }, openBatches: { 's|2026-11-22': true } })).toEqual([
      'capture 1',
      `file ${f[0]!.id}`,
      `file ${f[1]!.id}`,
      'capture 5',
      'batch 2+3 open',
      'capture 2',
      'capture 3',
      'capture 4',
    ]);
    // "Show every file": everything open, no batch line.
    expect(shape({ detailed: true, open: {}, openBatches: {} })).toEqual([
      'capture 1',
      `file ${f[0]!.id}`,
      `file ${f[1]!.id}`,
      'capture 5',
      `file ${f[5]!.id}`,
      'capture 2',
      `file ${f[2]!.id}`,
      'capture 3',
      `file ${f[3]!.id}`,
      'capture 4',
      `file ${f[4]!.id}`,
    ]);
    // Under "Active" a folded batch of completed captures is not shown at all.
    expect(
      queueRows([1, 2, 3, 4, 5], filesOf, captures, byId, 'active', { detailed: false, open: {}, openBatches: {} }).map(
        (r) => r.kind,
      ),
    ).toEqual(['capture', 'capture']);
  });
});
