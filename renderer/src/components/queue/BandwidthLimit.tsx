import { useState } from 'react';
import { formatRate, parseBandwidth, parseRate, pausedAt, rateAt } from '../../../../shared/bandwidth.js';
import { useApp } from '../../store.js';

// Beside the limit in the queue's toolbar (QueueList imports both from here).
export { PauseUntil } from './PauseUntil.js';

// Site uplinks can be slower than 1 MiB/s (8 Mbit/s): the presets go down to 32 KiB/s, and any
// amount down to 8 KiB/s can be typed.
const PRESETS = [32, 64, 128, 256, 512]
  .map((k) => k * 1024)
  .concat([1, 2, 5, 10, 20, 50, 100].map((m) => m * 1024 * 1024));
const UNITS = [
  ['k', 'KiB/s'],
  ['M', 'MiB/s'],
  ['Mbit', 'Mbit/s'],
] as const;

/**
 * The upload speed limit for all files together, applied at once while uploads run: a preset,
 * any amount in KiB/s, MiB/s or Mbit/s, or a daily timetable in rclone's form
 * (`08:00,512k 19:00,off`). Mistakes are said beside the field, naming the fix.
 */
export function BandwidthLimit() {
  const limit = useApp((s) => s.settings?.bandwidthBytesPerSecond ?? null);
  const timetable = useApp((s) => s.settings?.bandwidthTimetable ?? null);
  const setBandwidth = useApp((s) => s.setBandwidth);
  const current = timetable ? 'timetable' : limit === null ? '' : PRESETS.includes(limit) ? String(limit) : 'custom';
  const [mode, setMode] = useState(current);
  const [amount, setAmount] = useState('');
  const [unit, setUnit] = useState<(typeof UNITS)[number][0]>('k');
  const [table, setTable] = useState(timetable ?? '');
  const [error, setError] = useState<string>();
  const apply = async (bytes: number | null, text: string | null = null) => setError(await setBandwidth(bytes, text));
  return (
    <div className="bandwidth">
      <label className="inline">
        Upload limit
        <select
          value={mode}
          onChange={(e) => {
            const v = e.target.value;
            setMode(v);
            setError(undefined);
            if (v !== 'custom' && v !== 'timetable') void apply(v ? Number(v) : null);
          }}
        >
          <option value="">No limit</option>
          {PRESETS.map((b) => (
            <option key={b} value={String(b)}>
              {formatRate(b)}
            </option>
          ))}
          <option value="custom">Custom amount…</option>
          <option value="timetable">Timetable…</option>
        </select>
      </label>
      {mode === 'custom' && (
        <form
          className="inline-form"
          onSubmit={(e) => {
            e.preventDefault();
            try {
              void apply(parseRate(`${amount}${unit}`));
            } catch (err) {
              setError((err as Error).message);
            }
          }}
        >
          <input
            aria-label="Limit amount"
            inputMode="decimal"
            size={6}
            value={amount}
            onChange={(e) => setAmount(e.target.value)}
            aria-invalid={Boolean(error)}
          />
          <select aria-label="Limit unit" value={unit} onChange={(e) => setUnit(e.target.value as typeof unit)}>
            {UNITS.map(([u, label]) => (
              <option key={u} value={u}>
                {label}
              </option>
            ))}
          </select>
          <button type="submit">Apply</button>
        </form>
      )}
      {mode === 'timetable' && (
        <form
          className="inline-form"
          onSubmit={(e) => {
            e.preventDefault();
            void apply(null, table);
          }}
        >
          <input
            aria-label="Limit timetable"
            placeholder="08:00,512k 19:00,off"
            size={24}
            value={table}
            onChange={(e) => setTable(e.target.value)}
            aria-invalid={Boolean(error)}
          />
          <button type="submit">Apply</button>
        </form>
      )}
      {error ? (
        <span className="error" role="alert">
          {error}
        </span>
      ) : (
        (mode === 'custom' || mode === 'timetable') &&
        current === mode && (
          <span className="muted" data-testid="limit-now">
            Now{' '}
            {timetable && pausedAt(parseBandwidth(timetable), new Date())
              ? 'paused'
              : formatRate(timetable ? rateAt(parseBandwidth(timetable), new Date()) : limit)}
          </span>
        )
      )}
    </div>
  );
}
