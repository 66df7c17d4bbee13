import type { KeyboardEvent } from 'react';
import { useEffect, useRef, useState } from 'react';
import {
  describeRegistration,
  describeSkipped,
  groupIntoWalks,
  isNothingFound,
  isRecordingName,
} from '../../../../shared/registration.js';
import type { CopyState } from '../../cards-slice.js';
import { copyStateOf } from '../../cards-slice.js';
import { formatBytes } from '../../display-format.js';
import { draftLabel, isReady, isRegistrable, nameOfPlacement, placementOf } from '../../placement.js';
import { useApp } from '../../store.js';
import type { ApplyActions } from './ApplyBar.js';
import { ApplyBar, PLACE_ID } from './ApplyBar.js';
import type { BlockedRow } from './CaptureTable.js';
import { CaptureTable } from './CaptureTable.js';
import { ConfirmDialog } from './ConfirmDialog.js';

const baseName = (path: string) => path.split(/[\\/]/).pop() ?? path;

/**
 * After the dialog closed: focus the first element found of `selectors`, and keep focus there
 * over the next frames (about 150 ms) while the lists re-render from the answer and the queue's
 * events: an element replaced under the focus would drop it to the page.
 */
function focusAfter(selectors: string[], frames = 10): void {
  requestAnimationFrame(() => {
    const active = document.activeElement;
    if (!active || active === document.body || !active.isConnected) {
      for (const sel of selectors) {
        const el = document.querySelector<HTMLElement>(sel);
        if (el) {
          el.focus();
          break;
        }
      }
    }
    if (frames > 1) focusAfter(selectors, frames - 1);
  });
}

const KEYS_HINT_ID = 'register-keys';
const FIRST_CAPTURE = 'tr[data-testid="capture-row"] input[type="checkbox"]';

/**
 * The panel's shortcuts, wherever the focus is in it (not in the confirmation):
 * Alt+S to "Structure · design", Ctrl+Enter applies to the selection, Ctrl+Shift+Enter opens the
 * confirmation. Keys are read by `code` for Alt+S, so a layout or Option key that types a
 * character instead still works.
 */
function panelKey(e: KeyboardEvent<HTMLElement>, actions: ApplyActions | null, register: () => void): void {
  if (e.target instanceof Element && e.target.closest('dialog')) return;
  if (e.altKey && !e.ctrlKey && !e.metaKey && e.code === 'KeyS') {
    e.preventDefault();
    document.getElementById(PLACE_ID)?.focus();
  } else if (e.ctrlKey && !e.altKey && e.key === 'Enter') {
    e.preventDefault();
    if (e.shiftKey) register();
    else actions?.apply();
  }
}

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

/**
 * The registration step for a dropped card: the table of captures by site
 * walk, the controls that place many at once, the recordings that cannot be registered with
 * their reasons, one line for the previews and other files skipped, and the confirmation.
 */
export function RegisterPanel() {
  const drafts = useApp((s) => s.drafts);
  const imports = useApp((s) => s.imports);
  const refused = useApp((s) => s.refused);
  const structures = useApp((s) => s.settings?.structures ?? []);
  const [confirming, setConfirming] = useState(false);
  const [busy, setBusy] = useState(false);
  const actions = useRef<ApplyActions | null>(null);
  const count = drafts.filter(isRegistrable).length;
  const listed = useRef(0);
  useEffect(() => {
    // A card just listed takes the focus, unless the person is already elsewhere on purpose
    // (a field, the queue): from the drop zone or nowhere, focus goes to its first capture.
    if (listed.current === 0 && count > 0) {
      const active = document.activeElement;
      if (!active || active === document.body || active.closest('[data-testid="dropzone"]'))
        document.querySelector<HTMLElement>(FIRST_CAPTURE)?.focus();
    }
    listed.current = count;
  }, [count]);
  if (drafts.length === 0 && refused.length === 0) return null;

  const registrable = drafts.filter(isRegistrable);
  // By the capture time as it will be sent: a time corrected by hand moves its row with it.
  const walks = groupIntoWalks(registrable, (d) => Date.parse(d.form.capturedAt));
  const ready = registrable.filter((d) => isReady(d, structures));
  const blocked: BlockedRow[] = [
    ...drafts
      .filter((d) => !isRegistrable(d))
      .map((d) => ({
        key: d.proposal.key,
        names: d.proposal.files.map((f) => f.name),
        reason:
          d.proposal.violation ??
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
  // A dropped folder without any recording is said out loud, not folded into the skipped line.
  const empty = refused.filter((r) => isNothingFound(r.reason));
  const skipped = refused.filter((r) => !isRecordingName(baseName(r.path)) && !isNothingFound(r.reason));
  const sentence = describeRegistration(ready.map(placementOf), (p) => nameOfPlacement(structures, p) ?? p.structure);
  const files = ready.reduce((n, d) => n + d.proposal.files.length, 0);
  const bytes = ready.reduce((n, d) => n + d.proposal.files.reduce((m, f) => m + f.size, 0), 0);
  const left = registrable.length - ready.length;
  const warned = ready.filter((d) => d.proposal.warnings?.length);

  const confirm = async () => {
    setBusy(true);
    await useApp.getState().registerDrafts();
    setBusy(false);
    setConfirming(false);
    // Focus never falls to the page: the next capture without a place, else the queue.
    focusAfter(['tr[data-testid="capture-row"]:has(.place.unset) input[type="checkbox"]', '#queue-title']);
  };
  const openConfirm = () => {
    if (ready.length > 0) setConfirming(true);
  };
  const cancel = () => {
    setConfirming(false);
    focusAfter(['.register-actions button.primary']);
  };
  return (
    <section
      className="drafts"
      aria-labelledby="drafts-title"
      onKeyDown={(e) => panelKey(e, actions.current, openConfirm)}
    >
      <header className="drafts-head">
        <h2 id="drafts-title">
          New captures{' '}
          {registrable.length > 0 && (
            <span className="muted">{`${registrable.length} in ${walks.length} site walk${walks.length === 1 ? '' : 's'}`}</span>
          )}
        </h2>
        <button type="button" className="link" onClick={() => useApp.getState().clearDrafts()}>
          Clear this list
        </button>
      </header>
      {registrable.length > 0 && (
        <ApplyBar ready={ready.length} waiting={left} onRegister={openConfirm} actions={actions} />
      )}
      {registrable.length > 0 && (
        <p id={KEYS_HINT_ID} className="keys-hint muted">
          Keys: ↑ ↓ move, Space selects, Shift+↑ ↓ / Page Up, Page Down / Home, End select a range, Alt+S place,
          Ctrl+Enter apply, Ctrl+Shift+Enter register.
        </p>
      )}
      {(registrable.length > 0 || blocked.length > 0) && (
        <CaptureTable walks={walks} blocked={blocked} hintId={registrable.length > 0 ? KEYS_HINT_ID : undefined} />
      )}
      {empty.map((r) => (
        <p key={r.path} className="nothing-found" role="status" data-testid="nothing-found">
          {r.reason}
        </p>
      ))}
      {skipped.length > 0 && (
        <details className="skipped" aria-label="Not uploaded">
          <summary>{describeSkipped(skipped.map((r) => baseName(r.path)))}</summary>
          <ul>
            {skipped.map((r, i) => (
              <li key={`${r.path}-${i}`}>
                <span className="path">{baseName(r.path)}</span> — {r.reason}
              </li>
            ))}
          </ul>
        </details>
      )}
      {confirming && (
        <ConfirmDialog
          title={`Register ${ready.length} capture${ready.length === 1 ? '' : 's'}?`}
          sentence={`${sentence}.`}
          detail={`${files} file${files === 1 ? '' : 's'}, ${formatBytes(bytes)}, are then uploaded.${left ? ` ${left} capture${left === 1 ? '' : 's'} without a structure and design stay in the list.` : ''} A registration cannot be taken back from this computer.`}
          warnings={warned.map((d) => ({ label: draftLabel(d), warnings: d.proposal.warnings! }))}
          busy={busy}
          onConfirm={() => void confirm()}
          onCancel={cancel}
        />
      )}
    </section>
  );
}
