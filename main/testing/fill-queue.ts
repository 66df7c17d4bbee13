import type { CaptureRequest } from '../api/gateway.js';
import type { UploadQueue } from '../queue/queue.js';

/**
 * Test and benchmark kit: fills `queue` with `pairs` registered dual-lens captures (2 × pairs
 * files, `pending`, one 1 KiB part each, no file on disk) in one transaction, as the queue holds
 * a card after registration (§4.4). `card` tells the names and upload ids of another card apart
 * ("" by default). Returns the file ids. Throws SqliteError on a storage failure.
 */
export function fillQueue(queue: UploadQueue, pairs: number, card = ''): number[] {
  const ids: number[] = [];
  queue.transaction(() => {
    for (let i = 0; i < pairs; i++) {
      const request: CaptureRequest = {
        project: 'p',
        structure: 's',
        type: 'interior',
        mode: 'video',
        sourceType: 'bot',
        captureDateTime: '2026-11-23T08:00:00Z',
        files: [1, 2].map((frameIndex) => ({
          frameIndex,
          fileName: `VID_${card}${i}_${frameIndex}.insv`,
          contentType: 'video/mp4',
          size: 1024,
        })),
      };
      const files = [1, 2].map((n) => ({
        path: `/card/VID_${card}${i}_${n}.insv`,
        fileName: `VID_${card}${i}_${n}.insv`,
        contentType: 'video/mp4',
        size: 1024,
        mtimeMs: 0,
      }));
      const row = queue.enqueueCapture(`VID_${card}${i}`, request, files);
      queue.saveRegistration(
        row,
        `cap-${card}${i}`,
        [1, 2].map((frameIndex) => ({
          frameIndex,
          uploadId: `u-${card}${i}-${frameIndex}`,
          fileName: `VID_${card}${i}_${frameIndex}.insv`,
          size: 1024,
          partSize: 5_242_880,
          totalParts: 1,
          status: 'initiated',
        })),
      );
      for (const f of queue.filesOf(row)) ids.push(f.id);
    }
  })();
  return ids;
}
