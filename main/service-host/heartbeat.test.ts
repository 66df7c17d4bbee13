import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { HeartbeatOptions } from './heartbeat.js';
import { HEARTBEAT, Heartbeat } from './heartbeat.js';

// The host's watch on the service process, on a fake clock: what is taken for a hang and what is
// not (docs/decisions/0035-service-heartbeat.md). The process itself is played by the hooks.
const opts: HeartbeatOptions = { intervalMs: 5_000, deadlineMs: 30_000, startMs: 60_000, killMs: 5_000 };

beforeEach(() => void vi.useFakeTimers());
afterEach(() => void vi.useRealTimers());

/** A watch whose process answers each ping when `answering` says so; records the hang and slow answers. */
function watch(answering = true) {
  const hung: number[] = [];
  const slow: number[] = [];
  const state = { answering, replyAfterMs: 0 };
  const hb: Heartbeat = new Heartbeat(
    opts,
    {
      ping: (seq) => {
        if (!state.answering) return;
        if (state.replyAfterMs === 0) queueMicrotask(() => hb.pong(seq));
        else setTimeout(() => hb.pong(seq), state.replyAfterMs);
      },
      hung: (ms) => void hung.push(ms),
      slow: (ms) => void slow.push(ms),
    },
    () => Date.now(),
  );
  return { hb, hung, slow, state };
}

describe('the heartbeat', () => {
  it('is the app’s choice: a ping every 5 s, hung after 30 s of silence, 60 s to load, 5 s for a killed process', () => {
    expect(HEARTBEAT).toEqual(opts);
  });

  it('a process answering every ping is never taken for hung, over an hour', async () => {
    const { hb, hung } = watch();
    await vi.advanceTimersByTimeAsync(3_600_000);
    expect(hung).toEqual([]);
    hb.stop();
  });

  it('a process that spoke, then fell silent, is hung once its silence passes the deadline: once, and the watch stops', async () => {
    const { hb, hung, state } = watch();
    await vi.advanceTimersByTimeAsync(30_000);
    state.answering = false;
    await vi.advanceTimersByTimeAsync(opts.deadlineMs - opts.intervalMs);
    expect(hung).toEqual([]);
    await vi.advanceTimersByTimeAsync(opts.deadlineMs);
    expect(hung).toHaveLength(1);
    expect(hung[0]).toBeGreaterThan(opts.deadlineMs);
    // Found at the first ping after the deadline (and the turn of the loop its verdict waits for).
    expect(hung[0]).toBeLessThanOrEqual(opts.deadlineMs + opts.intervalMs + 10);
    await vi.advanceTimersByTimeAsync(600_000);
    expect(hung).toHaveLength(1);
    hb.stop();
  });

  it('the first ping goes at the spawn: a process that answers it has spoken, and its deadline counts from then', async () => {
    const { hb, hung, state } = watch();
    // Answered at once (the constructor's ping), then silent.
    await Promise.resolve();
    state.answering = false;
    await vi.advanceTimersByTimeAsync(opts.deadlineMs + opts.intervalMs + 100);
    expect(hung).toHaveLength(1);
    hb.stop();
  });

  it('a new process that has not spoken yet has the time to load (startMs), not the deadline', async () => {
    const { hb, hung } = watch(false);
    // Nothing heard since the spawn: the start's allowance applies.
    await vi.advanceTimersByTimeAsync(opts.startMs - opts.intervalMs);
    expect(hung).toEqual([]);
    await vi.advanceTimersByTimeAsync(2 * opts.intervalMs + 100);
    expect(hung).toHaveLength(1);
    hb.stop();
  });

  it('the host’s own pause (the computer slept, its event loop blocked) is not blamed on the process: it gets a whole deadline again', async () => {
    const pinged: number[] = [];
    const { hb, hung, slow, state } = watch();
    const hooks = (hb as unknown as { hooks: { ping(seq: number): void } }).hooks;
    const ping = hooks.ping;
    hooks.ping = (seq) => (pinged.push(seq), ping(seq));
    await vi.advanceTimersByTimeAsync(10_000);
    // A ping goes unanswered, then the host does not run for 10 minutes: the process's answers
    // would wait unread.
    state.answering = false;
    await vi.advanceTimersByTimeAsync(opts.intervalMs);
    const before = pinged.at(-1)!;
    vi.setSystemTime(Date.now() + 600_000);
    await vi.advanceTimersByTimeAsync(opts.intervalMs);
    expect(hung).toEqual([]);
    // Silent after the pause: a whole deadline from the late tick, not the silence across the pause.
    await vi.advanceTimersByTimeAsync(opts.deadlineMs - opts.intervalMs);
    expect(hung).toEqual([]);
    // An answer to a ping sent before the pause is no slow answer: the pause was the host's.
    hb.pong(before);
    expect(slow).toEqual([]);
    // Answering again: never hung.
    state.answering = true;
    await vi.advanceTimersByTimeAsync(120_000);
    expect(hung).toEqual([]);
    state.answering = false;
    await vi.advanceTimersByTimeAsync(opts.deadlineMs + 2 * opts.intervalMs);
    expect(hung).toHaveLength(1);
    hb.stop();
  });

  /** Runs `atVerdict` in the turn of the tick that first finds the silence past the deadline, before its verdict. */
  async function atTheVerdict(atVerdict: (hb: Heartbeat) => void) {
    const w = watch();
    await vi.advanceTimersByTimeAsync(10_000);
    w.state.answering = false;
    // Heard last at 10 s: the tick 10 s + k intervals finds k intervals of silence.
    const critical = opts.deadlineMs / opts.intervalMs + 1;
    const hooks = (w.hb as unknown as { hooks: { ping(seq: number): void } }).hooks;
    const ping = hooks.ping;
    let ticks = 0;
    hooks.ping = (seq) => {
      ping(seq);
      if (++ticks === critical) queueMicrotask(() => atVerdict(w.hb));
    };
    await vi.advanceTimersByTimeAsync(critical * opts.intervalMs + 100);
    return w;
  }

  it('an answer read in the same turn as the late tick saves the process: the verdict waits until what arrived is read', async () => {
    const { hb, hung } = await atTheVerdict((hb) => hb.heard());
    expect(hung).toEqual([]);
    // Without that answer the same tick is the verdict.
    const silent = await atTheVerdict(() => {});
    expect(silent.hung).toHaveLength(1);
    hb.stop();
  });

  it('a watch stopped (the process ended) while its verdict waits says nothing', async () => {
    const { hung } = await atTheVerdict((hb) => hb.stop());
    expect(hung).toEqual([]);
  });

  it('an answer that takes over a quarter of the deadline is said (a long step near the limit), and is no hang', async () => {
    const { hb, hung, slow, state } = watch();
    await vi.advanceTimersByTimeAsync(10_000);
    // Just under a quarter: not said; just over: said.
    state.replyAfterMs = opts.deadlineMs / 4 - 100;
    await vi.advanceTimersByTimeAsync(opts.intervalMs + opts.deadlineMs / 4);
    expect(slow).toEqual([]);
    state.replyAfterMs = opts.deadlineMs / 4 + 100;
    await vi.advanceTimersByTimeAsync(opts.intervalMs + opts.deadlineMs / 4 + 200);
    expect(slow.length).toBeGreaterThanOrEqual(1);
    expect(slow[0]).toBeGreaterThan(opts.deadlineMs / 4);
    expect(hung).toEqual([]);
    hb.stop();
  });
});
