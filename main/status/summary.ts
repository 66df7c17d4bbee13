import { plainCause } from '../../shared/causes.js';
import type { NightSummary } from '../../shared/night-summary.js';
import { nightSummary } from '../../shared/night-summary.js';
import type { UploadQueue } from '../queue/queue.js';
import { committedTotals } from '../queue/totals.js';

/** What a capture that needs a person waits for, and what to do (as the app's Attention list says it). */
const CAPTURE_ACTION: Record<string, string> = {
  rejected: 'Correct it in the app and register it again, or remove it.',
  registration_unknown: 'Register it again in the app, or drop it if it is on the platform.',
  failed: 'Look at it in the app: register it again or remove it.',
};

/**
 * What needs a person in `queue` now, each with its one-line cause (shared/causes.ts plainCause)
 * and action: captures refused or of unknown registration, and failed files.
 */
function needsYouNow(queue: UploadQueue): NightSummary['needsYou'] {
  const out: NightSummary['needsYou'] = [];
  for (const c of queue.captures()) {
    const action = CAPTURE_ACTION[c.state];
    if (action) out.push({ subject: `capture ${c.id} (${c.label})`, cause: plainCause(c.error), action });
  }
  for (const f of queue.files(['failed'])) {
    out.push({
      subject: `file ${f.id} (${f.fileName})`,
      cause: plainCause(f.error),
      action: `Retry it in the app, or run capture-uploader retry ${f.id}; it resumes from the parts already uploaded.`,
    });
  }
  return out;
}

/**
 * The captures in `queue` with warnings (the activity log's, as the app's rows show them), each
 * with its label and its warnings' sentences, in queue order.
 */
function warnedNow(queue: UploadQueue): NightSummary['warned'] {
  const warnings = queue.activity.warnings();
  return queue
    .captures()
    .filter((c) => warnings.has(c.id))
    .map((c) => ({ subject: `capture ${c.id} (${c.label})`, warnings: [...new Set(warnings.get(c.id))] }));
}

/**
 * The morning summary of `queue` from `since` (ISO 8601) on: shared/night-summary.ts
 * over its activity log, with the sizes of the files completed, what needs a person now, and
 * whether work is left (then there is no finish yet).
 */
export function queueSummary(queue: UploadQueue, since: string): NightSummary {
  const entries = queue.activity.list({ since, limit: 100_000 });
  const t = committedTotals(queue.totals());
  const workLeft = t.uploading + t.queued + t.retrying > 0;
  return nightSummary(entries, (id) => queue.file(id)?.size, needsYouNow(queue), workLeft, warnedNow(queue));
}
