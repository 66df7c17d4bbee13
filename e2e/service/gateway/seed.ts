import { randomBytes } from 'node:crypto';
import type { Design, Project, ProjectStage, ServiceState, Structure } from './state.js';
import { stableId } from './state.js';

// Ids are derived from names so that docs and tests can name them; keys, passwords and the
// JWT secret are random per data folder, because no secret belongs in the repository.

const secret = (bytes = 18) => randomBytes(bytes).toString('base64url');

function design(project: string, structure: string, name: string, isDefault: boolean, updatedAt: string): Design {
  return { id: stableId(`design:${project}:${structure}:${name}`), name, isDefault, updatedAt };
}

function structure(project: string, name: string, designs: [string, boolean, string][]): Structure {
  return { id: stableId(`structure:${project}:${name}`), name, designs: designs.map(([n, d, t]) => design(project, name, n, d, t)) };
}

function project(name: string, stage: ProjectStage, structures: Structure[]): Project {
  return { id: stableId(`project:${name}`), name, stage, apiKey: `ck_${secret(24)}`, structures };
}

/** Seed data: projects in every stage, structures with designs, accounts, progress, asset categories and assets. */
export function seed(): ServiceState {
  const main = 'Harbor View Medical Center';
  const projects: Project[] = [
    project(main, 'In-construction', [
      structure(main, 'Tower A', [
        ['Level 1', true, '2026-09-02T14:05:00.000Z'],
        ['Level 2', true, '2026-10-11T09:30:00.000Z'],
        ['Level 3', true, '2026-10-11T09:31:00.000Z'],
        ['Roof', false, '2026-08-20T16:00:00.000Z'],
      ]),
      structure(main, 'Tower B', [
        ['Level 1', true, '2026-09-15T08:12:00.000Z'],
        ['Level 2', true, '2026-09-15T08:14:00.000Z'],
      ]),
      structure(main, 'Parking Garage', [
        ['P1', true, '2026-07-01T12:00:00.000Z'],
        ['P2', false, '2026-07-01T12:00:00.000Z'],
      ]),
    ]),
    project('Northgate Elementary School', 'Setup', [structure('Northgate Elementary School', 'Main Building', [['Ground Floor', false, '2026-06-01T10:00:00.000Z']])]),
    project('Eastside Library', 'Pre-Setup', [structure('Eastside Library', 'Library', [['Level 1', true, '2026-05-05T10:00:00.000Z']])]),
    project('Old Mill Lofts', 'Archived', [structure('Old Mill Lofts', 'Mill Building', [['Level 1', true, '2025-12-01T10:00:00.000Z']])]),
    project('Canal Street Offices', 'Deleted', [structure('Canal Street Offices', 'Office Block', [['Level 1', true, '2025-03-01T10:00:00.000Z']])]),
  ];
  const p = projects[0]!;
  const [towerA, towerB] = p.structures;
  const created = '2026-01-12T08:00:00.000Z';

  const stages = (names: [string, string][], uom: string) =>
    names.map(([name, color], i) => ({
      _id: stableId(`stage:${uom}:${name}`),
      name,
      sequence: i + 1,
      color,
      uom,
      measurement: uom === 'm' ? 'length' : 'area',
      metrics: { structureId: i + 101 },
      predecessors: i === 0 ? [] : [i],
    }));
  const curtainWallStages = stages(
    [
      ['Anchors', '#8e44ad'],
      ['Framing', '#2980b9'],
      ['Glazing', '#27ae60'],
      ['Sealant', '#f39c12'],
    ],
    'm',
  );
  const drywallStages = stages(
    [
      ['Track', '#7f8c8d'],
      ['Studs', '#2c3e50'],
      ['Board', '#16a085'],
      ['Tape & Finish', '#d35400'],
    ],
    'm2',
  );
  const category = (name: string, drawing: string, height: number, uom: string, st: typeof curtainWallStages) => {
    const id = stableId(`category:${name}`);
    return {
      _id: id,
      id,
      name,
      project: p.id,
      status: 'active',
      drawing,
      description: `${name} installation tracked by stage`,
      height,
      uom,
      createdAt: '2026-02-03T10:00:00.000Z',
      updatedAt: '2026-10-20T15:42:00.000Z',
      stages: st,
    };
  };
  const curtainWall = category('Curtain Wall', 'A-501 Exterior Elevations', 4.2, 'm', curtainWallStages);
  const drywall = category('Drywall Partitions', 'A-201 Partition Plan', 3.0, 'm2', drywallStages);

  const asset = (structureId: string, cat: typeof curtainWall, n: number, points: [number, number][], pct: number[]) => ({
    _id: stableId(`asset:${structureId}:${cat.name}:${n}`),
    category: cat.id,
    structure: structureId,
    shape: 'Polyline',
    points: points.map(([x, y]) => ({ x, y })),
    properties: { snapshotDate: '2026-11-18T00:00:00.000Z' },
    snapshot: '2026-11-18T00:00:00.000Z',
    doNotTrack: false,
    stages: cat.stages.map((s, i) => ({ _id: s._id, percentage: pct[i] ?? 0, date: `2026-11-${String(10 + i).padStart(2, '0')}T00:00:00.000Z` })),
  });
  const assets = [
    asset(towerA!.id, curtainWall, 1, [[0, 0], [42.5, 0], [42.5, 18.25]], [100, 100, 65, 10]),
    asset(towerA!.id, curtainWall, 2, [[42.5, 18.25], [0, 18.25], [0, 0]], [100, 40, 0, 0]),
    asset(towerA!.id, drywall, 1, [[5, 3], [5, 15], [20, 15]], [100, 100, 80, 25]),
    asset(towerA!.id, drywall, 2, [[22, 3], [22, 15]], [100, 60, 0, 0]),
    asset(towerB!.id, curtainWall, 1, [[0, 0], [30, 0], [30, 12], [0, 12], [0, 0]], [100, 100, 100, 100]),
  ];

  const progress = [
    ['2026-11-02', 'Completed', 'Tower A level 1 curtain wall anchors complete on north and east faces.'],
    ['2026-11-09', 'In Progress', 'Tower A level 2 drywall board 80% hung; taping started in corridor.'],
    ['2026-11-09', 'In Progress', 'Tower B glazing delivery delayed to 11/16; framing continues.'],
    ['2026-11-16', 'Completed', 'Tower B curtain wall sealant complete; walkthrough captured.'],
    ['2026-11-20', 'In Progress', 'Parking garage P1 slab capture scheduled after pour cure.'],
  ].map(([date, status, details], i) => ({ id: stableId(`progress:${i}`), projectId: p.id, date: date!, status: status!, details: details! }));

  return {
    version: 1,
    jwtSecret: secret(32),
    tokenGeneration: 1,
    storage: { accessKeyId: `AKIA${randomBytes(8).toString('hex').toUpperCase()}`, secretAccessKey: secret(30), region: 'us-east-1', bucket: 'capture-uploads' },
    accounts: [
      { _id: stableId('user:operator'), firstName: 'Maya', lastName: 'Okafor', email: 'operator@harborview.example', password: secret(12), createdAt: created },
      { _id: stableId('user:office'), firstName: 'Luis', lastName: 'Brennan', email: 'office@harborview.example', password: secret(12), createdAt: created },
    ],
    projects,
    captures: {},
    uploads: {},
    emails: [],
    progress,
    assetCategories: [curtainWall, drywall],
    assets,
  };
}
