import { vi } from 'vitest';
import { create } from 'zustand';
import type { StoreApi, UseBoundStore } from 'zustand';
import type { Envelope } from '../../shared/ipc.js';
import { CANCELLED } from '../../shared/ipc.js';
import type { AssetsSlice } from './assets-slice.js';
import type { OutboxSlice } from './outbox-slice.js';
import type { ProgressSlice } from './progress-slice.js';

// Test code only: the office slices' tests (progress-, outbox-, assets-slice.test.ts,
// office-timers.test.ts) run their slices against this stand-in for window.api.

/** One call a slice made: the api function's short name (`progress.list`), its argument, and its call id when it gave one. */
interface OfficeCall {
  name: string;
  args: unknown;
  callId: string | undefined;
}

/** What a test answers a call with: a value, or an Error whose message the envelope carries as the main process's sentence. */
type Answer = (args: unknown) => unknown;

/**
 * A stand-in for window.api: each call is recorded in `calls` and answered by what `answer` set
 * for its name (an Error thrown or returned becomes `{ ok: false, error }`, as the IPC dispatch answers a
 * failure), or, while `hold` is set for its name, kept in `held` until the test settles it. A
 * `cancel` by call id answers a held call `Cancelled`, as the IPC dispatch does.
 */
export class OfficeApi {
  readonly calls: OfficeCall[] = [];
  readonly cancelled: string[] = [];
  readonly held: { call: OfficeCall; settle(value: unknown): void }[] = [];
  private readonly answers = new Map<string, Answer>();
  private readonly holding = new Set<string>();

  /** Answers every later call of `name` with `fn(args)`'s value (or a refusal, when it is or throws an Error). */
  answer(name: string, fn: Answer): this {
    this.answers.set(name, fn);
    return this;
  }

  /** Holds every later call of `name` (`true`), or answers them again (`false`). */
  hold(name: string, holding = true): this {
    if (holding) this.holding.add(name);
    else this.holding.delete(name);
    return this;
  }

  /** Settles the oldest held call of `name` with `value` (an Error: a refusal); throws when none is held. */
  release(name: string, value: unknown): void {
    const i = this.held.findIndex((h) => h.call.name === name);
    if (i < 0) throw new Error(`no call of ${name} is held`);
    this.held.splice(i, 1)[0]!.settle(value);
  }

  /** The calls of `name` so far. */
  callsOf(name: string): OfficeCall[] {
    return this.calls.filter((c) => c.name === name);
  }

  /** The object the slices see as window.api. */
  readonly api = new Proxy({} as Record<string, unknown>, {
    get: (_, name: string) =>
      name === 'cancel'
        ? (callId: string) => {
            this.cancelled.push(callId);
            const i = this.held.findIndex((h) => h.call.callId === callId);
            if (i >= 0) this.held.splice(i, 1)[0]!.settle(new Error(CANCELLED));
            return Promise.resolve({ ok: true, value: i >= 0 });
          }
        : (args: unknown, opts?: { callId?: string }) => this.invoke(name, args, opts?.callId),
  });

  private invoke(name: string, args: unknown, callId: string | undefined): Promise<Envelope<unknown>> {
    const call = { name, args, callId };
    this.calls.push(call);
    return new Promise((resolve) => {
      const settle = (v: unknown) =>
        resolve(v instanceof Error ? { ok: false, error: v.message } : { ok: true, value: v });
      if (this.holding.has(name)) return void this.held.push({ call, settle });
      const fn = this.answers.get(name);
      if (!fn) return settle(new Error(`no answer for ${name}`));
      try {
        settle(fn(args));
      } catch (err) {
        settle(err);
      }
    });
  }
}

/** The office's three slices as one store, as store.ts builds them into the app's. */
export type OfficeState = ProgressSlice & OutboxSlice & AssetsSlice;

/**
 * Makes `office` the window's api (with a window and document to listen on) and builds a store of
 * the office's slices over it. The slices read window.api when loaded, so they are loaded here,
 * after the stand-in is in place.
 */
export async function officeStore(office: OfficeApi): Promise<UseBoundStore<StoreApi<OfficeState>>> {
  vi.stubGlobal('window', Object.assign(new EventTarget(), { api: office.api }));
  vi.stubGlobal('document', new EventTarget());
  const [{ progressSlice }, { outboxSlice }, { assetsSlice }] = await Promise.all([
    import('./progress-slice.js'),
    import('./outbox-slice.js'),
    import('./assets-slice.js'),
  ]);
  return create<OfficeState>()((...a) => ({ ...progressSlice(...a), ...outboxSlice(...a), ...assetsSlice(...a) }));
}

/** Lets the promises already settled run their callbacks (the slices' answers are applied a few turns later). */
export const settle = async (): Promise<void> => {
  for (let i = 0; i < 20; i++) await Promise.resolve();
};
