import type { ProgressEntry, Structure } from './model.js';
import { stableId } from './model.js';
import type { Plan, Rng, Run } from './seed-layouts.js';
import { damperPoints, ductRuns, facadeRuns, partitionRuns, slabBays } from './seed-layouts.js';

// Seed data of progress-records-interface.md §2 at the size a real project has: asset categories
// with their stages, a few hundred polylines per structure laid out like a floor plan, and
// progress entries on most working days of the last 90 days. Everything comes from a seeded PRNG
// and stable ids, so two services seeded on the same day hold the same records; dates are
// relative to the seeding day so that the calendar always shows recent work.

const DAY_MS = 86_400_000;

/** mulberry32: a small, well-known seeded PRNG; `Math.random` would make every seed different. */
function prng(seed: string): () => number {
  let a = Number.parseInt(stableId(seed).slice(0, 8), 16);
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const pick = <T>(rng: Rng, list: readonly T[]): T => list[Math.floor(rng() * list.length)]!;
const ymd = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const iso = (ms: number) => new Date(ms).toISOString();

/** How a category's work moved across the site: stage i starts `startDaysAgo - i * lagDays` days before seeding. */
interface Schedule {
  startDaysAgo: number;
  lagDays: number;
  /** Days a stage takes to cross the whole structure, and to finish one run. */
  spreadDays: number;
  runDays: number;
}

/**
 * A stage: name, colour, its own unit (§2 Stage.uom) and what that measures (Stage.measurement).
 * Stages of one category are counted in different units, as a site's trades count them.
 */
type StageDef = [name: string, color: string, uom: string, measurement: 'length' | 'area' | 'volume' | 'count'];

interface CategoryDef {
  name: string;
  drawing: string;
  /** §2 ExternalAsset.shape of every asset of the category. */
  shape: 'Polyline' | 'Polygon' | 'Point';
  /** In the category's length unit: a wall's height, a slab's thickness. */
  height: number;
  uom: 'm' | 'm2' | 'ea';
  stages: StageDef[];
  schedule: Schedule;
  layout: (plan: Plan, rng: Rng) => Run[];
}

const CATEGORIES: CategoryDef[] = [
  {
    name: 'Curtain Wall',
    drawing: 'A-501 Exterior Elevations',
    shape: 'Polyline',
    height: 4.2,
    uom: 'm',
    stages: [
      ['Anchors', '#8e44ad', 'ea', 'count'],
      ['Framing', '#2980b9', 'm', 'length'],
      ['Glazing', '#27ae60', 'm2', 'area'],
      ['Sealant', '#f39c12', 'lf', 'length'],
    ],
    schedule: { startDaysAgo: 130, lagDays: 35, spreadDays: 120, runDays: 14 },
    layout: facadeRuns,
  },
  {
    name: 'Drywall Partitions',
    drawing: 'A-201 Partition Plan',
    shape: 'Polyline',
    height: 3.0,
    uom: 'm2',
    stages: [
      ['Track', '#7f8c8d', 'm', 'length'],
      ['Studs', '#2c3e50', 'm', 'length'],
      ['Board', '#16a085', 'm2', 'area'],
      ['Tape & Finish', '#d35400', 'm2', 'area'],
    ],
    schedule: { startDaysAgo: 95, lagDays: 28, spreadDays: 90, runDays: 10 },
    layout: partitionRuns,
  },
  {
    name: 'Ductwork',
    drawing: 'M-301 Ductwork Layout',
    shape: 'Polyline',
    height: 0.6,
    uom: 'm',
    stages: [
      ['Hangers', '#5d6d7e', 'ea', 'count'],
      ['Duct Installed', '#1f618d', 'm', 'length'],
      ['Sealed & Tested', '#b7950b', 'm', 'length'],
      ['Insulated', '#c0392b', 'm2', 'area'],
      ['Labelled', '#117a65', 'ea', 'count'],
    ],
    schedule: { startDaysAgo: 70, lagDays: 20, spreadDays: 80, runDays: 8 },
    layout: ductRuns,
  },
  {
    name: 'Floor Slabs',
    drawing: 'S-101 Slab Pour Sequence',
    shape: 'Polygon',
    height: 0.25,
    uom: 'm2',
    stages: [
      ['Formwork', '#a04000', 'm2', 'area'],
      ['Reinforcement', '#6c3483', 'm2', 'area'],
      ['Concrete Pour', '#1a5276', 'm3', 'volume'],
      ['Curing', '#229954', 'm2', 'area'],
    ],
    schedule: { startDaysAgo: 45, lagDays: 8, spreadDays: 50, runDays: 6 },
    layout: slabBays,
  },
  {
    name: 'Fire Dampers',
    drawing: 'M-302 Fire Damper Schedule',
    shape: 'Point',
    height: 0,
    uom: 'ea',
    stages: [
      ['Damper Installed', '#7d6608', 'ea', 'count'],
      ['Damper Inspected', '#943126', 'ea', 'count'],
      ['Damper Tagged', '#0e6251', 'ea', 'count'],
    ],
    schedule: { startDaysAgo: 60, lagDays: 15, spreadDays: 50, runDays: 3 },
    layout: damperPoints,
  },
];

/** Plans of the seeded project's structures, by name; others get the default. */
const PLANS: Record<string, Plan> = {
  'Tower A': { width: 72, depth: 40 },
  'Tower B': { width: 64, depth: 36 },
  'Parking Garage': { width: 66, depth: 44 },
};

/** The seeded records of a project: `now` is the seeding time (stage dates and entries lie before it). */
export interface SeededRecords {
  assetCategories: Record<string, unknown>[];
  assets: Record<string, unknown>[];
  progress: ProgressEntry[];
}

/**
 * Asset categories (with stages in sequence and distinct colours), each structure's external
 * assets in every category, and progress entries on most working days of the 90 days before
 * `now` (ms since epoch; the seeding day counts from UTC midnight).
 */
export function seedRecords(projectId: string, structures: Structure[], now: number): SeededRecords {
  const today = Math.floor(now / DAY_MS) * DAY_MS;
  const categories = CATEGORIES.map((def) => {
    const id = stableId(`category:${def.name}`);
    const stages = def.stages.map(([name, color, uom, measurement], i) => ({
      _id: stableId(`stage:${def.uom}:${name}`),
      name,
      sequence: i + 1,
      color,
      uom,
      measurement,
      metrics: { structureId: 101 + i },
      predecessors: i === 0 ? [] : [i],
    }));
    const base = {
      name: def.name,
      project: projectId,
      status: 'active',
      drawing: def.drawing,
      description: `${def.name} installation tracked by stage`,
    };
    return {
      def,
      record: {
        _id: id,
        id,
        ...base,
        height: def.height,
        uom: def.uom,
        createdAt: iso(today - 200 * DAY_MS),
        updatedAt: iso(today - 2 * DAY_MS),
        stages,
      },
    };
  });

  const assets: Record<string, unknown>[] = [];
  for (const s of structures) {
    const plan = PLANS[s.name] ?? { width: 50, depth: 30 };
    const rng = prng(`assets:${s.id}`);
    const snapshot = iso(today - (2 + Math.floor(rng() * 6)) * DAY_MS);
    for (const { def, record } of categories) {
      def.layout(plan, rng).forEach((run, n) => {
        const { startDaysAgo, lagDays, spreadDays, runDays } = def.schedule;
        const stages = record.stages.map((st, i) => {
          const started = today - (startDaysAgo - i * lagDays - run.front * spreadDays - rng() * 4) * DAY_MS;
          const pct = Math.max(0, Math.min(100, Math.round(((today - started) / (runDays * DAY_MS)) * 20) * 5));
          const updated =
            pct === 0 ? Date.parse(snapshot) : Math.min(today - DAY_MS, started + (pct / 100) * runDays * DAY_MS);
          return { _id: st._id, percentage: pct, date: iso(Math.floor(updated / 3_600_000) * 3_600_000) };
        });
        assets.push({
          _id: stableId(`asset:${s.id}:${def.name}:${n + 1}`),
          category: record.id,
          structure: s.id,
          shape: def.shape,
          points: run.points.map(([x, y]) => ({ x, y })),
          properties: { snapshotDate: snapshot },
          snapshot,
          // Some runs are by another contractor or out of scope: drawn, but not counted.
          doNotTrack: rng() < 0.05,
          stages,
        });
      });
    }
  }
  return {
    assetCategories: categories.map((c) => c.record),
    assets,
    progress: seedProgress(projectId, structures, today),
  };
}

const TRADES = ['curtain wall', 'drywall', 'mechanical', 'electrical', 'fire stopping'];
const DELIVERIES = ['glazing units', 'metal studs', 'gypsum board', 'duct fittings', 'anchor brackets', 'insulation'];
const WEEKDAY = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];

/** Progress entries (§2): one to three on most working days (UTC) of the 90 days before `today`. */
function seedProgress(projectId: string, structures: Structure[], today: number): ProgressEntry[] {
  const entries: ProgressEntry[] = [];
  for (let ago = 90; ago >= 1; ago--) {
    const day = today - ago * DAY_MS;
    const date = ymd(day);
    const rng = prng(`progress:${date}`);
    const weekday = new Date(day).getUTCDay();
    if (weekday === 0 || weekday === 6 || rng() < 0.12) continue;
    const count = 1 + Math.floor(rng() * rng() * 3.2);
    for (let i = 0; i < count; i++) {
      const s = pick(rng, structures);
      const level = pick(rng, s.designs).name;
      const cat = pick(rng, CATEGORIES);
      const stage = pick(rng, cat.stages)[0];
      const g = 1 + Math.floor(rng() * 9);
      const grid = `${g}–${g + 2}`;
      const templates: [string, string][] = [
        [
          'In Progress',
          `${s.name} ${level}: ${cat.name.toLowerCase()} ${stage.toLowerCase()} ${20 + Math.floor(rng() * 15) * 5}% along gridlines ${grid}.`,
        ],
        [
          'Completed',
          `${s.name} ${level}: ${cat.name.toLowerCase()} ${stage.toLowerCase()} complete between gridlines ${grid}; walkthrough captured.`,
        ],
        [
          'In Progress',
          `Site walk with the ${pick(rng, TRADES)} foreman on ${s.name} ${level}; ${2 + Math.floor(rng() * 9)} snags logged, re-capture booked for ${WEEKDAY[1 + Math.floor(rng() * 5)]}.`,
        ],
        [
          'Completed',
          `${s.name} ${level} 360° capture uploaded (${6 + Math.floor(rng() * 20)} min walkthrough); ${cat.name.toLowerCase()} progress updated.`,
        ],
        [
          'In Progress',
          `${s.name}: ${pick(rng, DELIVERIES)} delivery ${rng() < 0.7 ? 'received' : 'delayed two days'}; ${stage.toLowerCase()} continues on ${level}.`,
        ],
        ['Completed', `Inspection passed: ${cat.name.toLowerCase()} ${stage.toLowerCase()} on ${s.name} ${level}.`],
      ];
      const [status, details] = pick(rng, templates);
      entries.push({ id: stableId(`progress:${date}:${i}`), projectId, date, status, details });
    }
  }
  return entries;
}
