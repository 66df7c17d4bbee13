import type { DraftCapture } from '../store.js';
import { useApp } from '../store.js';
import { formatBytes, formatTime } from '../format.js';

/** The captures found in the dropped files, each with its form, and the files set aside with their reasons. */
export function Drafts() {
  const drafts = useApp((s) => s.drafts);
  const refused = useApp((s) => s.refused);
  const register = useApp((s) => s.register);
  if (drafts.length === 0 && refused.length === 0) return null;
  const ready = drafts.filter((d) => !d.proposal.violation && !d.proposal.alreadyQueued && d.form.structure);
  return (
    <section className="drafts" aria-label="New captures">
      <h2>New captures</h2>
      {drafts.map((d) => (
        <DraftCard key={d.proposal.key} draft={d} />
      ))}
      {refused.length > 0 && (
        <div className="refused" aria-label="Not uploaded">
          <h3>Not uploaded</h3>
          <ul>
            {refused.map((r, i) => (
              <li key={`${r.path}-${i}`}>
                <span className="path">{r.path.split(/[\\/]/).pop()}</span> — {r.reason}
              </li>
            ))}
          </ul>
        </div>
      )}
      {drafts.length > 0 && (
        <button className="primary" disabled={ready.length === 0} onClick={() => void register()}>
          Register {ready.length} capture{ready.length === 1 ? '' : 's'} and upload
        </button>
      )}
    </section>
  );
}

function DraftCard({ draft }: { draft: DraftCapture }) {
  const structures = useApp((s) => s.settings?.structures ?? []);
  const update = useApp((s) => s.updateDraft);
  const discard = useApp((s) => s.discardDraft);
  const { proposal: p, form } = draft;
  const key = p.key;
  const structure = structures.find((s) => s.id === form.structure);
  const m = p.media;
  const validTime = !Number.isNaN(Date.parse(form.capturedAt)) && /(Z|[+-]\d{2}:?\d{2})$/.test(form.capturedAt);
  return (
    <article className="draft" aria-label={`Capture ${p.label}`}>
      <header>
        <strong>{p.label}</strong> <span className="kind">{p.kind === 'dual-lens' ? 'dual-lens recording' : p.kind === 'single-lens' ? 'single-lens recording' : 'video'}</span>
        <button className="link" onClick={() => discard(key)}>
          Remove
        </button>
      </header>
      <ul className="files">
        {p.files.map((f) => (
          <li key={f.path}>
            {f.name} <span className="muted">{formatBytes(f.size)}</span>
          </li>
        ))}
      </ul>
      {p.violation && (
        <p className="error" role="alert">
          {p.violation}
        </p>
      )}
      {p.alreadyQueued && <p className="error">These files are already in the queue; they are not registered twice.</p>}
      <div className="form">
        <label>
          Structure
          <select
            value={form.structure}
            onChange={(e) => update(key, { structure: e.target.value, design: structures.find((s) => s.id === e.target.value)?.designs[0]?.id })}
          >
            {structures.length === 0 && <option value="">— add structures in Settings —</option>}
            {structures.map((s) => (
              <option key={s.id} value={s.id}>
                {s.name}
              </option>
            ))}
          </select>
        </label>
        <label>
          Design
          <select value={form.design ?? ''} onChange={(e) => update(key, { design: e.target.value || undefined })}>
            <option value="">— none —</option>
            {structure?.designs.map((d) => (
              <option key={d.id} value={d.id}>
                {d.name}
              </option>
            ))}
          </select>
        </label>
        <fieldset>
          <legend>Type</legend>
          {(['interior', 'exterior'] as const).map((t) => (
            <label key={t} className="inline">
              <input type="radio" name={`type-${key}`} checked={form.type === t} onChange={() => update(key, { type: t })} /> {t === 'interior' ? 'Interior' : 'Exterior'}
            </label>
          ))}
        </fieldset>
        <label>
          Capture time
          <input
            value={form.capturedAt}
            aria-invalid={!validTime}
            onChange={(e) => update(key, { capturedAt: e.target.value })}
            title="ISO 8601 with a zone, e.g. 2026-11-20T15:04:05Z"
          />
          {!validTime && <span className="error">Write the time as ISO 8601 with a zone, e.g. 2026-11-20T15:04:05Z</span>}
        </label>
      </div>
      <dl className="media" aria-label="From the files">
        <dt>Recorded</dt>
        <dd>{m.createdAt ? `${formatTime(m.createdAt)} (${m.createdAt})` : '—'}</dd>
        <dt>Camera</dt>
        <dd data-testid="camera">{m.camera?.model ?? '—'}</dd>
        <dt>Serial number</dt>
        <dd data-testid="serial">{m.camera?.serialNumber ?? '—'}</dd>
        <dt>Firmware</dt>
        <dd data-testid="firmware">{m.camera?.firmware ?? '—'}</dd>
        <dt>Frame rate</dt>
        <dd data-testid="framerate">{m.frameRate ? `${m.frameRate} fps` : '—'}</dd>
        <dt>Duration</dt>
        <dd>{m.durationSeconds !== undefined ? `${m.durationSeconds.toFixed(2)} s` : '—'}</dd>
        <dt>Size</dt>
        <dd>{m.width && m.height ? `${m.width}×${m.height}` : '—'}</dd>
      </dl>
      {m.error && <p className="warning">{m.error}</p>}
    </article>
  );
}
