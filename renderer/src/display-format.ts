import { whenAt } from '../../shared/when.js';
export { formatBytes, formatCopyProgress, formatEta } from '../../shared/format.js';

/**
 * An ISO 8601 time in the one time format (shared/when.ts whenAt): the system
 * locale's clock, the date when not today; `never` when absent, the text itself when unreadable.
 */
export function formatTime(iso: string | null | undefined): string {
  return whenAt(iso);
}
