import { useApp } from '../../store.js';

// Site uplinks can be slower than 1 MiB/s (8 Mbit/s): the lowest choices go down to 32 KiB/s.
const LIMITS = [32, 64, 128, 256, 512].map((k) => k * 1024).concat([1, 2, 5, 10, 20, 50, 100].map((m) => m * 1024 * 1024));

/** A limit as people compare it with their uplink: `256 KiB/s (2.1 Mbit/s)`. */
const limitLabel = (b: number) =>
  `${b < 1024 * 1024 ? `${b / 1024} KiB/s` : `${b / 1024 / 1024} MiB/s`} (${((b * 8) / 1e6).toFixed(b < 1024 * 1024 ? 1 : 0)} Mbit/s)`;

/** The upload speed limit for all files together, applied at once while uploads run. */
export function BandwidthLimit() {
  const limit = useApp((s) => s.settings?.bandwidthBytesPerSecond ?? null);
  const setBandwidth = useApp((s) => s.setBandwidth);
  return (
    <label className="inline">
      Upload limit
      <select value={limit === null ? '' : String(limit)} onChange={(e) => void setBandwidth(e.target.value ? Number(e.target.value) : null)}>
        <option value="">No limit</option>
        {LIMITS.map((b) => (
          <option key={b} value={String(b)}>
            {limitLabel(b)}
          </option>
        ))}
      </select>
    </label>
  );
}
