import { beforeAll, describe, expect, it, vi } from 'vitest';
import type { StoreApi, UseBoundStore } from 'zustand';
import type { EventPayload, QueueFile } from '../../shared/ipc.js';
import type { AppState } from './store.js';
import { queueFile, queueTotals } from '../../shared/testing/queue-fixtures.js';

// The store reads window.api when loaded; these tests only apply events, so an empty one will do.
let useApp: UseBoundStore<StoreApi<AppState>>;
beforeAll(async () => {
  vi.stubGlobal('window', { api: {} });
  ({ useApp } = await import('./store.js'));
});

const totals = queueTotals;
const file = (id: number, state: QueueFile['state']): QueueFile =>
  queueFile(state, { id, captureRow: Math.ceil(id / 2), fileName: `f${id}`, path: `/f${id}` });
const rows = (p: Partial<EventPayload<'capture:event.rows'>>): EventPayload<'capture:event.rows'> => ({
  files: [],
  captures: [],
  removed: { captures: [], files: [] },
  totals: totals({}),
  blocked: null,
  hold: null,
  ...p,
});

describe('the queue store applies a batch as one rows event', () => {
  it('puts 10,000 paused rows in place, keeps the order, and shows the hold', () => {
    const n = 10_000;
    const s = () => useApp.getState();
    const captures = Array.from({ length: n / 2 }, (_, i) => ({
      id: i + 1,
      label: `c${i + 1}`,
      state: 'registered' as const,
      error: null,
      retryAt: null,
      captureId: `cap-${i + 1}`,
      structure: 's',
      design: null,
      type: 'interior' as const,
      capturedAt: '2026-11-23T08:00:00Z',
    }));
    s().applyRows(
      rows({
        captures,
        files: Array.from({ length: n }, (_, i) => file(i + 1, i < 4 ? 'uploading' : 'pending')),
        totals: totals({ files: n, uploading: 4, queued: n - 4 }),
      }),
    );
    expect(s().captureOrder).toHaveLength(n / 2);
    // "Pause all": one event with every file as committed; a late progress tick moves none of them.
    const hold = { until: '2026-11-24T07:00:00.000Z', by: 'person' as const };
    s().applyRows(
      rows({
        files: Array.from({ length: n }, (_, i) => file(i + 1, 'paused')),
        totals: totals({ files: n, paused: n }),
        hold,
      }),
    );
    s().applyProgress({
      files: [{ id: 1, bytesSent: 5, partsDone: 0, partsTotal: 1, bytesPerSecond: 1, etaSeconds: 5 }],
      totals: totals({ files: n, paused: n }),
    });
    expect(new Set(Object.values(s().files).map((f) => f.state))).toEqual(new Set(['paused']));
    expect(s().files[1]!.bytesSent).toBe(0);
    expect(s().filesOf[1]).toEqual([1, 2]);
    expect(s().totals.paused).toBe(n);
    expect(s().hold).toEqual(hold);
    // "Clear completed" of a batch: rows leave, the rest stay in order.
    s().applyRows(rows({ removed: { captures: [1, 2], files: [1, 2, 3, 4] } }));
    expect(s().captureOrder.slice(0, 2)).toEqual([3, 4]);
    expect(s().files[1]).toBeUndefined();
    expect(s().hold).toBeNull();
  });
});

describe('a progress tick updates only the files it changes', () => {
  const tick = (id: number, bytesSent: number) => ({
    files: [{ id, bytesSent, partsDone: 0, partsTotal: 1, bytesPerSecond: 1, etaSeconds: 5 }],
    totals: totals({ files: 3, uploading: 2 }),
  });

  it('keeps the other files, and a file whose figures did not move, the same objects', () => {
    const s = () => useApp.getState();
    s().applyRows(rows({ files: [file(1, 'uploading'), file(2, 'uploading'), file(3, 'paused')] }));
    const before = s().files;
    s().applyProgress(tick(1, 5));
    expect(s().files[1]!.bytesSent).toBe(5);
    // Memoized rows select their own file: an untouched file keeps its object, so its row does not re-render.
    expect(s().files[2]).toBe(before[2]);
    expect(s().files[3]).toBe(before[3]);
    const afterFirst = s().files;
    // The same figures again (a stalled upload): nothing changed, so neither the file nor the map is new.
    s().applyProgress(tick(1, 5));
    expect(s().files[1]).toBe(afterFirst[1]);
    expect(s().files).toBe(afterFirst);
    // A late tick for a paused file changes nothing either.
    s().applyProgress(tick(3, 7));
    expect(s().files).toBe(afterFirst);
    expect(s().files[3]!.bytesSent).toBe(0);
  });
});
