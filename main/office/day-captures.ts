import type Database from 'better-sqlite3';

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
 * no zone). Reads only; throws better-sqlite3's errors.
 */
export function capturesOfDay(db: Database.Database, project: string, date: string): DayCapture[] {
  const rows = db
    .prepare(
      `SELECT c.id AS captureRow, c.label, c.structure, c.state,
              json_extract(c.request_json, '$.captureDateTime') AS capturedAt,
              COUNT(f.id) AS files,
              COALESCE(SUM(f.state = 'completed'), 0) AS filesUploaded,
              MAX(f.completed_at) AS lastCompleted
         FROM captures c LEFT JOIN files f ON f.capture_row = c.id AND f.state != 'cancelled'
        WHERE c.project = ? AND substr(json_extract(c.request_json, '$.captureDateTime'), 1, 10) = ?
        GROUP BY c.id
        ORDER BY capturedAt, c.id`,
    )
    .all(project, date) as (Omit<DayCapture, 'uploadedAt'> & { lastCompleted: string | null })[];
  return rows.map(({ lastCompleted, ...r }) => ({ ...r, uploadedAt: r.files > 0 && r.filesUploaded === r.files ? lastCompleted : null }));
}
