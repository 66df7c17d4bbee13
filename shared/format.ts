/** Bytes in a short human form: 1.5 GiB, 320 MiB, 12 KiB, 512 B. */
export function formatBytes(n: number): string {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let i = 0;
  while (n >= 1024 && i < units.length - 1) {
    n /= 1024;
    i++;
  }
  return `${i === 0 ? n : n.toFixed(n >= 100 ? 0 : 1)} ${units[i]}`;
}

/** Seconds as `1 h 02 min`, `4 min 05 s`, `12 s`; `—` when unknown. */
export function formatEta(s: number | null): string {
  if (s === null || !Number.isFinite(s)) return '—';
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const sec = Math.floor(s % 60);
  if (h) return `${h} h ${String(m).padStart(2, '0')} min`;
  if (m) return `${m} min ${String(sec).padStart(2, '0')} s`;
  return `${sec} s`;
}

/**
 * A copy's progress in words: "412 MiB of 1.2 GiB · 87 MiB/s · about 9 s left". Bytes, bytes per
 * second (left out while 0: nothing measured yet), seconds left (left out while null: unknown, and once every byte is copied).
 */
export function formatCopyProgress(
  bytesDone: number,
  bytesTotal: number,
  bytesPerSecond: number,
  secondsLeft: number | null,
): string {
  const parts = [`${formatBytes(bytesDone)} of ${formatBytes(bytesTotal)}`];
  if (bytesPerSecond > 0) parts.push(`${formatBytes(bytesPerSecond)}/s`);
  if (bytesPerSecond > 0 && secondsLeft !== null && bytesDone < bytesTotal)
    parts.push(`about ${formatEta(secondsLeft)} left`);
  return parts.join(' · ');
}
