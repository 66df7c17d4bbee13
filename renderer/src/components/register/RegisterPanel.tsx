import { useEffect, useRef, useState } from 'react';
import { describeRegistration, groupIntoWalks } from '../../../../shared/registration.js';
import { formatBytes } from '../../display-format.js';
import { draftLabel, isReady, isRegistrable, nameOfPlacement, placementOf } from '../../placement.js';
import { useApp } from '../../store.js';
import type { ApplyActions } from './ApplyBar.js';
import { ApplyBar } from './ApplyBar.js';
import { blockedRows } from './blocked-rows.js';
import { CaptureTable } from './CaptureTable.js';
import { ConfirmDialog } from './ConfirmDialog.js';
import { FIRST_CAPTURE, focusAfter, panelKey } from './panel-focus.js';
import { SkippedFiles } from './SkippedFiles.js';

const KEYS_HINT_ID = 'register-keys';

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
  const blocked = blockedRows(drafts, refused, imports);
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
      <SkippedFiles refused={refused} />
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
