import type { QueueDatabase } from '../queue/db.js';
import { dayCaptureRows } from '../queue/reader.js';

/**
 * A capture of the local upload queue as the office's day view lists it beside the day's
 * progress entries: `captureRow` the queue row it links to; `capturedAt` ISO 8601
 * as registered (§4.4 captureDateTime); `files` not cancelled and `filesUploaded` of them;
 * `uploadedAt` (ISO 8601) the last file's completion once every file is uploaded, else null.
 */
export interface DayCapture {
  captureRow: number;
  label: string;
  structure: string;
  state: string;
  capturedAt: string;
  files: number;
  filesUploaded: number;
  uploadedAt: string | null;
}

/**
 * The captures of `project` taken on `date` (YYYY-MM-DD), from queue.db in one query, oldest
 * first. The day is the date part of captureDateTime as registered: the site's own local date
 * (the recording's clock with its zone), the same day a progress entry's date names (§2 date has
 * no zone). Reads only (main/queue/reader.ts); throws SqliteError.
 */
export function capturesOfDay(db: QueueDatabase, project: string, date: string): DayCapture[] {
  return dayCaptureRows(db, project, date).map(({ lastCompleted, ...r }) => ({
    ...r,
    uploadedAt: r.files > 0 && r.filesUploaded === r.files ? lastCompleted : null,
  }));
}
