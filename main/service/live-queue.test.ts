import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { EngineEvent } from '../engine/events.js';
import { LiveQueue } from './live-queue.js';
import type { FileState, UploadQueue } from '../queue/queue.js';
import { setFileState } from '../testing/queue-backdoors.js';
import { useWorkDir } from '../testing/kit.js';
import { enqueueRegistered, oneFileRequest, queueIn } from '../testing/queue-rows.js';

const work = useWorkDir('live-queue');

const MiB = 1024 * 1024;
const walk = { path: '/card/walk.mp4', size: 26 * MiB };
const request = oneFileRequest(walk, '2026-11-22T09:00:00Z');

/**
 * A queue of its own (folder `name` in the work folder) holding walk.mp4 (26 MiB) registered in six
 * 5 MiB parts, its first `stored` parts stored: the queue, the capture's row and the file.
 */
function walkWithParts(name: string, stored: number) {
  const queue = queueIn(join(work, name));
  const row = enqueueRegistered(queue, 'walk.mp4', request, walk, {
    captureId: 'c1',
    uploadId: 'u1',
    partSize: 5 * MiB,
    totalParts: 6,
    status: 'pending',
  });
  const file = queue.filesOf(row)[0]!;
  const parts = Array.from({ length: stored }, (_, i) => i + 1);
  queue.recordParts(parts.map((partNumber) => ({ fileId: file.id, partNumber, etag: `"e${partNumber}"` })));
  return { queue, row, file };
}

/** The app's live view of `queue`, nothing uploading and no outage, handing what it sends to `send`. */
const liveOver = (queue: UploadQueue, send: ConstructorParameters<typeof LiveQueue>[3]) =>
  new LiveQueue(
    queue,
    () => null,
    () => null,
    send,
    0,
  );

/** Tells `live` of a `file` event of walk.mp4 (file `fileId` of capture `row`) in `state`, as the engine sends it. */
function tell(live: LiveQueue, queue: UploadQueue, row: number, fileId: number, state: FileState, transient = false) {
  live.onEngine({
    type: 'file',
    fileId,
    captureRow: row,
    fileName: 'walk.mp4',
    state,
    error: null,
    transient,
    file: queue.file(fileId)!,
  });
}

/** Moves file `fileId` to `state` in the queue, then tells `live` (see tell), as the engine commits and then says. */
function moveAndTell(
  live: LiveQueue,
  queue: UploadQueue,
  row: number,
  fileId: number,
  state: FileState,
  transient = false,
) {
  setFileState(queue, fileId, state);
  tell(live, queue, row, fileId, state, transient);
}

/** How far walk.mp4 is in a progress event: bytes acknowledged and on the wire, parts done, seconds left and the outage seen. */
interface WalkProgress {
  bytesSent: number;
  bytesInFlight: number;
  partsDone: number;
  etaSeconds: number | null;
  outage: Extract<EngineEvent, { type: 'progress' }>['overall']['outage'];
}

/** The engine's progress event with walk.mp4 (file `fileId` of capture `row`: 26 MiB, six parts, 1 MiB/s) the only file at work. */
function walkProgress(fileId: number, row: number, at: WalkProgress): EngineEvent {
  const { bytesSent, bytesInFlight, etaSeconds } = at;
  return {
    type: 'progress',
    files: [
      {
        fileId,
        captureRow: row,
        fileName: 'walk.mp4',
        bytesTotal: 26 * MiB,
        bytesSent,
        bytesInFlight,
        partsTotal: 6,
        partsDone: at.partsDone,
        bytesPerSecond: MiB,
        etaSeconds,
      },
    ],
    overall: {
      bytesTotal: 26 * MiB,
      bytesSent,
      bytesInFlight,
      bytesPerSecond: MiB,
      etaSeconds,
      files: 1,
      outage: at.outage,
    },
  };
}

describe('LiveQueue', () => {
  it('drops live bytes of a file that stopped uploading, even when a late progress tick names it', () => {
    const { queue, row, file } = walkWithParts('queue', 4);
    const sent: { event: string; payload: unknown }[] = [];
    const live = liveOver(queue, (event, payload) => sent.push({ event, payload }));
    const tick = (bytesSent: number) =>
      walkProgress(file.id, row, { bytesSent, bytesInFlight: 0, partsDone: 4, etaSeconds: 1, outage: null });

    moveAndTell(live, queue, row, file.id, 'uploading');
    live.onEngine(tick(24 * MiB));
    expect(live.view().files[0]!.bytesSent).toBe(24 * MiB);

    // Paused mid-part: what counts is the 4 stored parts (20 MiB), not the part that was cut off.
    moveAndTell(live, queue, row, file.id, 'paused');
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
    const queue = queueIn(join(work, 'replaced'));
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
    const live = liveOver(queue, () => {});
    expect(live.view().files.map((f) => [f.captureRow, f.state, f.replacedBy])).toEqual([
      [old, 'cancelled', again],
      [again, 'waiting', null],
    ]);
  });

  it('sends acknowledged bytes and bytes on the wire apart, the outage seen, the next retry, and bytes storage lost', () => {
    const { queue, row, file } = walkWithParts('acked', 2);
    const live = liveOver(queue, () => {});
    moveAndTell(live, queue, row, file.id, 'uploading');
    const outage = { where: 'storage' as const, since: 1_000, cause: 'storage unavailable (HTTP 503)' };
    live.onEngine(
      walkProgress(file.id, row, {
        bytesSent: 10 * MiB,
        bytesInFlight: 3 * MiB,
        partsDone: 2,
        etaSeconds: null,
        outage,
      }),
    );
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
    moveAndTell(live, queue, row, file.id, 'pending', true);
    expect(live.totals().bytesDone).toBe(10 * MiB);
    queue.batch.forgetParts(file.id, [2]);
    tell(live, queue, row, file.id, 'pending', true);
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
