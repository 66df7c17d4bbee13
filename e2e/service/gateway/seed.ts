import { randomBytes } from 'node:crypto';
import { seedRecords } from './seed-records.js';
import type { Design, Project, ProjectStage, ServiceState, Structure } from './model.js';
import { stableId } from './model.js';

// Ids are derived from names so that docs and tests can name them; keys, passwords and the
// JWT secret are random per data folder, because no secret belongs in the repository.

const secret = (bytes = 18) => randomBytes(bytes).toString('base64url');

function design(project: string, structure: string, name: string, isDefault: boolean, updatedAt: string): Design {
  return { id: stableId(`design:${project}:${structure}:${name}`), name, isDefault, updatedAt };
}

function structure(project: string, name: string, designs: [string, boolean, string][]): Structure {
  return {
    id: stableId(`structure:${project}:${name}`),
    name,
    designs: designs.map(([n, d, t]) => design(project, name, n, d, t)),
  };
}

function project(name: string, stage: ProjectStage, structures: Structure[]): Project {
  return { id: stableId(`project:${name}`), name, stage, apiKey: `ck_${secret(24)}`, structures };
}

/**
 * Seed data: projects in every stage, structures with designs, accounts, and (seed-records.ts)
 * progress entries, asset categories and assets of the first project, dated before `now` (ms).
 */
export function seed(now = Date.now()): ServiceState {
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
    project('Northgate Elementary School', 'Setup', [
      structure('Northgate Elementary School', 'Main Building', [['Ground Floor', false, '2026-06-01T10:00:00.000Z']]),
    ]),
    project('Eastside Library', 'Pre-Setup', [
      structure('Eastside Library', 'Library', [['Level 1', true, '2026-05-05T10:00:00.000Z']]),
    ]),
    project('Old Mill Lofts', 'Archived', [
      structure('Old Mill Lofts', 'Mill Building', [['Level 1', true, '2025-12-01T10:00:00.000Z']]),
    ]),
    project('Canal Street Offices', 'Deleted', [
      structure('Canal Street Offices', 'Office Block', [['Level 1', true, '2025-03-01T10:00:00.000Z']]),
    ]),
  ];
  const records = seedRecords(projects[0]!.id, projects[0]!.structures, now);
  const created = '2026-01-12T08:00:00.000Z';

  return {
    version: 1,
    jwtSecret: secret(32),
    tokenGeneration: 1,
    storage: {
      accessKeyId: `AKIA${randomBytes(8).toString('hex').toUpperCase()}`,
      secretAccessKey: secret(30),
      region: 'us-east-1',
      bucket: 'capture-uploads',
    },
    accounts: [
      {
        _id: stableId('user:operator'),
        firstName: 'Maya',
        lastName: 'Okafor',
        email: 'operator@harborview.example',
        password: secret(12),
        createdAt: created,
      },
      {
        _id: stableId('user:office'),
        firstName: 'Luis',
        lastName: 'Brennan',
        email: 'office@harborview.example',
        password: secret(12),
        createdAt: created,
      },
    ],
    projects,
    captures: {},
    uploads: {},
    emails: [],
    ...records,
  };
}
