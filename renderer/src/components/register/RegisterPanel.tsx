import { useEffect, useMemo, useRef, useState } from 'react';
import { describeRegistration, groupIntoWalks } from '../../../../shared/registration.js';
import { formatBytes } from '../../display-format.js';
import { draftLabel, isReady, isRegistrable, nameOfPlacement, placementOf } from '../../placement.js';
import { useApp } from '../../store.js';
import type { ApplyActions } from './ApplyBar.js';
import { ApplyBar } from './ApplyBar.js';
import { blockedReasons, blockedRows } from './blocked-rows.js';
import { CaptureTable } from './CaptureTable.js';
import { ConfirmDialog } from './ConfirmDialog.js';
import { FIRST_CAPTURE, focusAfter, panelKey } from './panel-focus.js';
import { SkippedFiles } from './SkippedFiles.js';
import { PLAN_REGISTER_ID, PlanBanner } from './PlanBanner.js';

const KEYS_HINT_ID = 'register-keys';
/** One empty list for a window without settings yet (a selector answering a new `[]` would redraw on every update). */
const NO_STRUCTURES: readonly never[] = [];

/**
 * The registration step for a dropped card: the table of captures by site
 * walk, the controls that place many at once, the recordings that cannot be registered with
 * their reasons, one line for the previews and other files skipped, and the confirmation.
 */
export function RegisterPanel() {
  const drafts = useApp((s) => s.drafts);
  const refused = useApp((s) => s.refused);
  const structures = useApp((s) => s.settings?.structures ?? NO_STRUCTURES);
  // Not the imports themselves: each import event would redraw the panel and its table. Only what
  // the blocked rows say of them (a string, compared by value) redraws it.
  const blockedWords = useApp((s) => blockedReasons(s.drafts, s.imports));
  const blocked = useMemo(
    () => blockedRows(drafts, refused, useApp.getState().imports),
    // blockedWords stands for what the imports change in these rows: they are read from the store when it moves.
    [drafts, refused, blockedWords],
  );
  const planMatch = useApp((s) => s.planMatch);
  const placeNote = useApp((s) => s.placeNote);
  const [confirming, setConfirming] = useState(false);
  const [busy, setBusy] = useState(false);
  const actions = useRef<ApplyActions | null>(null);
  const count = drafts.filter(isRegistrable).length;
  const listed = useRef(0);
  useEffect(() => {
    // A card just listed takes the focus, unless the person is already elsewhere on purpose
    // (a field, the queue): from the drop zone or nowhere, focus goes to its first capture.
    // A card the plan placed whole: its one confirmation, "Register and upload".
    if (listed.current === 0 && count > 0) {
      const active = document.activeElement;
      if (!active || active === document.body || active.closest('[data-testid="dropzone"]'))
        (document.getElementById(PLAN_REGISTER_ID) ?? document.querySelector<HTMLElement>(FIRST_CAPTURE))?.focus();
    }
    listed.current = count;
  }, [count]);
  if (drafts.length === 0 && refused.length === 0) return null;

  const registrable = drafts.filter(isRegistrable);
  // By the capture time as it will be sent: a time corrected by hand moves its row with it.
  const walks = groupIntoWalks(registrable, (d) => Date.parse(d.form.capturedAt));
  const ready = registrable.filter((d) => isReady(d, structures));
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
      {registrable.length > 0 && planMatch && (
        <PlanBanner
          match={planMatch}
          sentence={sentence}
          ready={ready.length}
          detail={`${ready.length} capture${ready.length === 1 ? '' : 's'}, ${files} file${files === 1 ? '' : 's'}, ${formatBytes(bytes)}, are then uploaded; a registration cannot be taken back from this computer.`}
        />
      )}
      {registrable.length > 0 && (
        <ApplyBar ready={ready.length} waiting={left} onRegister={openConfirm} actions={actions} />
      )}
      {registrable.length > 0 && (
        <p id={KEYS_HINT_ID} className="keys-hint muted">
          Keys: ↑ ↓ move, Space selects, Shift+↑ ↓ / Page Up, Page Down / Home, End select a range, → to a walk&apos;s
          place (type to choose, Enter places the walk), Alt+T shift times (none selected: the whole card), Alt+S place
          the selection, Ctrl+Enter apply, Ctrl+Shift+Enter register.
        </p>
      )}
      <p className="walk-status" role="status" data-testid="walk-status">
        {placeNote}
      </p>
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
