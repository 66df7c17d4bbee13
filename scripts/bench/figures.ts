// One figure of a bench run: every run's value, the best of them, the spread, and the target it
// is held to. The machine is shared, so one run says little; the best of several says what the
// code can do, and the spread says how much the neighbours moved it.

/** A measured figure. `values` are one per run, in `unit`; its target is met when the best value is at or beyond `limit` in the direction `better` (no `limit`: printed for information). */
export interface Figure {
  name: string;
  values: number[];
  unit: string;
  better: 'higher' | 'lower';
  limit?: number;
  /** Decimal places to print. */
  digits: number;
  /** Printed after the target, to say what the figure includes. */
  note?: string;
}

/** The best value of a figure (highest or lowest, as `better` says). Throws RangeError when it has no value. */
function best(f: Figure): number {
  if (f.values.length === 0) throw new RangeError(`${f.name}: no value measured`);
  return f.better === 'higher' ? Math.max(...f.values) : Math.min(...f.values);
}

/** Prints figures as a table: best, the spread of every run (min–max), the target and whether the best meets it. */
export function printFigures(figures: Figure[]): void {
  const width = Math.max(...figures.map((f) => f.name.length));
  for (const f of figures) {
    const b = best(f);
    const fmt = (v: number) => v.toFixed(f.digits);
    const spread = f.values.length > 1 ? `${fmt(Math.min(...f.values))}–${fmt(Math.max(...f.values))}` : '(1 run)';
    const met = f.limit === undefined ? '' : (f.better === 'higher' ? b >= f.limit : b <= f.limit) ? 'met' : 'NOT MET';
    const target = f.limit === undefined ? '—' : `${f.better === 'higher' ? '≥' : '≤'} ${f.limit} ${f.unit}`.trim();
    console.log(
      `${f.name.padEnd(width)}  ${`${fmt(b)} ${f.unit}`.padStart(12)}  spread ${spread.padEnd(13)}  target ${target.padEnd(12)} ${met.padEnd(7)}${f.note ? `  (${f.note})` : ''}`,
    );
  }
}
