import { describe, expect, it } from 'vitest';
import { faultRuleInputSchema, faultSettingsSchema } from '../../e2e/service/testing.js';
import { CHAOS_MAX_CARD_PARTS, CHAOS_PART_SIZE, drawPlan, replayCommand } from './chaos-plan.js';

// The chaos check's plans (chaos-plan.ts) over the first 500 seeds: what each run may draw, and
// that a seed alone replays it.

const SEEDS = Array.from({ length: 500 }, (_, i) => i + 1);
const parts = (size: number) => Math.ceil(size / CHAOS_PART_SIZE);

describe('the chaos plan of a seed', () => {
  it('is the same plan every time for the same seed and options', () => {
    for (const seed of [1, 17, 4096]) {
      expect(drawPlan(seed)).toEqual(drawPlan(seed));
      expect(drawPlan(seed, { answers: true })).toEqual(drawPlan(seed, { answers: true }));
    }
    expect(drawPlan(1)).not.toEqual(drawPlan(2));
  });

  it('draws a card of 1–6 recordings, each file of 1–12 parts, at most 12 parts in all, names unique across seeds', () => {
    const names = new Set<string>();
    const counts = new Set<number>();
    const partCounts = new Set<number>();
    for (const seed of SEEDS) {
      const { recordings } = drawPlan(seed);
      expect(recordings.length).toBeGreaterThanOrEqual(1);
      expect(recordings.length).toBeLessThanOrEqual(6);
      counts.add(recordings.length);
      const files = recordings.flatMap((r) => r.files);
      for (const f of files) {
        expect(names.has(f.name), f.name).toBe(false);
        names.add(f.name);
        expect(f.size).toBeGreaterThan(0);
        expect(parts(f.size)).toBeLessThanOrEqual(12);
        partCounts.add(parts(f.size));
      }
      expect(files.reduce((n, f) => n + parts(f.size), 0)).toBeLessThanOrEqual(CHAOS_MAX_CARD_PARTS);
      for (const r of recordings) {
        if (r.files.length === 2) expect(r.files.map((f) => f.name.slice(19, 23))).toEqual(['_00_', '_10_']);
        else expect(r.files[0]!.name).toMatch(/^VID_\d{8}_\d{6}_00_\d{3}\.mp4$/);
      }
    }
    // Every size of card and of file is met among the seeds.
    expect([...counts].sort()).toEqual([1, 2, 3, 4, 5, 6]);
    expect([...partCounts].sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
  });

  it('draws faults the local service takes, storage and the gateway alike, cleared after the last of them', () => {
    const kinds = new Set<string>();
    for (const seed of SEEDS) {
      const plan = drawPlan(seed);
      expect(plan.faults.length).toBeGreaterThanOrEqual(1);
      for (const f of plan.faults) {
        kinds.add(f.kind);
        if (f.rule) expect(() => faultRuleInputSchema.parse(f.rule)).not.toThrow();
        if (f.settings) expect(() => faultSettingsSchema.parse(f.settings)).not.toThrow();
        expect(f.answers).toBeUndefined();
        if (f.anchor === 'upload') expect(plan.healAtMs).toBeGreaterThan(f.atMs);
        else expect(f.atMs).toBeLessThanOrEqual(300);
      }
    }
    for (const k of [
      'storage 403 html',
      'storage 429',
      'storage 429 Retry-After',
      'storage 500',
      'storage 501',
      'storage 503',
      'storage reset before the last byte',
      'storage reset after the last byte, stored',
      'storage reset after the last byte, not stored',
      'storage hang',
      'storage latency',
      'storage slow body',
      'gateway 403 html',
      'gateway 429 Retry-After',
      'gateway 501',
      'gateway hang',
      'gateway slow body',
      'storage behind a buffering proxy',
    ])
      expect(kinds, k).toContain(k);
  });

  it('draws SIGKILL, SIGTERM, SIGINT and SIGHUP of the CLI during add, import and drain, and of the service process', () => {
    const seen = new Set<string>();
    for (const seed of SEEDS) {
      const plan = drawPlan(seed);
      for (const k of plan.kills) {
        seen.add(`${k.signal} ${k.step === 'queue' ? plan.queueBy : k.step}`);
        if (plan.target === 'service') expect(k.step).toBe('service');
        else expect(k.signal).not.toBe('SIGSTOP');
      }
    }
    for (const signal of ['SIGKILL', 'SIGTERM', 'SIGINT', 'SIGHUP'])
      for (const step of ['add', 'import', 'drain', 'service'])
        expect(seen, `${signal} ${step}`).toContain(`${signal} ${step}`);
    expect(seen).toContain('SIGSTOP service');
  });

  it('adds the answers only with --answers, leaving the rest of the plan as it was', () => {
    const kinds = new Set<string>();
    for (const seed of SEEDS.slice(0, 200)) {
      const plain = drawPlan(seed);
      const withAnswers = drawPlan(seed, { answers: true });
      expect(withAnswers.faults.filter((f) => !f.answers)).toEqual(plain.faults);
      expect({ ...withAnswers, faults: [], answers: false, healAtMs: 0 }).toEqual({
        ...plain,
        faults: [],
        healAtMs: 0,
      });
      for (const f of withAnswers.faults.filter((x) => x.answers)) {
        kinds.add(f.kind);
        expect(() => faultRuleInputSchema.parse(f.rule)).not.toThrow();
      }
    }
    expect([...kinds].sort()).toEqual([
      'answer: empty finalize 200',
      'answer: empty finalize 204',
      'answer: hostile ids',
      'answer: part list beyond',
      'answer: part list duplicate',
      'answer: part list fileUrl',
      'answer: part list missing',
      'answer: part list swap',
      'answer: part list zero',
    ]);
    expect(replayCommand(7)).toBe('npm run chaos -- --seed 7');
    expect(replayCommand(7, { answers: true })).toBe('npm run chaos -- --seed 7 --answers');
  });
});
