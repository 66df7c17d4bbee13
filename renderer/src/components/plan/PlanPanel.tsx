import { useEffect, useMemo, useState } from 'react';
import type { CapturePlan, PlanDay, PlanWalk } from '../../../../shared/capture-plan.js';
import { WEEKDAYS, describePlanDay } from '../../../../shared/capture-plan.js';
import { placeChoices } from '../../placement.js';
import { useApp } from '../../store.js';
import './plan.css';

/** A day as the panel's list gives it: one of the plan's `day` words, or `date` with the date apart. */
const DAY_CHOICES = [
  ['weekdays', 'Every weekday (Monday to Friday)'],
  ...WEEKDAYS.map((d) => [d, `Every ${d[0]!.toUpperCase()}${d.slice(1)}`] as const),
  ['date', 'On one date'],
] as const;

const isDate = (day: string) => /^\d{4}-\d{2}-\d{2}$/.test(day);
const SEP = '\u0000';
/** A walk as the walk list's value: structure, design and type (placement.ts PlaceChoice value). */
const valueOf = (w: PlanWalk) => `${w.structure}${SEP}${w.design ?? ''}${SEP}${w.type}`;
const walkOf = (value: string): PlanWalk => {
  const [structure, design, type] = value.split(SEP) as [string, string, PlanWalk['type']];
  return { structure, ...(design ? { design } : {}), type };
};
const today = () => new Date().toISOString().slice(0, 10);

/**
 * The Plan panel: the capture plan written ahead of time (shared/capture-plan.ts), per camera
 * (the serial number the Insta360 trailer gives, or any camera) and day (one date, a weekday,
 * every weekday), the site walks in the order they are walked, each a structure · design and a
 * type. A card whose walks match its camera's plan for its day opens placed (one "Register and
 * upload"); "no click" sends such a card to the queue as soon as it is inserted. Saved whole to
 * the queue (`capture:plan.save`); the captures listed and not registered yet are placed again at
 * once. The same plan is `capture-uploader plan show|set|clear`.
 */
export function PlanPanel() {
  const stored = useApp((s) => s.plan);
  const structures = useApp((s) => s.settings?.structures);
  // The cameras of the recordings listed now, offered as the serial numbers to plan for (one
  // string, so the panel re-renders only when they change).
  const seen = useApp((s) =>
    [...new Set(s.drafts.map((d) => d.proposal.media.camera?.serialNumber).filter(Boolean))].join('\n'),
  );
  const cameras = useMemo(() => (seen ? seen.split('\n') : []), [seen]);
  const [plan, setPlan] = useState<CapturePlan | null>(null);
  const [status, setStatus] = useState('');
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);
  useEffect(() => void useApp.getState().loadPlan(), []);
  useEffect(() => {
    if (stored && plan === null) setPlan({ autoRegister: stored.autoRegister, days: stored.days });
  }, [stored, plan]);
  const choices = useMemo(() => placeChoices(structures ?? [], [], {}), [structures]);

  if (!plan) return <p className="muted">Reading the plan…</p>;
  const setDay = (i: number, change: Partial<PlanDay>) =>
    setPlan({ ...plan, days: plan.days.map((d, j) => (j === i ? { ...d, ...change } : d)) });
  const setWalks = (i: number, walks: PlanWalk[]) => setDay(i, { walks });
  const first = choices[0];
  const newWalk = (): PlanWalk | undefined =>
    first
      ? { structure: first.structure, ...(first.design ? { design: first.design } : {}), type: first.type }
      : undefined;
  const save = async () => {
    setBusy(true);
    setError(undefined);
    const err = await useApp.getState().savePlan(plan);
    setBusy(false);
    if (err) setError(err);
    else setStatus(`Plan saved: ${plan.days.length} day${plan.days.length === 1 ? '' : 's'}.`);
  };
  return (
    <main className="plan-panel">
      <form
        aria-labelledby="plan-title"
        onSubmit={(e) => {
          e.preventDefault();
          void save();
        }}
      >
        <h2 id="plan-title">Capture plan</h2>
        <p className="muted">
          The site&apos;s routine walks, written ahead of time. A card whose walks match its camera&apos;s plan for the
          day it was recorded (the same number of walks, in time order) opens placed, with one Register and upload; one
          that does not is placed as far as it matches, and the rest is named.
        </p>
        <label className="check">
          <input
            type="checkbox"
            checked={plan.autoRegister}
            onChange={(e) => setPlan({ ...plan, autoRegister: e.target.checked })}
          />
          Register a card that matches its plan with no click: it is imported and queued as soon as it is inserted (the
          queue&apos;s activity log and the morning summary say so)
        </label>
        {plan.days.length === 0 && <p className="muted">No day planned yet.</p>}
        {plan.days.map((d, i) => (
          <fieldset key={i} className="plan-day" data-testid="plan-day">
            <legend>
              {d.camera ? `Camera ${d.camera}` : 'Any camera'}, {describePlanDay(d.day)}
            </legend>
            <div className="plan-day-fields">
              <label>
                Camera serial number (empty: any camera)
                <input
                  value={d.camera ?? ''}
                  list="plan-cameras"
                  placeholder="IAEAN00000XXXX"
                  onChange={(e) => setDay(i, { camera: e.target.value.trim() || null })}
                />
              </label>
              <label>
                Day
                <select
                  value={isDate(d.day) ? 'date' : d.day}
                  onChange={(e) => setDay(i, { day: e.target.value === 'date' ? today() : e.target.value })}
                >
                  {DAY_CHOICES.map(([v, label]) => (
                    <option key={v} value={v}>
                      {label}
                    </option>
                  ))}
                </select>
              </label>
              {isDate(d.day) && (
                <label>
                  Date
                  <input
                    type="date"
                    value={d.day}
                    onChange={(e) => e.target.value && setDay(i, { day: e.target.value })}
                  />
                </label>
              )}
              <button
                type="button"
                className="link"
                onClick={() => setPlan({ ...plan, days: plan.days.filter((_, j) => j !== i) })}
              >
                Remove this day
              </button>
            </div>
            <ol className="plan-walks">
              {d.walks.map((w, k) => (
                <li key={k}>
                  <label>
                    Walk {k + 1}
                    <select
                      value={valueOf(w)}
                      onChange={(e) =>
                        setWalks(
                          i,
                          d.walks.map((x, j) => (j === k ? walkOf(e.target.value) : x)),
                        )
                      }
                    >
                      {!choices.some((c) => valueOf(c) === valueOf(w)) && (
                        <option
                          value={valueOf(w)}
                        >{`${w.structure} · ${w.design ?? ''} · ${w.type} (not in Settings)`}</option>
                      )}
                      {choices.map((c) => (
                        <option key={c.value} value={valueOf(c)}>
                          {c.label}
                        </option>
                      ))}
                    </select>
                  </label>
                  <button
                    type="button"
                    aria-label={`Move walk ${k + 1} up`}
                    disabled={k === 0}
                    onClick={() =>
                      setWalks(
                        i,
                        d.walks.map((x, j) => (j === k - 1 ? d.walks[k]! : j === k ? d.walks[k - 1]! : x)),
                      )
                    }
                  >
                    ↑
                  </button>
                  <button
                    type="button"
                    aria-label={`Move walk ${k + 1} down`}
                    disabled={k === d.walks.length - 1}
                    onClick={() =>
                      setWalks(
                        i,
                        d.walks.map((x, j) => (j === k + 1 ? d.walks[k]! : j === k ? d.walks[k + 1]! : x)),
                      )
                    }
                  >
                    ↓
                  </button>
                  <button
                    type="button"
                    className="link"
                    aria-label={`Remove walk ${k + 1}`}
                    disabled={d.walks.length === 1}
                    onClick={() =>
                      setWalks(
                        i,
                        d.walks.filter((_, j) => j !== k),
                      )
                    }
                  >
                    Remove
                  </button>
                </li>
              ))}
            </ol>
            <button type="button" disabled={!newWalk()} onClick={() => setWalks(i, [...d.walks, newWalk()!])}>
              Add a walk
            </button>
          </fieldset>
        ))}
        <datalist id="plan-cameras">
          {cameras.map((c) => (
            <option key={c} value={c} />
          ))}
        </datalist>
        <div className="plan-actions">
          <button
            type="button"
            disabled={!newWalk()}
            onClick={() =>
              setPlan({
                ...plan,
                days: [...plan.days, { camera: cameras[0] ?? null, day: 'weekdays', walks: [newWalk()!] }],
              })
            }
          >
            Add a day
          </button>
          <button type="submit" className="primary" disabled={busy}>
            {busy ? 'Saving…' : 'Save plan'}
          </button>
          <span role="status" className="plan-status">
            {status}
          </span>
        </div>
        {error && (
          <p className="error" role="alert">
            {error}
          </p>
        )}
        {stored?.updatedAt && (
          <p className="muted">
            Last saved {new Date(stored.updatedAt).toLocaleString()}. The same plan from the command line:
            capture-uploader plan show.
          </p>
        )}
      </form>
    </main>
  );
}
