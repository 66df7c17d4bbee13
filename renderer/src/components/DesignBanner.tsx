import { useState } from 'react';
import { formatTime } from '../display-format.js';
import { useApp } from '../store.js';

/** Where the design time a person dismissed the warning for is kept: it shows again only when designs change again. */
const DISMISSED_KEY = 'design-banner-dismissed-for';

/** capture-upload-interface.md §4.3: warns when default designs changed after the last export, and asks for a new one (§4.2). */
export function DesignBanner() {
  const designs = useApp((s) => s.designs);
  const exportMessage = useApp((s) => s.exportMessage);
  const requestExport = useApp((s) => s.requestExport);
  const exporting = useApp((s) => s.exportCall !== undefined);
  const cancelExport = useApp((s) => s.cancelExport);
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
  const since = designs.lastExport
    ? `, after the capture sheets were last exported (${formatTime(designs.lastExport.requestedAt)})`
    : '; the capture sheets were never exported from this computer';
  const whole = `The project’s default capture designs changed on ${formatTime(designs.latestDesignUpdate)}${since}. Field teams may be walking with outdated sheets.`;
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
        <strong>The project’s default capture designs changed</strong> on {formatTime(designs.latestDesignUpdate)}
        {since}. Field teams may be walking with outdated sheets.
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
