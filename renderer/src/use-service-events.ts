import { useEffect } from 'react';
import { api } from './api.js';
import { followCardEvents } from './cards-slice.js';
import { followPlanEvents } from './plan-slice.js';
import { useApp } from './store.js';

/** How often the default designs are checked again while the app is configured (ms). */
const DESIGN_CHECK_MS = 15 * 60_000;

/**
 * Follows the service for the window's whole life: reads the settings, applies its events to the
 * one store (each event carries what changed; CONVENTIONS.md "Renderer state and events"), and,
 * once the app is `configured`, reads the queue and checks the default designs every 15 minutes.
 */
export function useServiceEvents(configured: boolean): void {
  useEffect(() => {
    const s = useApp.getState();
    void s.loadSettings().catch((err: unknown) => s.notify('error', String(err)));
    const offProgress = api.on('capture:event.progress', (p) => useApp.getState().applyProgress(p));
    const offRows = api.on('capture:event.rows', (p) => useApp.getState().applyRows(p));
    // Only when the queue was replaced as a whole (settings changed): read it again.
    const offQueue = api.on('capture:event.queue', () => void useApp.getState().loadQueue());
    const offNotice = api.on('capture:event.notice', (n) => useApp.getState().notify(n.level, n.message));
    const offPower = api.on('capture:event.power', (p) => useApp.getState().applyPower(p));
    const offExport = api.on('capture:event.export', (r) => useApp.getState().applyExportRetry(r));
    const offCards = followCardEvents(useApp.getState);
    const offPlan = followPlanEvents(useApp.getState);
    return () => {
      offExport();
      offPlan();
      offCards();
      offPower();
      offProgress();
      offRows();
      offQueue();
      offNotice();
    };
  }, []);

  useEffect(() => {
    if (!configured) return;
    const s = useApp.getState();
    void s.loadQueue();
    void s.checkDesigns();
    const timer = setInterval(() => void useApp.getState().checkDesigns(), DESIGN_CHECK_MS);
    return () => clearInterval(timer);
  }, [configured]);
}
