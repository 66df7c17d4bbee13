import { mkdtempSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { writeFakeCard } from '../main/card/fake-card.js';
import { useCliKit } from '../main/testing/kit.js';

// The capture plan from the command line: `plan set|show|clear` (JSON in and out, kept in the
// queue), and `add --plan` / `import --plan` placing each walk where the plan says, `--dry-run`
// showing it. The generated cards have no Insta360 trailer, so the plan's days for any camera
// (`camera: null`) apply; they were recorded on Tuesday 24 Nov 2026, local time.

const kit = useCliKit('plan-cli');

/** A card of walks (recordings a minute apart from each start), written at `work/<name>`. */
function card(name: string, walks: { hour: number; count: number }[]): string {
  const root = join(kit.work, name);
  let segment = 1;
  for (const w of walks) {
    writeFakeCard(root, { recordings: w.count, start: new Date(2026, 10, 24, w.hour, 0, 0), firstSegment: segment });
    segment += w.count;
  }
  return root;
}

function planFile(days: unknown[], autoRegister = false): string {
  const file = join(mkdtempSync(join(kit.work, 'plan-')), 'plan.json');
  writeFileSync(file, JSON.stringify({ autoRegister, days }));
  return file;
}

describe('plan set, show and clear', () => {
  it('an empty plan first, the plan as written after set, refused whole with the field named, empty after clear', async () => {
    const dataDir = mkdtempSync(join(kit.work, 'q-'));
    const empty = await kit.run(dataDir, ['--json', 'plan', 'show']);
    expect(empty.code, empty.stderr).toBe(0);
    expect(JSON.parse(empty.stdout)).toEqual({ autoRegister: false, days: [], updatedAt: null });

    const days = [
      { camera: 'IAEAN00000XXXX', day: 'monday', walks: [{ structure: 's1', design: 'd1', type: 'interior' }] },
    ];
    const set = await kit.run(dataDir, ['--json', 'plan', 'set', planFile(days, true)]);
    expect(set.code, set.stderr).toBe(0);
    expect(JSON.parse(set.stdout)).toMatchObject({ autoRegister: true, days });
    expect(JSON.parse((await kit.run(dataDir, ['--json', 'plan', 'show'])).stdout)).toMatchObject({ days });

    const bad = planFile([{ camera: null, day: 'someday', walks: [{ structure: 's1' }] }]);
    const refused = await kit.run(dataDir, ['plan', 'set', bad]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(`${bad} is not a capture plan: days.0.day:`);
    expect(refused.stderr).toContain('days.0.walks.0.type:');
    expect(refused.stderr).toContain('Nothing was changed.');
    expect(JSON.parse((await kit.run(dataDir, ['--json', 'plan', 'show'])).stdout)).toMatchObject({ days });

    const cleared = await kit.run(dataDir, ['--json', 'plan', 'clear']);
    expect(cleared.code, cleared.stderr).toBe(0);
    expect(JSON.parse((await kit.run(dataDir, ['--json', 'plan', 'show'])).stdout).days).toEqual([]);
  });
});

describe('add --plan', () => {
  it('shows the placement with --dry-run, then queues each walk where the plan says', async () => {
    const dataDir = mkdtempSync(join(kit.work, 'q-'));
    const [a, b] = kit.svc.info.namedStructures;
    const walks = [
      { structure: a!.id, design: a!.designs[0]!.id, type: 'interior' },
      { structure: b!.id, design: b!.designs[0]!.id, type: 'exterior' },
    ];
    expect((await kit.run(dataDir, ['plan', 'set', planFile([{ camera: null, day: 'tuesday', walks }])])).code).toBe(0);
    const root = card('two-walks', [
      { hour: 8, count: 3 },
      { hour: 10, count: 2 },
    ]);

    const dry = await kit.run(dataDir, ['add', '--plan', '--dry-run', root]);
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout).toContain(`By the capture plan (A camera with no serial number (no Insta360 trailer), `);
    expect(dry.stdout).toMatch(
      new RegExp(
        `walk 1 of the plan \\(.+\\): 3 captures → structure ${a!.id} · design ${a!.designs[0]!.id} \\(interior\\)`,
      ),
    );
    expect(dry.stdout).toMatch(
      new RegExp(
        `walk 2 of the plan \\(.+\\): 2 captures → structure ${b!.id} · design ${b!.designs[0]!.id} \\(exterior\\)`,
      ),
    );
    expect(dry.stdout).toContain('Nothing was queued or sent (--dry-run).');
    expect(Object.keys(kit.svc.store.state.captures)).toHaveLength(0);

    const add = await kit.run(dataDir, ['add', '--plan', root]);
    expect(add.code, add.stderr + add.stdout).toBe(0);
    expect(add.stdout.match(/^queued capture \d+ /gm)).toHaveLength(5);
    const registered = Object.values(kit.svc.store.state.captures)
      .map((c) => c.request as { structure: string; design?: string; type: string; captureDateTime: string })
      .sort((x, y) => Date.parse(x.captureDateTime) - Date.parse(y.captureDateTime))
      .map((r) => [r.structure, r.design, r.type]);
    expect(registered).toEqual([
      ...Array(3).fill([walks[0]!.structure, walks[0]!.design, 'interior']),
      ...Array(2).fill([walks[1]!.structure, walks[1]!.design, 'exterior']),
    ]);
  });

  it('a card with a walk more than the plan: nothing queued, the walk named, exit 1', async () => {
    const dataDir = mkdtempSync(join(kit.work, 'q-'));
    const [a] = kit.svc.info.namedStructures;
    const walks = [{ structure: a!.id, design: a!.designs[0]!.id, type: 'interior' }];
    await kit.run(dataDir, ['plan', 'set', planFile([{ camera: null, day: 'weekdays', walks }])]);
    const before = Object.keys(kit.svc.store.state.captures).length;
    const root = card('extra-walk', [
      { hour: 8, count: 2 },
      { hour: 11, count: 2 },
    ]);
    const add = await kit.run(dataDir, ['add', '--plan', root]);
    expect(add.code).toBe(1);
    expect(add.stdout).toMatch(
      /^Walk 2 \(.+\) has no place in the plan for .+ for a camera with no serial number \(no Insta360 trailer\): it plans 1 walk\.$/m,
    );
    expect(add.stderr).toContain('Nothing was queued: the card does not match the capture plan');
    expect(Object.keys(kit.svc.store.state.captures)).toHaveLength(before);
  });
});

describe('import --plan', () => {
  it('--dry-run copies nothing; then the card is copied and each recording queued from its copy where the plan says', async () => {
    const dataDir = mkdtempSync(join(kit.work, 'q-'));
    const library = join(kit.work, 'library');
    const [a, b] = kit.svc.info.namedStructures;
    const walks = [
      { structure: b!.id, design: b!.designs[1]!.id, type: 'interior' },
      { structure: a!.id, design: a!.designs[2]!.id, type: 'exterior' },
    ];
    await kit.run(dataDir, ['plan', 'set', planFile([{ camera: null, day: '2026-11-24', walks }])]);
    const staged = card('staged', [
      { hour: 9, count: 2 },
      { hour: 13, count: 2 },
    ]);
    const root = join(kit.work, 'X4_PLAN');
    renameSync(staged, root);
    const before = Object.keys(kit.svc.store.state.captures).length;

    const dry = await kit.run(dataDir, ['import', '--plan', '--dry-run', '--library', library, root]);
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout).toContain('Nothing was copied, queued or sent (--dry-run).');
    expect(dry.stdout).not.toContain('Card safe to remove');

    const run = await kit.run(dataDir, ['import', '--plan', '--library', library, root]);
    expect(run.code, run.stderr + run.stdout).toBe(0);
    expect(run.stdout).toContain('Card safe to remove');
    expect(run.stdout.match(/^queued capture \d+ /gm)).toHaveLength(4);
    const mine = Object.values(kit.svc.store.state.captures)
      .slice(before)
      .map((c) => c.request as { structure: string; design?: string; type: string; captureDateTime: string })
      .sort((x, y) => Date.parse(x.captureDateTime) - Date.parse(y.captureDateTime))
      .map((r) => [r.structure, r.design, r.type]);
    expect(mine).toEqual([
      ...Array(2).fill([walks[0]!.structure, walks[0]!.design, 'interior']),
      ...Array(2).fill([walks[1]!.structure, walks[1]!.design, 'exterior']),
    ]);
  });
});
