export { formatBytes, formatEta } from '../../shared/format.js';

/** An ISO 8601 time as the person's local date and time; `never` when absent. */
export function formatTime(iso: string | null | undefined): string {
  if (!iso) return 'never';
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : d.toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
}
