import { mkdirSync } from 'node:fs';
import { basename, join } from 'node:path';
import type { CaptureRequest } from '../api/gateway.js';
import type { ManifestEntry } from '../api/schemas.js';
import { openQueueDatabase } from '../queue/db.js';
import { UploadQueue } from '../queue/queue.js';
import { captureRequest } from './kit.js';

// Queue rows as the tests of the queue, the CLI's readers and the app's live view write them:
// through UploadQueue's own writers (§4.4 enqueue, then the registration's manifest), one
// recording a capture, so each test says only what differs.

/**
 * The queue the app keeps in folder `dir` (made, with its parents, when missing) at
 * `dir/queue.db`, migrated to the current version; close it with `queue.db.close()`. Throws what
 * openQueueDatabase throws.
 */
export function queueIn(dir: string): UploadQueue {
  mkdirSync(dir, { recursive: true });
  return new UploadQueue(openQueueDatabase(join(dir, 'queue.db')).db);
}

/**
 * A recording a test queues: at `path` (its file name is the path's last part), `size` bytes, of
 * `contentType` (video/mp4 unless given), last modified at `mtimeMs` (ms since the epoch; 1 unless given).
 */
export interface TestRecording {
  path: string;
  size: number;
  contentType?: string;
  mtimeMs?: number;
}

/**
 * What the registration (§4.4) answered for a capture's one file: the capture's `captureId`, the
 * file's multipart `uploadId`, `totalParts` parts of `partSize` bytes (5 MiB unless given), and
 * the manifest's `status` (`initiated` unless given).
 */
export interface TestUpload {
  captureId: string;
  uploadId: string;
  totalParts: number;
  partSize?: number;
  status?: string;
}

/**
 * The §4.4 request of a capture of the one recording `rec` (kit's captureRequest: project `p1`,
 * structure `s1`), taken at `captureDateTime` (ISO 8601).
 */
export function oneFileRequest(rec: TestRecording, captureDateTime = '2026-11-23T08:00:00Z'): CaptureRequest {
  return captureRequest(captureDateTime, [
    { frameIndex: 1, fileName: basename(rec.path), contentType: rec.contentType ?? 'video/mp4', size: rec.size },
  ]);
}

/**
 * The registration manifest (§4.4) the service answers for every file of `request`: upload
 * `u<frameIndex>` of the file's size in 5 MiB parts (as many as its bytes start), status `pending`.
 */
export function manifestFor(request: CaptureRequest): ManifestEntry[] {
  return request.files.map((f) => ({
    frameIndex: f.frameIndex,
    uploadId: `u${f.frameIndex}`,
    fileName: f.fileName,
    size: f.size,
    partSize: 5_242_880,
    totalParts: Math.ceil(f.size / 5_242_880),
    status: 'pending',
  }));
}

/**
 * Enqueues capture `label` of `request` with its one recording `rec`, not registered (its file
 * `waiting`); returns the capture's row id. Throws what UploadQueue.enqueueCapture throws.
 */
export function enqueueOne(queue: UploadQueue, label: string, request: CaptureRequest, rec: TestRecording): number {
  return queue.enqueueCapture(label, request, [
    {
      path: rec.path,
      fileName: basename(rec.path),
      contentType: rec.contentType ?? 'video/mp4',
      size: rec.size,
      mtimeMs: rec.mtimeMs ?? 1,
    },
  ]);
}

/**
 * Enqueues capture `label` of `request` with its one recording `rec` and saves the registration
 * `upload` for it (its file `pending`, its parts not stored); returns the capture's row id.
 * Throws what UploadQueue.enqueueCapture and saveRegistration throw.
 */
export function enqueueRegistered(
  queue: UploadQueue,
  label: string,
  request: CaptureRequest,
  rec: TestRecording,
  upload: TestUpload,
): number {
  const row = enqueueOne(queue, label, request, rec);
  queue.saveRegistration(row, upload.captureId, [
    {
      frameIndex: 1,
      uploadId: upload.uploadId,
      fileName: basename(rec.path),
      size: rec.size,
      partSize: upload.partSize ?? 5_242_880,
      totalParts: upload.totalParts,
      status: upload.status ?? 'initiated',
    },
  ]);
  return row;
}
