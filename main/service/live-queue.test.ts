import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { EngineEvent } from '../engine/events.js';
import { LiveQueue } from './live-queue.js';
import { openQueueDatabase } from '../queue/db.js';
import { UploadQueue } from '../queue/queue.js';
import { setFileState } from '../testing/queue-backdoors.js';
import { captureRequest } from '../testing/kit.js';

const work = mkdtempSync(join(tmpdir(), 'live-queue-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const MiB = 1024 * 1024;
const request = captureRequest('2026-11-22T09:00:00Z', [
  { frameIndex: 1, fileName: 'walk.mp4', contentType: 'video/mp4', size: 26 * MiB },
]);

describe('LiveQueue', () => {
  it('drops live bytes of a file that stopped uploading, even when a late progress tick names it', () => {
    const queue = new UploadQueue(openQueueDatabase(join(work, 'queue.db')).db);
    const row = queue.enqueueCapture('walk.mp4', request, [
      { path: '/card/walk.mp4', fileName: 'walk.mp4', contentType: 'video/mp4', size: 26 * MiB, mtimeMs: 1 },
    ]);
    queue.saveRegistration(row, 'c1', [
      {
        frameIndex: 1,
        uploadId: 'u1',
        fileName: 'walk.mp4',
        size: 26 * MiB,
        partSize: 5 * MiB,
        totalParts: 6,
        status: 'pending',
      },
    ]);
    const file = queue.filesOf(row)[0]!;
    queue.recordParts([1, 2, 3, 4].map((partNumber) => ({ fileId: file.id, partNumber, etag: `"e${partNumber}"` })));
    const sent: { event: string; payload: unknown }[] = [];
    const live = new LiveQueue(
      queue,
      () => null,
      () => null,
      (event, payload) => sent.push({ event, payload }),
      0,
    );
    const tick = (bytesSent: number): EngineEvent => ({
      type: 'progress',
      files: [
        {
          fileId: file.id,
          captureRow: row,
          fileName: 'walk.mp4',
          bytesTotal: 26 * MiB,
          bytesSent,
          bytesInFlight: 0,
          partsTotal: 6,
          partsDone: 4,
          bytesPerSecond: MiB,
          etaSeconds: 1,
        },
      ],
      overall: {
        bytesTotal: 26 * MiB,
        bytesSent,
        bytesInFlight: 0,
        bytesPerSecond: MiB,
        etaSeconds: 1,
        files: 1,
        outage: null,
      },
    });

    setFileState(queue, file.id, 'uploading');
    live.onEngine({
      type: 'file',
      fileId: file.id,
      captureRow: row,
      fileName: 'walk.mp4',
      state: 'uploading',
      error: null,
      transient: false,
      file: queue.file(file.id)!,
    });
    live.onEngine(tick(24 * MiB));
    expect(live.view().files[0]!.bytesSent).toBe(24 * MiB);

    // Paused mid-part: what counts is the 4 stored parts (20 MiB), not the part that was cut off.
    setFileState(queue, file.id, 'paused');
    live.onEngine({
      type: 'file',
      fileId: file.id,
      captureRow: row,
      fileName: 'walk.mp4',
      state: 'paused',
      error: null,
      transient: false,
      file: queue.file(file.id)!,
    });
    live.onEngine(tick(25 * MiB)); // the tracker's last tick, after the pause
    const view = live.view();
    expect(view.files[0]!.bytesSent).toBe(20 * MiB);
    expect(view.totals.bytesDone).toBe(20 * MiB);
    const last = sent.filter((e) => e.event === 'capture:event.progress').at(-1)!.payload as {
      files: { id: number }[];
      totals: { bytesDone: number };
    };
    expect(last.files.map((f) => f.id)).not.toContain(file.id);
    expect(last.totals.bytesDone).toBe(20 * MiB);
  });

  it('shows the app which capture replaced a file whose recording changed and was added again', () => {
    const queue = new UploadQueue(openQueueDatabase(join(work, 'replaced.db')).db);
    const file = {
      path: '/card/walk.mp4',
      fileName: 'walk.mp4',
      contentType: 'video/mp4',
      size: 26 * MiB,
      mtimeMs: 1,
      dev: '1',
      ino: '2',
      fingerprint: 'f1',
    };
    const old = queue.enqueueCapture('walk.mp4', request, [file]);
    queue.markChanged(queue.filesOf(old)[0]!.id);
    const again = queue.enqueueCapture('walk.mp4', request, [{ ...file, mtimeMs: 2, fingerprint: 'f2' }]);
    queue.replaceChanged(again, [file]);
    const live = new LiveQueue(
      queue,
      () => null,
      () => null,
      () => {},
      0,
    );
    expect(live.view().files.map((f) => [f.captureRow, f.state, f.replacedBy])).toEqual([
      [old, 'cancelled', again],
      [again, 'waiting', null],
    ]);
  });

  it('sends acknowledged bytes and bytes on the wire apart, the outage seen, the next retry, and bytes storage lost', () => {
    const queue = new UploadQueue(openQueueDatabase(join(work, 'acked.db')).db);
    const row = queue.enqueueCapture('walk.mp4', request, [
      { path: '/card/walk.mp4', fileName: 'walk.mp4', contentType: 'video/mp4', size: 26 * MiB, mtimeMs: 1 },
    ]);
    queue.saveRegistration(row, 'c1', [
      {
        frameIndex: 1,
        uploadId: 'u1',
        fileName: 'walk.mp4',
        size: 26 * MiB,
        partSize: 5 * MiB,
        totalParts: 6,
        status: 'pending',
      },
    ]);
    const file = queue.filesOf(row)[0]!;
    queue.recordParts([1, 2].map((partNumber) => ({ fileId: file.id, partNumber, etag: `"e${partNumber}"` })));
    const live = new LiveQueue(
      queue,
      () => null,
      () => null,
      () => {},
      0,
    );
    setFileState(queue, file.id, 'uploading');
    live.onEngine({
      type: 'file',
      fileId: file.id,
      captureRow: row,
      fileName: 'walk.mp4',
      state: 'uploading',
      error: null,
      transient: false,
      file: queue.file(file.id)!,
    });
    const outage = { where: 'storage' as const, since: 1_000, cause: 'storage unavailable (HTTP 503)' };
    live.onEngine({
      type: 'progress',
      files: [
        {
          fileId: file.id,
          captureRow: row,
          fileName: 'walk.mp4',
          bytesTotal: 26 * MiB,
          bytesSent: 10 * MiB,
          bytesInFlight: 3 * MiB,
          partsTotal: 6,
          partsDone: 2,
          bytesPerSecond: MiB,
          etaSeconds: null,
        },
      ],
      overall: {
        bytesTotal: 26 * MiB,
        bytesSent: 10 * MiB,
        bytesInFlight: 3 * MiB,
        bytesPerSecond: MiB,
        etaSeconds: null,
        files: 1,
        outage,
      },
    });
    const view = live.view();
    expect(view.files[0]).toMatchObject({ bytesSent: 10 * MiB, bytesInFlight: 3 * MiB });
    expect(view.totals).toMatchObject({
      bytesDone: 10 * MiB,
      bytesInFlight: 3 * MiB,
      outage,
      bytesPerSecond: 0,
      bytesLost: 0,
    });

    // The file waits for its retry. Bytes done going back is no loss by itself (a file restarted,
    // a card put back); storage's own list lacking part 2 is, said once by the engine.
    setFileState(queue, file.id, 'pending');
    live.onEngine({
      type: 'file',
      fileId: file.id,
      captureRow: row,
      fileName: 'walk.mp4',
      state: 'pending',
      error: null,
      transient: true,
      file: queue.file(file.id)!,
    });
    expect(live.totals().bytesDone).toBe(10 * MiB);
    queue.batch.forgetParts(file.id, [2]);
    live.onEngine({
      type: 'file',
      fileId: file.id,
      captureRow: row,
      fileName: 'walk.mp4',
      state: 'pending',
      error: null,
      transient: true,
      file: queue.file(file.id)!,
    });
    expect(live.totals()).toMatchObject({ bytesDone: 5 * MiB, bytesLost: 0 });
    live.onEngine({
      type: 'lost',
      fileId: file.id,
      captureRow: row,
      fileName: 'walk.mp4',
      partNumbers: [2],
      bytes: 5 * MiB,
    });
    expect(live.totals()).toMatchObject({ bytesDone: 5 * MiB, bytesLost: 5 * MiB });
    expect(live.totals()).toMatchObject({ bytesLost: 5 * MiB }); // read again: still once
  });
});
