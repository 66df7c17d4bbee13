import type Database from 'better-sqlite3';
import type { QueueHold } from '../queue/meta.js';

// `status --json` with 10,000 files queued spent most of its time building 15,000 JS objects
// (rows mapped to QueuedFile/QueuedCapture, each capture's request parsed, then everything
// copied and stringified again): a third of it in the garbage collector. SQLite's JSON functions
// build the same document in C in one statement, and the CLI writes the string it returns.
// The keys, their order and their values are those of toCapture/toFile (main/queue/rows.ts) plus
// partsDone and bytesDone; status.test.ts holds this document equal to the one built from those
// mappings, so a column added there and not here fails the test.

const FILE_JSON = `json_object(
  'id', f.id, 'captureRow', f.capture_row, 'frameIndex', f.frame_index, 'path', f.path, 'fileName', f.file_name,
  'contentType', f.content_type, 'size', f.size, 'mtimeMs', f.mtime_ms, 'state', f.state, 'uploadId', f.upload_id,
  'partSize', f.part_size, 'totalParts', f.total_parts, 'error', f.error, 'attempts', f.attempts,
  'nextAttemptAt', f.next_attempt_at, 'transient', json(iif(f.transient = 1, 'true', 'false')),
  'changed', json(iif(f.changed = 1, 'true', 'false')), 'replacedBy', f.replaced_by, 'awaitingCopy', json(iif(f.awaiting_copy = 1, 'true', 'false')), 'completedAt', f.completed_at, 'dev', f.dev, 'ino', f.ino,
  'ctimeNs', f.ctime_ns, 'fingerprint', f.fingerprint, 'storedBytes', f.stored_bytes, 'storedParts', f.stored_parts,
  'partsDone', f.stored_parts, 'bytesDone', iif(f.state = 'completed', f.size, f.stored_bytes)
)`;

const CAPTURE_JSON = `json_object(
  'id', c.id, 'state', c.state, 'label', c.label, 'project', c.project, 'structure', c.structure, 'design', c.design,
  'request', json(c.request_json), 'captureId', c.capture_id, 'error', c.error, 'attempts', c.attempts,
  'nextAttemptAt', c.next_attempt_at, 'sentAt', c.sent_at, 'priority', c.priority, 'createdAt', c.created_at, 'updatedAt', c.updated_at,
  'files', json(coalesce(l.list, '[]'))
)`;

// The files of each capture in frame order, then every capture in queue order (moved to the
// front first, then by id): the order statusOutput gives. Stored bytes and parts come from the files' own columns (migration 5), so
// no part row is read.
const STATUS_JSON = `
  WITH file_lists AS (
    SELECT f.capture_row, json_group_array(json(${FILE_JSON}) ORDER BY f.frame_index) AS list
    FROM files f
    GROUP BY f.capture_row
  )
  SELECT json_object('type', 'status', 'state', json(?), 'hold', json(?), 'captures', json_group_array(json(${CAPTURE_JSON}) ORDER BY c.priority DESC, c.id)) AS doc
  FROM captures c LEFT JOIN file_lists l ON l.capture_row = c.id`;

/**
 * The `status --json` document of the queue in `db`: one `{ type: 'status', state, hold, captures }`
 * object: `state` the queue's state as the app shows it (status.ts statusState: `kind`,
 * `headline`, `detail`, `nextTry` ms, `bytesDone` acknowledged and `bytesTotal` bytes) or null; `hold` the queue-wide hold in force (`{ until, by }`, main/queue/meta.ts QueueHold) or
 * null; captures (in queue order: moved to the front first, then by id) carry their files (in frame order) with `partsDone` and
 * `bytesDone` (bytes), times as the queue keeps them (ISO 8601 text; retry times in ms since the
 * epoch). Returned as JSON text, built by SQLite. Throws SqliteError if the schema is not the
 * latest (the caller checks the version first).
 */
export function statusJson(db: Database.Database, hold: QueueHold | null = null, state: object | null = null): string {
  return (db.prepare(STATUS_JSON).get(JSON.stringify(state), JSON.stringify(hold)) as { doc: string }).doc;
}
