import type { ImportView } from '../../../../shared/ipc.js';
import { isRecordingName } from '../../../../shared/registration.js';
import type { CopyState } from '../../cards-slice.js';
import { copyStateOf } from '../../cards-slice.js';
import type { DraftsSlice } from '../../drafts-slice.js';
import type { DraftCapture } from '../../placement.js';
import { isRegistrable } from '../../placement.js';
import type { BlockedRow } from './CaptureTable.js';

/** A path's last part (either separator). */
export const baseName = (path: string) => path.split(/[\\/]/).pop() ?? path;

/**
 * Why a recording already queued is not registered: for a card put back, whether its copy from
 * the earlier import is uploaded or waits in the queue (found by content, main/offload/known-copies.ts).
 */
function alreadyWords(copy: CopyState | null): string {
  if (copy === 'uploaded')
    return 'Already uploaded: an earlier import of this card copied it. It is not copied or registered again.';
  if (copy === 'queued')
    return 'Already queued: an earlier import of this card copied it. It is not copied or registered again.';
  return 'Already in the queue; it is not registered twice.';
}

/** Why each capture that cannot be registered is blocked, as one string: what blockedRows says of `imports`, compared by value. */
export function blockedReasons(drafts: readonly DraftCapture[], imports: readonly ImportView[]): string {
  let words = '';
  for (const d of drafts)
    if (!isRegistrable(d) && !d.proposal.violation)
      words += `${d.proposal.key}\u0000${copyStateOf(
        imports,
        d.proposal.files.map((f) => f.path),
      )}\u0000`;
  return words;
}

/**
 * The rows the table shows greyed with their reason: captures that cannot be registered (a rule
 * they break, or already queued, said from this session's `imports`) and recordings main refused.
 */
export function blockedRows(
  drafts: readonly DraftCapture[],
  refused: DraftsSlice['refused'],
  imports: readonly ImportView[],
): BlockedRow[] {
  return [
    ...drafts
      .filter((d) => !isRegistrable(d))
      .map((d) => ({
        key: d.proposal.key,
        names: d.proposal.files.map((f) => f.name),
        reason:
          d.proposal.violation ??
          (d.proposal.duplicateOf
            ? `The same recording as ${d.proposal.duplicateOf} (the same content at another path): it is registered once.`
            : undefined) ??
          alreadyWords(
            copyStateOf(
              imports,
              d.proposal.files.map((f) => f.path),
            ),
          ),
      })),
    ...refused
      .filter((r) => isRecordingName(baseName(r.path)))
      .map((r) => ({ key: `${r.path}\u0000${r.reason}`, names: [baseName(r.path)], reason: r.reason })),
  ];
}
