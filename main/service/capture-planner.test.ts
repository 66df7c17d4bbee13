import { mkdirSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { recommendedRetryPolicy } from '../api/errors.js';
import { writeFakeCard } from '../card/fake-card.js';
import { useTestService } from '../testing/kit.js';
import { AppCore } from './app-core.js';
import { localDate } from '../../shared/when.js';
import { nightSummary, summaryLines } from '../../shared/night-summary.js';

// With the capture plan's setting on, a card inserted whose walks match its camera's plan for the
// day goes to the queue with no click: imported, placed, registered; the queue's activity log
// (the night's story) and a notice say so. A card that does not match waits for a person.

const t = useTestService('capture-planner', { clearFaults: true });

/** A core over the local service watching its own mount folder, with what it said. */
async function core(name: string) {
  const notices: string[] = [];
  const logged: string[] = [];
  const map = new Map<string, unknown>();
  const mounts = join(t.work, name, 'media');
  mkdirSync(mounts, { recursive: true });
  map.set('library', { library: join(t.work, name, 'library'), keepDays: 7, uploadFromCard: false });
  const c = new AppCore({
    dataDir: join(t.work, name, 'data'),
    store: { get: (k) => map.get(k), set: (k, v) => map.set(k, v) },
    secrets: { available: () => true, encrypt: (s) => s, decrypt: (s) => s },
    emit: (event, payload) => {
      if (event === 'capture:event.notice') notices.push((payload as { message: string }).message);
    },
    pickFiles: async () => [],
    startLocalService: async () => ({ ...t.svc, close: async () => {} }),
    log: { info: (m) => logged.push(m), warn: (m) => logged.push(m) },
    cards: { roots: [mounts], pollMs: 50 },
    engine: { partRetry: recommendedRetryPolicy(10, 10), stallTimeoutMs: 5000, retrySchedule: { delayMs: () => 300 } },
  });
  t.keep(c);
  await c.start();
  const h = c.handlers();
  await h['capture:settings.useLocalService']();
  return { c, h, notices, logged, mounts };
}

/** Inserts a card of `walks` (recordings a minute apart from each start) under `mounts`, whole at once. */
function insert(mounts: string, name: string, walks: { start: Date; count: number }[]): string {
  const staging = join(t.work, 'staging', name);
  let segment = 1;
  for (const w of walks) {
    writeFakeCard(staging, { recordings: w.count, start: w.start, firstSegment: segment });
    segment += w.count;
  }
  renameSync(staging, join(mounts, name));
  return join(mounts, name);
}

// Tuesday 24 Nov 2026, local time (the fake card's files have no trailer: any camera's plan applies).
const at = (h: number) => new Date(2026, 10, 24, h, 0, 0);

describe('a card that matches the plan, with "no click" on', () => {
  it('is imported and its captures registered where the plan says, said in the activity log and a notice', async () => {
    const { c, h, notices, mounts } = await core('match');
    const [a, b] = c.settings.view().structures;
    const walks = [
      { structure: a!.id, design: a!.designs[0]!.id, type: 'interior' as const },
      { structure: b!.id, design: b!.designs[1]!.id, type: 'exterior' as const },
    ];
    await h['capture:plan.save']({ autoRegister: true, days: [{ camera: null, day: '2026-11-24', walks }] });
    insert(mounts, 'X4_PLAN', [
      { start: at(8), count: 3 },
      { start: at(10), count: 2 },
    ]);
    const queue = () => c.queueView().captures;
    await vi.waitFor(() => expect(queue()).toHaveLength(5), { timeout: 30_000, interval: 100 });
    const placed = queue()
      .sort((x, y) => Date.parse(x.capturedAt) - Date.parse(y.capturedAt))
      .map((q) => [q.structure, q.design, q.type]);
    expect(placed).toEqual([
      ...Array(3).fill([walks[0]!.structure, walks[0]!.design, 'interior']),
      ...Array(2).fill([walks[1]!.structure, walks[1]!.design, 'exterior']),
    ]);
    // Imported, not read from the card: the import is this session's, started by the plan.
    expect(c.cards.list().imports.map((i) => i.cardName)).toEqual(['X4_PLAN']);
    const planned = (await h['capture:activity.list']({})).filter((e) => e.kind === 'planned');
    expect(planned).toHaveLength(5);
    expect(planned.map((e) => e.message)).toContainEqual(
      `Placed by the capture plan (any camera, 2026-11-24: walk 2 of 2, ${b!.name} · ${b!.designs[1]!.name} (exterior)) and queued with no click.`,
    );
    // The morning summary says it too (`capture-uploader log --summary`, the queue's summary).
    const story = summaryLines(nightSummary(await h['capture:activity.list']({}), () => 0, [], true));
    expect(story).toContain('5 captures were placed by the capture plan and queued with no click.');
    expect(notices).toEqual([
      `Card X4_PLAN matched the capture plan (A camera with no serial number (no Insta360 trailer), ${localDate('2026-11-24', { weekday: true })}: 2 walks as planned): ` +
        `3 captures in ${a!.name} · ${a!.designs[0]!.name} (interior), 2 in ${b!.name} · ${b!.designs[1]!.name} (exterior), imported and queued with no click.`,
    ]);
  });
});

describe('a card that does not match the plan', () => {
  it('is not imported or registered: it waits for a person, and the support log says why', async () => {
    const { c, h, logged, mounts } = await core('mismatch');
    const [a] = c.settings.view().structures;
    const walk = { structure: a!.id, design: a!.designs[0]!.id, type: 'interior' as const };
    await h['capture:plan.save']({ autoRegister: true, days: [{ camera: null, day: 'tuesday', walks: [walk] }] });
    insert(mounts, 'X4_MORE', [
      { start: at(8), count: 2 },
      { start: at(11), count: 2 },
    ]);
    await vi.waitFor(() => expect(logged.join('\n')).toContain('Card X4_MORE does not match the capture plan'), {
      timeout: 30_000,
      interval: 100,
    });
    expect(logged.find((l) => l.startsWith('Card X4_MORE does not match'))).toMatch(
      /it waits for a person: Walk 2 \(.+\) has no place in the plan for .+ for a camera with no serial number \(no Insta360 trailer\): it plans 1 walk\.$/,
    );
    expect(c.queueView().captures).toEqual([]);
    expect(c.cards.list().imports).toEqual([]);
  });

  it('with "no click" off, a matching card is only offered', async () => {
    const { c, h, mounts } = await core('off');
    const [a] = c.settings.view().structures;
    const walk = { structure: a!.id, design: a!.designs[0]!.id, type: 'interior' as const };
    await h['capture:plan.save']({ autoRegister: false, days: [{ camera: null, day: 'tuesday', walks: [walk] }] });
    insert(mounts, 'X4_OFFER', [{ start: at(8), count: 2 }]);
    await vi.waitFor(() => expect(c.cards.list().cards.map((x) => x.name)).toEqual(['X4_OFFER']), {
      timeout: 30_000,
      interval: 100,
    });
    await new Promise((r) => setTimeout(r, 500));
    expect(c.queueView().captures).toEqual([]);
    expect(c.cards.list().imports).toEqual([]);
  });
});
