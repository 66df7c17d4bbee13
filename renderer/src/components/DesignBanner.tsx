import { formatTime } from '../format.js';
import { useApp } from '../store.js';

/** capture-upload-interface.md §4.3: warns when default designs changed after the last export, and asks for a new one (§4.2). */
export function DesignBanner() {
  const designs = useApp((s) => s.designs);
  const exportMessage = useApp((s) => s.exportMessage);
  const requestExport = useApp((s) => s.requestExport);
  if (exportMessage && !designs?.stale) {
    return (
      <div className="banner ok" role="status">
        Export requested: {exportMessage}
      </div>
    );
  }
  if (!designs?.stale) return null;
  return (
    <div className="banner stale" role="alert">
      <div>
        <strong>The project’s default capture designs changed</strong> on {formatTime(designs.latestDesignUpdate)}
        {designs.lastExport ? `, after the capture sheets were last exported (${formatTime(designs.lastExport.requestedAt)})` : '; the capture sheets were never exported from this computer'}.
        Field teams may be walking with outdated sheets.
      </div>
      <button className="primary" onClick={() => void requestExport()}>
        Request a new export
      </button>
    </div>
  );
}
