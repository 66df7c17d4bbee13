import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { LegendAsset, LegendStage } from '../shared/asset-stages.js';
import { stageTotals } from '../shared/asset-stages.js';
import { useCliKit } from '../main/testing/kit.js';
import { recordsRefused } from '../main/testing/e2e-faults.js';

// The office side of the command line against the local service's progress interface.

const kit = useCliKit('records-cli');
afterEach(() => kit.svc.admin('DELETE', '/faults'));

const cli = (args: string[], env: Record<string, string> = {}) =>
  kit.run(kit.work, args, { env: { CAPTURE_PROGRESS_URL: kit.svc.info.progressBaseUrl, ...env } });

describe('capture-uploader progress', () => {
  it('records an entry, then finds it by date and by id', async () => {
    const add = await cli([
      '--json',
      'progress',
      'add',
      '--date',
      '2026-11-23',
      '--status',
      'In Progress',
      '--details',
      'Level 3 drywall\nboard hung',
    ]);
    expect(add.code, add.stderr).toBe(0);
    const { entry } = JSON.parse(add.stdout) as { entry: { id: string } };
    expect(kit.svc.store.state.progress.filter((p) => p.id === entry.id)).toEqual([
      {
        id: entry.id,
        projectId: kit.svc.info.projectId,
        date: '2026-11-23',
        status: 'In Progress',
        details: 'Level 3 drywall\nboard hung',
      },
    ]);
    const list = await cli(['progress', 'list', '--date', '2026-11-23']);
    expect(list.stdout).toContain(`2026-11-23  In Progress  ${entry.id}  Level 3 drywall\\nboard hung`);
    const show = await cli(['progress', 'show', entry.id]);
    expect(show.stdout).toMatch(new RegExp(`id +${entry.id}\\ndate +2026-11-23\\nstatus +In Progress`));
  });

  it('a create whose answer is lost is found, not recorded twice', async () => {
    await kit.svc.admin('POST', '/faults', {
      target: 'progress',
      operation: 'progress',
      method: 'POST',
      action: { type: 'dropResponse', afterMs: 0 },
    });
    const details = `Tower B sealant ${Date.now()}`;
    const add = await cli(['progress', 'add', '--date', '2026-11-22', '--status', 'Completed', '--details', details]);
    expect(add.code, add.stderr).toBe(0);
    expect(add.stdout).toMatch(/^recorded [0-9a-f]{24}: 2026-11-22 Completed$/m);
    expect(kit.svc.store.state.progress.filter((p) => p.details === details)).toHaveLength(1);
    // The answer really was lost: the fault fired once.
    const rules = ((await (await kit.svc.admin('GET', '/faults')).json()) as { rules: { fired: number }[] }).rules;
    expect(rules.map((r) => r.fired)).toEqual([1]);
  });

  it('keeps an entry recorded while the service cannot be reached, and sends it once with progress send', async () => {
    await kit.fault(recordsRefused(503));
    const details = `Level 4 fire stopping, offline ${Date.now()}`;
    const add = await cli(['progress', 'add', '--date', '2026-11-21', '--status', 'Completed', '--details', details]);
    // Work left that goes on by itself: 3, as the README's exit statuses say.
    expect(add.code, add.stderr).toBe(3);
    expect(add.stdout).toBe(
      `queued: the progress service cannot be reached; the entry waits in ${join(kit.work, 'records.db')} and is sent by \`capture-uploader progress send\`\n`,
    );
    expect(kit.svc.store.state.progress.filter((p) => p.details === details)).toEqual([]);
    const still = await cli(['progress', 'send']);
    expect(still.code, still.stderr).toBe(3);
    expect(still.stdout).toMatch(
      /^waiting \d+ {2}2026-11-21 Completed: Level 4 fire stopping, offline \d+ \(The progress service failed \(Internal Server Error\); try again in a moment\.\)\n/,
    );
    expect(still.stdout).toContain(`The entries waiting stay in ${join(kit.work, 'records.db')}; nothing is lost.`);
    expect(kit.svc.store.state.progress.filter((p) => p.details === details)).toEqual([]);

    await kit.svc.admin('DELETE', '/faults');
    const send = await cli(['progress', 'send']);
    expect(send.code, send.stderr).toBe(0);
    const recorded = kit.svc.store.state.progress.filter((p) => p.details === details);
    expect(recorded).toHaveLength(1);
    expect(send.stdout).toBe(`recorded ${recorded[0]!.id}: 2026-11-21 Completed\n`);
    expect((await cli(['progress', 'send'])).stdout).toBe('Nothing waits to be sent.\n');
    expect(kit.svc.store.state.progress.filter((p) => p.details === details)).toHaveLength(1);
  });

  it('progress list answers from the copy kept when the service cannot be reached, says so, and exits 4', async () => {
    const online = await cli(['progress', 'list']);
    expect(online.code, online.stderr).toBe(0);
    expect(online.stdout).toMatch(/^\d{4}-\d{2}-\d{2} {2}/);
    // The connection is reset on every call, as a service gone away does it (each list waits out
    // the reads' retries of §8, about 8 s, before it answers from the copy).
    await kit.fault({ target: 'progress', operation: 'progress', times: 0, action: { type: 'reset' } });
    const away = await cli(['progress', 'list']);
    // 4: answered from the copy kept, as the README's exit statuses say; never 2, a usage error.
    expect(away.code, away.stderr).toBe(4);
    expect(away.stdout).toBe(online.stdout);
    const kept = join(kit.work, 'records.db');
    expect(
      away.stderr.startsWith(`No connection to the progress service: showing the copy kept in ${kept}, as read `),
    ).toBe(true);
    expect(away.stderr.slice(away.stderr.indexOf(', as read ') + 10)).toMatch(
      /^\d{4}-\d{2}-\d{2} \d{2}:\d{2} \(network down — No answer from the service: .+\)\.\n$/,
    );
    // Nothing kept in another data folder: said so, nothing listed, 4 all the same.
    const none = await cli(['--data-dir', join(kit.work, 'elsewhere'), 'progress', 'list']);
    expect(none.code, none.stderr).toBe(4);
    expect(none.stdout).toBe('');
    expect(none.stderr).toMatch(
      /^No connection to the progress service \(.+\), and no copy of its entries is kept in .+elsewhere\/records\.db yet: run `capture-uploader progress list` again once the service answers\.\n$/,
    );
  });

  it('says what the service refused, in its words, with what to do', async () => {
    // Credentials refused: a person is needed, 1 as the README's exit statuses say.
    const bad = await cli(['progress', 'list'], { CAPTURE_API_KEY: 'not-the-key' });
    expect(bad.code).toBe(1);
    expect(bad.stderr).toBe(
      'capture-uploader: The progress service refuses the account or API key (Unauthorized): check CAPTURE_API_KEY, CAPTURE_PROJECT_ID and the account (or --api-key, --project-id, --email, --password).\n',
    );
    const date = await cli(['progress', 'add', '--date', '23/11/2026', '--status', 'Completed', '--details', 'x']);
    expect(date.code).toBe(2);
    expect(date.stderr).toMatch(/--date 23\/11\/2026 is not a date in YYYY-MM-DD form/);
    const empty = await cli(['progress', 'add', '--date', '2026-11-23', '--status', 'Completed', '--details', '  ']);
    expect(empty.code).toBe(2);
    expect(empty.stderr).toBe(
      'capture-uploader: --details is empty: say what was done, where (structure, level, gridlines).\n',
    );
  });

  it('an entry refused after send exits 1, and is corrected with progress fix or given up with progress drop', async () => {
    await kit.fault(recordsRefused(503));
    const first = `Tower C level 2 ${Date.now()}`;
    const second = `Tower C level 3 ${Date.now()}`;
    expect(
      (await cli(['progress', 'add', '--date', '2026-11-20', '--status', 'Completed', '--details', first])).code,
    ).toBe(3);
    expect(
      (await cli(['progress', 'add', '--date', '2026-11-20', '--status', 'Completed', '--details', second])).code,
    ).toBe(3);
    await kit.svc.admin('DELETE', '/faults');
    await kit.svc.admin('POST', '/faults', {
      target: 'progress',
      operation: 'progress',
      method: 'POST',
      times: 0,
      action: { type: 'json', status: 422, body: { success: false, message: 'details must name gridlines' } },
    });
    const send = await cli(['progress', 'send']);
    expect(send.code, send.stderr).toBe(1);
    const ids = [...send.stdout.matchAll(/^refused (\d+) /gm)].map((m) => Number(m[1]));
    expect(ids).toHaveLength(2);
    expect(send.stdout).toContain(
      '(The progress service refused the request: details must name gridlines. Correct it and try again.)',
    );
    expect(send.stdout).toContain('capture-uploader progress fix ID');
    await kit.svc.admin('DELETE', '/faults');
    const fix = await cli(['progress', 'fix', String(ids[0]), '--details', `${first}, gridlines 3–6`]);
    expect(fix.code, fix.stderr).toBe(0);
    expect(kit.svc.store.state.progress.filter((p) => p.details === `${first}, gridlines 3–6`)).toHaveLength(1);
    const drop = await cli(['progress', 'drop', String(ids[1])]);
    expect(drop.code, drop.stderr).toBe(0);
    expect(drop.stdout).toBe(`dropped ${ids[1]}: it will not be sent\n`);
    const after = await cli(['progress', 'send']);
    expect([after.code, after.stdout]).toEqual([0, 'Nothing waits to be sent.\n']);
    expect(kit.svc.store.state.progress.filter((p) => p.details === second)).toEqual([]);
    const gone = await cli(['progress', 'drop', String(ids[1])]);
    expect(gone.code).toBe(2);
    expect(gone.stderr).toMatch(/No entry \d+ waits to be sent/);
  });

  it('progress send and add exit 1 when the service refuses the API key, and the entry waits', async () => {
    await kit.fault(recordsRefused(503, 'POST'));
    const details = `Tower E level 1 ${Date.now()}`;
    const add = await cli(['progress', 'add', '--date', '2026-11-18', '--status', 'Completed', '--details', details]);
    expect(add.code, add.stderr).toBe(3);
    await kit.svc.admin('DELETE', '/faults');
    const send = await cli(['progress', 'send'], { CAPTURE_API_KEY: 'not-the-key' });
    expect(send.code, send.stderr).toBe(1);
    const [, id] =
      /^waiting (\d+) {2}2026-11-18 Completed: Tower E level 1 \d+ \(The progress service refuses the account or API key \(Unauthorized\): check CAPTURE_API_KEY/m.exec(
        send.stdout,
      ) ?? [];
    expect(id, send.stdout).toBeDefined();
    const again = await cli(
      ['progress', 'add', '--date', '2026-11-18', '--status', 'Completed', '--details', `${details} b`],
      {
        CAPTURE_API_KEY: 'not-the-key',
      },
    );
    expect([again.code, again.stderr]).toEqual([
      1,
      'capture-uploader: The progress service refuses the account or API key (Unauthorized): check CAPTURE_API_KEY, CAPTURE_PROJECT_ID and the account (or --api-key, --project-id, --email, --password).\n',
    ]);
    expect(kit.svc.store.state.progress.filter((p) => p.details.startsWith(details))).toEqual([]);
    expect((await cli(['progress', 'drop', id!])).code).toBe(0);
  });

  it('progress fix exits 1 when the corrected entry is refused again, 3 when it waits for the service, 0 when recorded', async () => {
    const post = (action: Record<string, unknown>) =>
      kit.svc.admin('POST', '/faults', { target: 'progress', operation: 'progress', method: 'POST', times: 0, action });
    await post({ type: 'status', status: 503 });
    const details = `Tower D level 1 ${Date.now()}`;
    const add = await cli(['progress', 'add', '--date', '2026-11-19', '--status', 'Completed', '--details', details]);
    expect(add.code, add.stderr).toBe(3);
    const [, id] =
      new RegExp(`^waiting (\\d+)  2026-11-19 Completed: ${details} `, 'm').exec(
        (await cli(['progress', 'send'])).stdout,
      ) ?? [];
    expect(id).toBeDefined();

    await kit.svc.admin('DELETE', '/faults');
    await post({ type: 'json', status: 422, body: { status: false, message: 'details must name gridlines' } });
    const refused = await cli(['progress', 'fix', id!, '--details', `${details}, north`]);
    expect([refused.code, refused.stdout]).toEqual([
      1,
      `refused ${id}  2026-11-19 Completed: ${details}, north (The progress service refused the request: details must name gridlines. Correct it and try again.)\n`,
    ]);

    await kit.svc.admin('DELETE', '/faults');
    await post({ type: 'status', status: 503 });
    const waits = await cli(['progress', 'fix', id!, '--details', `${details}, gridlines 1–4`]);
    expect(waits.code, waits.stderr).toBe(3);
    expect(waits.stdout).toMatch(new RegExp(`^waiting ${id}  2026-11-19 Completed: ${details}, gridlines 1–4 \\(`));
    expect(kit.svc.store.state.progress.filter((p) => p.details.startsWith(details))).toEqual([]);

    await kit.svc.admin('DELETE', '/faults');
    const done = await cli(['progress', 'send']);
    expect(done.code, done.stderr).toBe(0);
    expect(kit.svc.store.state.progress.filter((p) => p.details.startsWith(details)).map((p) => p.details)).toEqual([
      `${details}, gridlines 1–4`,
    ]);
  });
});

describe('capture-uploader assets', () => {
  it("lists categories with their stages, and a structure's assets with the legend's per-stage totals", async () => {
    const cats = await cli(['assets', 'categories']);
    expect(cats.stdout).toMatch(/^Curtain Wall {2}\([0-9a-f]{24}, m\)\n {2}1\. Anchors {2}#8e44ad\n {2}2\. Framing/m);
    const towerA = kit.structure();
    const list = await cli(['assets', 'list', '--structure', towerA, '--category', 'Curtain Wall']);
    expect(list.code, list.stderr).toBe(0);
    // What the seed holds for Tower A's curtain wall, tallied with the legend's own arithmetic
    // (unit-tested in shared/asset-stages.test.ts); the counts must cover every tracked asset.
    const category = (
      kit.svc.store.state.assetCategories as { id: string; name: string; stages: LegendStage[] }[]
    ).find((c) => c.name === 'Curtain Wall')!;
    const held = kit.svc.store.state.assets.filter(
      (a) => a.structure === towerA && a.category === category.id,
    ) as unknown as LegendAsset[];
    const totals = stageTotals(category.stages, held);
    const untracked = held.filter((a) => a.doNotTrack).length;
    expect(totals.reduce((n, t) => n + t.assets, 0)).toBe(held.length - untracked);
    expect(
      list.stdout
        .split('\n')
        .map((l) => l.replace(/\s+/g, ' ').trim())
        .slice(0, totals.length + 2 + (untracked ? 1 : 0)),
    ).toEqual([
      `${held.length} asset(s) of Curtain Wall in structure ${towerA}; lengths in m`,
      'By the latest stage each asset has reached:',
      ...totals.map(
        (t) =>
          `${t.stage?.name ?? 'not started'} ${t.assets} asset(s) ${t.length.toFixed(1)} m ${(t.share * 100).toFixed(1)}%`,
      ),
      ...(untracked ? [`(${untracked} asset(s) marked do-not-track are not counted)`] : []),
    ]);
    // Then each stage in its own unit (anchors counted, glazing in m2 by the wall's height, sealant in lf).
    expect(list.stdout).toContain(
      'Per-stage totals (the work done in each stage by all tracked assets, each in its own unit):',
    );
    expect(list.stdout).toMatch(/\n {2}Anchors +[\d.]+ of \d+ ea\n/);
    expect(list.stdout).toMatch(/\n {2}Sealant +[\d.]+ of [\d.]+ lf\n/);
    const missing = await cli(['assets', 'list', '--structure', towerA, '--category', 'Roofing']);
    expect(missing.stderr).toMatch(
      /No category "Roofing" in this project; the categories are: Curtain Wall, Drywall Partitions, Ductwork/,
    );
  });
});

describe('capture-uploader assets by shape and unit', () => {
  it('sizes slabs (polygons) by their area, not a polyline length, and says the pour in m3', async () => {
    const towerA = kit.structure();
    const list = await cli(['assets', 'list', '--structure', towerA, '--category', 'Floor Slabs', '--json']);
    expect(list.code, list.stderr).toBe(0);
    const out = JSON.parse(list.stdout) as {
      sizing: { dimension: string; unit: string; note: string };
      totals: { length: number }[];
      stageWork: { stage: string; uom: string; done: number; total: number }[];
    };
    const category = (kit.svc.store.state.assetCategories as { id: string; name: string; height: number }[]).find(
      (c) => c.name === 'Floor Slabs',
    )!;
    const held = kit.svc.store.state.assets.filter(
      (a) => a.structure === towerA && a.category === category.id && !a.doNotTrack,
    ) as unknown as { points: { x: number; y: number }[] }[];
    // The seeded slabs are rectangles: their area is width × depth.
    const area = (pts: { x: number; y: number }[]) =>
      (Math.max(...pts.map((p) => p.x)) - Math.min(...pts.map((p) => p.x))) *
      (Math.max(...pts.map((p) => p.y)) - Math.min(...pts.map((p) => p.y)));
    const total = held.reduce((n, a) => n + area(a.points), 0);
    expect(out.sizing).toEqual({ dimension: 'area', unit: 'm2', note: 'area in m2: the drawn outlines' });
    expect(out.totals.reduce((n, t) => n + t.length, 0)).toBeCloseTo(total, 6);
    const pour = out.stageWork.find((w) => w.stage === 'Concrete Pour')!;
    expect(pour.uom).toBe('m3');
    expect(pour.total).toBeCloseTo(total * category.height, 6);
    const text = await cli(['assets', 'list', '--structure', towerA, '--category', 'Floor Slabs']);
    expect(text.stdout.split('\n')[0]).toBe(
      `${kit.svc.store.state.assets.filter((a) => a.structure === towerA && a.category === category.id).length} asset(s) of Floor Slabs in structure ${towerA}; area in m2: the drawn outlines`,
    );
    expect(text.stdout).toMatch(/\n {2}Concrete Pour +[\d.]+ of [\d.]+ m3\n/);
  });
});
