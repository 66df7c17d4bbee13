import { useState } from 'react';
import { plainCause } from '../../../shared/causes.js';
import type { NamedStructure } from '../../../shared/ipc.js';
import { whenDated } from '../../../shared/when.js';
import { useApp } from '../store.js';

/** Where the design time a person dismissed the warning for is kept: it shows again only when designs change again. */
const DISMISSED_KEY = 'design-banner-dismissed-for';

/**
 * The structures and designs the settings name, in words: "Tower A (Level 1, Level 2) and Tower B
 * (Level 1)"; a single one as "Tower A, Level 1"; '' when the settings name none.
 */
function designsInWords(structures: readonly NamedStructure[]): string {
  const named = structures.filter((s) => s.name);
  if (named.length === 1 && named[0]!.designs.length === 1) return `${named[0]!.name}, ${named[0]!.designs[0]!.name}`;
  const each = named.map((s) => (s.designs.length ? `${s.name} (${s.designs.map((d) => d.name).join(', ')})` : s.name));
  return each.length <= 1 ? (each[0] ?? '') : `${each.slice(0, -1).join(', ')} and ${each.at(-1)}`;
}

/**
 * capture-upload-interface.md §4.3: warns, on every workspace, when the project's default designs
 * changed after the last export, and asks for a new one (§4.2). It names the project (its name
 * from the settings, when given) and says when, with the date (whenDated); since §4.3 gives one
 * time for the whole project, not which design changed, it names the structures and designs the
 * settings hold, for the person to check. While the request is on its way it says so, and when
 * the gateway failed and the request is being tried again (`capture:event.export`), why and when.
 */
export function DesignBanner() {
  const designs = useApp((s) => s.designs);
  const exportMessage = useApp((s) => s.exportMessage);
  const requestExport = useApp((s) => s.requestExport);
  const exporting = useApp((s) => s.exportCall !== undefined);
  const retry = useApp((s) => s.exportRetry);
  const cancelExport = useApp((s) => s.cancelExport);
  const settings = useApp((s) => s.settings);
  const [dismissed, setDismissed] = useState(() => localStorage.getItem(DISMISSED_KEY));
  const [open, setOpen] = useState(false);
  if (exportMessage && !designs?.stale) {
    return (
      <div className="banner ok" role="status">
        Export requested: {exportMessage}
      </div>
    );
  }
  if (!designs?.stale || (designs.latestDesignUpdate !== null && dismissed === designs.latestDesignUpdate)) return null;
  const project = settings?.projectName ? `${settings.projectName}’s` : 'The project’s';
  const when = whenDated(designs.latestDesignUpdate);
  const since = designs.lastExport
    ? `, after the capture sheets were last exported from this computer (${whenDated(designs.lastExport.requestedAt)})`
    : '; the capture sheets were never exported from this computer';
  const which = designsInWords(settings?.structures ?? []);
  const check = which
    ? ` The service gives one time for the whole project, not which design changed: check ${which}.`
    : '';
  const sending = !exporting
    ? ''
    : retry
      ? ` Requesting a new export: the gateway did not take it (${plainCause(retry.reason)}); trying again in ${Math.max(1, Math.round(retry.waitMs / 1000))} s (retry ${retry.retry} of ${retry.of}).`
      : ' Requesting a new export…';
  const whole = `${project} default capture designs changed on ${when}${since}. Field teams may be walking with outdated sheets.${check}${sending}`;
  // A status, not an alert: it is news on the first look, not an emergency on every load. One
  // line until opened: the whole sentence stays in it, cut short, and on hover.
  return (
    <div className={`banner stale${open ? ' open' : ''}`} role="status" data-testid="design-banner">
      <button
        type="button"
        className="disclosure"
        aria-expanded={open}
        aria-label="The whole message about the changed designs"
        onClick={() => setOpen(!open)}
      >
        <span aria-hidden="true">{open ? '▾' : '▸'}</span>
      </button>
      <div className="banner-text" title={whole}>
        {sending && (
          <>
            <span className="banner-sending" data-testid="export-sending" title={retry?.reason}>
              {sending.trim()}
            </span>{' '}
          </>
        )}
        <strong>{project} default capture designs changed</strong> on {when}
        {since}. Field teams may be walking with outdated sheets.{check}
      </div>
      <div className="banner-actions">
        {exporting ? (
          <button onClick={cancelExport}>Cancel the request</button>
        ) : (
          <button className="primary" onClick={() => void requestExport()}>
            Request a new export
          </button>
        )}
        <button
          onClick={() => {
            // Dismissed until the designs change again.
            if (designs.latestDesignUpdate) localStorage.setItem(DISMISSED_KEY, designs.latestDesignUpdate);
            setDismissed(designs.latestDesignUpdate);
          }}
        >
          Not now
        </button>
      </div>
    </div>
  );
}
