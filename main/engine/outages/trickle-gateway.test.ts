import { describe, expect, it } from 'vitest';
import { CAUSE_WORDS, plainCause } from '../../../shared/causes.js';
import { MiB, useServiceKit } from '../../testing/kit.js';
import type { Outage } from '../progress/progress.js';

// A gateway whose answers trickle (status, then a byte now and then): the engine does not wait
// for ever. The watcher counts answers, not bytes, so the screen says "Waiting for the gateway"
// within the stall timeout, in the words "the capture service answers too slowly"; each call is
// given up at its total deadline and the file or capture waits on the durable schedule.

const kit = useServiceKit('trickle-gateway');
const STALL_MS = 1500;
const IDLE_MS = 2000;

/** Resolves with what `pending` settles to, or with 'still waiting' once `ms` passed. */
const within = <T>(pending: Promise<T>, ms: number) =>
  Promise.race([pending, new Promise<'still waiting'>((r) => setTimeout(() => r('still waiting'), ms))]);

describe('an add whose sign-in or add-capture trickles', () => {
  it('sign-in trickling: add returns within seconds, the capture queued for a later try, the cause said', async () => {
    const file = kit.file('trickle-signin.mp4', MiB);
    const u = kit.uploader('signin', { apiIdleTimeoutMs: IDLE_MS });
    await kit.fault({ target: 'auth', operation: 'signin', times: 0, action: { type: 'trickle', everyMs: 200 } });
    const added = await within(u.add([file.path], { structure: kit.structure(), type: 'interior' }), 20_000);
    expect(added, 'add after 20 s').not.toBe('still waiting');
    const capture = u.queue.capture((added as { queued: number[] }).queued[0]!)!;
    expect(capture.state).toBe('queued');
    expect(capture.nextAttemptAt).not.toBeNull();
    expect(plainCause(capture.error)).toBe(CAUSE_WORDS['service-slow']);
  }, 30_000);

  it('add-capture trickling: add returns within seconds; sent and unanswered, the capture waits for a person', async () => {
    const file = kit.file('trickle-add.mp4', MiB);
    const u = kit.uploader('add', { apiIdleTimeoutMs: IDLE_MS });
    await u.gateway.ready();
    await kit.fault({
      target: 'gateway',
      operation: 'add-capture',
      times: 0,
      action: { type: 'trickle', everyMs: 200 },
    });
    const added = await within(u.add([file.path], { structure: kit.structure(), type: 'interior' }), 20_000);
    expect(added, 'add after 20 s').not.toBe('still waiting');
    const capture = u.queue.capture((added as { queued: number[] }).queued[0]!)!;
    expect(capture.state).toBe('registration_unknown');
    expect(capture.error).toMatch(/answers too slowly/);
    expect(await kit.fired(), 'add-capture sent once').toEqual([1]);
  }, 30_000);
});

describe('a presign whose answer trickles mid-drain', () => {
  it('is "Waiting for the gateway" within the stall timeout, given up at its deadline, and the file waits on the schedule', async () => {
    const file = kit.file('trickle-presign.mp4', 5 * MiB + 3);
    const u = kit.uploader('presign', { stallTimeoutMs: STALL_MS, apiIdleTimeoutMs: IDLE_MS });
    const { queued } = await u.add([file.path], { structure: kit.structure(), type: 'interior' });
    const fileId = u.queue.filesOf(queued[0]!)[0]!.id;
    const outages: { at: number; outage: Outage | null }[] = [];
    u.engine.on(
      (e) => void (e.type === 'progress' && outages.push({ at: performance.now(), outage: e.overall.outage })),
    );
    await kit.fault({
      target: 'gateway',
      operation: 'presign-missing',
      times: 0,
      action: { type: 'trickle', everyMs: 200 },
    });
    const started = performance.now();
    const summary = await within(u.engine.drain(), 30_000);
    expect(summary, 'the drain after 30 s').not.toBe('still waiting');
    const told = outages.find((o) => o.outage?.where === 'gateway');
    expect(told, 'an outage at the gateway').toBeDefined();
    // From the drain's start: sign-in and the first calls, the stall timeout, and 2 s or so for a
    // loaded test machine; a trickle that kept the call alive would take the whole 30 s.
    expect(told!.at - started).toBeLessThan(STALL_MS + 3000);
    expect(plainCause(told!.outage!.cause)).toBe(CAUSE_WORDS['service-slow']);
    const row = u.queue.file(fileId)!;
    expect([row.state, row.transient]).toEqual(['pending', true]);
    expect(plainCause(row.error)).toBe(CAUSE_WORDS['service-slow']);
    expect(await kit.fired(), 'presign calls: not repeated within the round').toEqual([1]);
  }, 60_000);
});
