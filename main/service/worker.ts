// The upload service's thread: AppCore (queue, engine, registrar, scheduler, API clients, office
// desk) and its IPC handlers, off the Electron main thread, which Electron asks never to block
// (issue 21 #1). Started by main/service/host.ts; it talks only in main/service/protocol.ts
// messages. What it needs of Electron (secrets sealed with safeStorage, the file dialog, the
// power-save blocker, notifications, the settings file) it asks the host for.
import { join } from 'node:path';
import { parentPort, workerData } from 'node:worker_threads';
import type { Channel, Envelope } from '../../shared/ipc.js';
import { recommendedRetryPolicy } from '../api/errors.js';
import { queueErrorMessage } from './queue-error.js';
import { AppCore } from './app-core.js';
import type { AppCoreOptions } from './app-core.js';
import type { IpcHandlers } from '../ipc/dispatch.js';
import { overnightRetrySchedule } from '../engine/retry-schedule.js';
import { findLocalService } from './local-service.js';
import type { LocalServiceStarter } from './local-service.js';
import type { EngineTuning, HostMessage, LocalServiceSource, ServiceStart, WorkerMessage } from './protocol.js';
import { syncAsk } from './protocol.js';

const port = parentPort!;
const start = workerData as ServiceStart;
const post = (m: WorkerMessage) => port.postMessage(m);

/** The engine options a tuning stands for. */
function engineOptions(t: EngineTuning | undefined): AppCoreOptions['engine'] {
  if (!t) return undefined;
  const { partRetry, retrySchedule, ...plain } = t;
  return {
    ...plain,
    ...(partRetry && { partRetry: recommendedRetryPolicy(partRetry.baseMs, partRetry.jitterMs, partRetry.retries) }),
    ...(retrySchedule && { retrySchedule: overnightRetrySchedule(retrySchedule.baseMs, retrySchedule.maxMs) }),
  };
}

function localStarter(source: LocalServiceSource): LocalServiceStarter | undefined {
  if (source === 'find') return findLocalService();
  if (source === null) return undefined;
  // Already running elsewhere and outliving this thread: closing the app does not stop it.
  return async () => ({ info: source.info, close: async () => {} });
}

export { queueErrorMessage };

// Read through from the host's settings file once per key, then kept here: writes go to both.
const store = new Map<string, unknown>();
const unsealed = new Map(Object.entries(start.unsealed));
let nextRequest = 0;
const requests = new Map<number, (answer: Envelope<unknown>) => void>();
const ask = (op: 'pickFiles') =>
  new Promise<Envelope<unknown>>((resolve) => {
    const seq = ++nextRequest;
    requests.set(seq, resolve);
    post({ type: 'request', seq, op });
  });

const core = new AppCore({
  dataDir: start.dataDir,
  store: {
    get: (k) => {
      if (!store.has(k)) store.set(k, syncAsk(start.sync, post, { op: 'storeGet', key: k }) ?? undefined);
      return store.get(k);
    },
    set: (k, v) => {
      store.set(k, v);
      post({ type: 'store', key: k, value: v });
    },
  },
  secrets: {
    available: () => start.secretsAvailable,
    encrypt: (plain) => {
      const sealed = syncAsk(start.sync, post, { op: 'seal', plain }) as string;
      unsealed.set(sealed, plain);
      return sealed;
    },
    decrypt: (sealed) => unsealed.get(sealed) ?? (syncAsk(start.sync, post, { op: 'unseal', sealed }) as string),
  },
  emit: (event, payload) => post({ type: 'event', event, payload } as WorkerMessage),
  pickFiles: async () => {
    const answer = await ask('pickFiles');
    if (!answer.ok) throw new Error(answer.error);
    return answer.value as string[];
  },
  startLocalService: localStarter(start.localService),
  notify: (title, body) => post({ type: 'notify', title, body }),
  // Answered at once by the host, which holds the power-save blocker.
  busy: (working) => syncAsk(start.sync, post, { op: 'busy', working }) === true,
  totals: (totals) => post({ type: 'totals', totals }),
  log: { info: (message) => post({ type: 'log', level: 'info', message }), warn: (message) => post({ type: 'log', level: 'warn', message }) },
  engine: engineOptions(start.engine),
  gatherMs: start.gatherMs,
  cards: start.cards,
});

let queueError: string | null = null;
try {
  await core.start();
} catch (err) {
  queueError = queueErrorMessage(err, join(start.dataDir, 'queue'));
}
// While another process holds the queue, the core waits for it and says so (AppCore.queueWait).
const handlers: IpcHandlers = { ...core.handlers(), 'capture:service.status': async () => ({ queueError: queueError ?? core.queueWait }) };
const cancelled = new Set<number>();

async function answer(seq: number, channel: Channel, args: unknown): Promise<void> {
  let reply: Envelope<unknown>;
  try {
    const handler = handlers[channel] as (a: unknown) => Promise<unknown>;
    reply = { ok: true, value: await handler(args) };
  } catch (err) {
    reply = { ok: false, error: err instanceof Error ? err.message : String(err) };
  }
  // A cancelled call was answered already; its late result is dropped.
  if (!cancelled.delete(seq)) post({ type: 'result', seq, answer: reply });
}

const pending = new Set<number>();
port.on('message', (m: HostMessage) => {
  switch (m.type) {
    case 'call':
      pending.add(m.seq);
      void answer(m.seq, m.channel, m.args).finally(() => pending.delete(m.seq));
      break;
    case 'cancel':
      if (!pending.has(m.seq)) break;
      cancelled.add(m.seq);
      post({ type: 'result', seq: m.seq, answer: { ok: false, error: 'Cancelled' } });
      break;
    case 'reply':
      requests.get(m.seq)?.(m.answer);
      requests.delete(m.seq);
      break;
    case 'close':
      void core.close().finally(() => {
        post({ type: 'closed' });
        port.close();
      });
      break;
  }
});
post({ type: 'started', queueError: queueError ?? core.queueWait });
