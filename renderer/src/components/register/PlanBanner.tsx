import { useState } from 'react';
import type { PlanMatchView } from '../../drafts-slice.js';
import { useApp } from '../../store.js';
import { focusAfter } from './panel-focus.js';
import './walk-place.css';

/** The id of the plan's "Register and upload", which a card placed whole by the plan focuses. */
export const PLAN_REGISTER_ID = 'plan-register';

/**
 * What the capture plan made of the card, above the table: placed whole, the card's one
 * confirmation, naming the camera days matched and what goes where (`sentence`, as the dialog
 * says it), with **Register and upload** (one click or Enter: it is the confirmation, so no dialog
 * follows); otherwise each walk the plan could not place, in the plan's words, while what it could
 * place stays placed for the person to check and register as usual.
 */
export function PlanBanner({
  match,
  sentence,
  ready,
  detail,
}: {
  match: PlanMatchView;
  sentence: string;
  ready: number;
  detail: string;
}) {
  const [busy, setBusy] = useState(false);
  if (match.complete && ready > 0)
    return (
      <div className="banner plan-banner plan-matched" role="region" aria-label="Placed by the capture plan">
        <p>
          <strong>Placed by the capture plan</strong> ({match.matched.join('; ')}): {sentence}. {detail}
        </p>
        <button
          id={PLAN_REGISTER_ID}
          type="button"
          className="primary"
          disabled={busy}
          onClick={() => {
            setBusy(true);
            void useApp
              .getState()
              .registerDrafts()
              .finally(() => {
                setBusy(false);
                focusAfter(['tr[data-testid="capture-row"]:has(.place.unset) input[type="checkbox"]', '#queue-title']);
              });
          }}
        >
          {busy ? 'Adding…' : 'Register and upload'}
        </button>
      </div>
    );
  if (match.problems.length === 0) return null;
  return (
    <div className="banner plan-banner plan-mismatch" role="region" aria-label="The capture plan">
      <p>
        <strong>The card does not match the capture plan</strong>
        {match.placed ? `: ${match.placed} captures placed by it, check them.` : ': nothing placed by it.'} It waits for
        you:
      </p>
      <ul data-testid="plan-problems">
        {match.problems.map((p) => (
          <li key={p}>{p}</li>
        ))}
      </ul>
    </div>
  );
}
