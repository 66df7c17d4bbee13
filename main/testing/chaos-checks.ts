import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Database } from './queue-backdoors.js';

/**
 * What the chaos check (main/testing/chaos-run.ts) judges a run by, apart from running it: the
 * queue's rows as committed, the exit status the README gives for them, whether a part stored
 * twice was one the in-doubt rules allow, and whether a printed line holds a control character.
 * Test code only.
 */

/** A capture row as committed in queue.db. */
export interface QueueCaptureRow {
  id: number;
  state: string;
  label: string;
  captureId: string | null;
}

/** A file row as committed in queue.db. */
export interface QueueFileRow {
  id: number;
  captureRow: number;
  fileName: string;
  state: string;
  uploadId: string | null;
  error: string | null;
  replacedBy: number | null;
}

/** The queue's captures and files as committed in `<queueDir>/queue.db`, read on a read-only connection; empty when there is no queue (or none of its tables) yet. */
export function readQueue(queueDir: string): { captures: QueueCaptureRow[]; files: QueueFileRow[] } {
  const path = join(queueDir, 'queue.db');
  if (!existsSync(path)) return { captures: [], files: [] };
  const db = new Database(path, { readonly: true, fileMustExist: true });
  try {
    db.pragma('busy_timeout = 5000');
    // A process killed while it made the queue may leave the file before its tables.
    const tables = db.prepare("SELECT COUNT(*) AS n FROM sqlite_master WHERE name IN ('captures', 'files')").get() as {
      n: number;
    };
    if (tables.n < 2) return { captures: [], files: [] };
    const captures = db
      .prepare('SELECT id, state, label, capture_id AS captureId FROM captures ORDER BY id')
      .all() as QueueCaptureRow[];
    const files = db
      .prepare(
        `SELECT id, capture_row AS captureRow, file_name AS fileName, state, upload_id AS uploadId, error,
                replaced_by AS replacedBy
           FROM files ORDER BY id`,
      )
      .all() as QueueFileRow[];
    return { captures, files };
  } finally {
    db.close();
  }
}

/** Capture states that need a person (README, exit status 1). */
const CAPTURE_NEEDS_PERSON = new Set(['registration_unknown', 'rejected', 'failed']);
/** Capture states that go on by themselves (README, exit status 3). */
const CAPTURE_GOES_ON = new Set(['queued', 'registering']);

/**
 * The exit status the README gives `drain` for the queue as it is left (`rows`): 1 when a person
 * is needed (a file failed, paused or cancelled, a capture refused, failed or its registration
 * unknown), 3 when work is left that goes on by itself (files not completed, captures not yet
 * registered), else 0.
 */
export function drainExitCodeFor(rows: { captures: QueueCaptureRow[]; files: QueueFileRow[] }): number {
  const files = rows.files.filter((f) => f.replacedBy === null);
  if (
    files.some((f) => ['failed', 'paused', 'cancelled'].includes(f.state)) ||
    rows.captures.some((c) => CAPTURE_NEEDS_PERSON.has(c.state))
  )
    return 1;
  if (files.some((f) => f.state !== 'completed') || rows.captures.some((c) => CAPTURE_GOES_ON.has(c.state))) return 3;
  return 0;
}

/**
 * The exit status the README gives `add` (and `import` with placement) for the captures it queued
 * (`queued`, the rows it made): 1 when it queued nothing, or one of them needs a person (refused,
 * failed, registration unknown); 3 when one is not registered yet; else 0. `import` queues nothing
 * of a card it copied before, and is not held to "queued nothing" (`nothingIsOne` false).
 */
export function addExitCodeFor(queued: readonly QueueCaptureRow[], nothingIsOne = true): number {
  if (queued.length === 0) return nothingIsOne ? 1 : 0;
  if (queued.some((c) => CAPTURE_NEEDS_PERSON.has(c.state))) return 1;
  if (queued.some((c) => CAPTURE_GOES_ON.has(c.state))) return 3;
  return 0;
}

/**
 * The exit status of a command stopped cleanly by `signal`: 128 + its number, as the README gives
 * 130 for SIGINT and 143 for SIGTERM, and 129 for SIGHUP (a closed terminal or SSH session), which
 * every command that changes the queue is to handle alike.
 */
export function signalExitCode(signal: string): number | undefined {
  return { SIGHUP: 129, SIGINT: 130, SIGTERM: 143 }[signal];
}

// C0 controls but tab and newline, DEL, C1 controls, and the bidirectional controls (LRM, RLM,
// ALM, the embeddings and overrides, the isolates): none may reach a terminal raw.
// eslint-disable-next-line no-control-regex
const RAW_CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/u;

/**
 * The first raw control character of `text` (C0 but tab and newline, DEL, C1, a bidirectional
 * control) with the characters around it, escaped for the report; undefined when there is none.
 */
export function rawControlIn(text: string): string | undefined {
  const m = RAW_CONTROL.exec(text);
  if (!m) return undefined;
  const around = text.slice(Math.max(0, m.index - 30), m.index + 30);
  return `U+${m[0].codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')} in ${JSON.stringify(around)}`;
}

/** How a part came to be stored twice (see explainDouble). */
export type DoubleWhy = 'logged' | 'killed' | 'unexplained';

/**
 * Why part `part` of `fileName` was stored a second time, by the in-doubt rules
 * (docs/engine.md): `logged` when the uploader said it sent the part again after it had waited its
 * settle time for storage to show it (a line of `lines` naming the file, the part and "sending it
 * again" / "not there, sent again"); `killed` when a process died without a word (SIGKILL, or a
 * signal it has no handler for) while either copy was in flight: between its request reaching
 * storage (`arrivedAt`) and storage storing it (`storedAt`), so its sender could neither know nor
 * mark the part (all ms on one monotonic clock, `deaths`); else `unexplained`. Either copy, because
 * storage logs copies in the order it stores them: a killed sender's body may still be in the
 * kernel's socket buffers, delivered and stored after the next run's copy of the same part, so the
 * copy the dead process sent can be the later one (`second`).
 */
export function explainDouble(
  fileName: string,
  part: number,
  first: { arrivedAt: number; storedAt: number },
  second: { arrivedAt: number; storedAt: number },
  lines: readonly string[],
  deaths: readonly number[],
): DoubleWhy {
  const inRun = `Part ${part} of ${fileName}: sent in full, no answer`;
  const atStart = new RegExp(
    `^${escapeRegExp(fileName)}: \\d+ part\\(s\\) were sent in full when the last run stopped`,
  );
  for (const l of lines) {
    if (l.includes(inRun) && l.includes('sending it again')) return 'logged';
    const resent = /; ([\d, ]+) not there, sent again/.exec(l);
    if (atStart.test(l) && resent && resent[1]!.split(', ').map(Number).includes(part)) return 'logged';
  }
  // A margin of 50 ms either side for the two processes' view of the same instant.
  const inFlight = (c: { arrivedAt: number; storedAt: number }) =>
    deaths.some((d) => d >= c.arrivedAt - 50 && d <= c.storedAt + 50);
  if (inFlight(first) || inFlight(second)) return 'killed';
  return 'unexplained';
}

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
