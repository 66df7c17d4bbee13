import { SETTINGS } from '../../shared/settings-table.js';
import { recommendedRetryPolicy } from '../api/errors.js';
import type { EngineContext } from './context.js';
import type { EngineEvent, EngineOptions } from './events.js';
import { IN_DOUBT_SETTLE_MS } from './parts/in-doubt.js';
import { PartLedger } from './progress/ledger.js';
import { Limiter } from './scheduling/limiter.js';
import { OutageRecord } from './outages/outage-record.js';
import { LinkMonitor } from './outages/link.js';
import { GatewayMonitor } from './outages/gateway-watch.js';
import {
  STALL_TIMEOUT_MS,
  silentGatewayCause,
  silentLinkCause,
  slowGatewayCause,
  slowStorageCause,
} from './parts/stall.js';
import type { Outage } from './progress/progress.js';
import { ProgressTracker } from './progress/progress.js';
import { CAUSE_WORDS, WAITING_FOR, plainCause } from '../../shared/causes.js';
import { overnightRetrySchedule } from './scheduling/retry-schedule.js';
import { Bandwidth } from './scheduling/bandwidth.js';
import { Transitions } from './progress/transitions.js';

/** What the shared context needs from the engine that owns it: its events, its warnings (once per cause) and its fatal stop. */
export interface ContextHooks {
  emit(e: EngineEvent): void;
  warn(message: string): void;
  /** Stops the engine for good on a queue database failure; answers whether `err` was one (see EngineContext.fatal). */
  fatal(err: unknown): boolean;
}

/**
 * The engine's shared context (EngineContext) from its options, with their defaults (EngineOptions:
 * 4 requests at once, no bandwidth limit, stored parts written to the
 * queue within 100 ms, progress at most every 100 ms, the §8 recommended part retries, the overnight retry
 * schedule, STALL_TIMEOUT_MS stall timeout, 15 000 ms to settle a part in doubt, 3 presign rounds, 3 resume rounds). Built once by UploadEngine.
 * Throws RangeError for a bad bandwidth limit (Bandwidth).
 */
export function buildContext(opts: EngineOptions, hooks: ContextHooks): EngineContext {
  const bandwidth = new Bandwidth(opts.bandwidthBytesPerSecond ?? null);
  const stallTimeoutMs = opts.stallTimeoutMs ?? STALL_TIMEOUT_MS;
  // The outage seen goes into the queue too, so `status` in another process says it.
  const outages = new OutageRecord(
    opts.queue.meta,
    (note) => ctx.transitions.note(note, note.subject),
    (err) => hooks.fatal(err),
  );
  // A gateway silence seen while storage was silent too (told as storage's outage, see below).
  let behindStorage = false;
  const ctx: EngineContext = {
    queue: opts.queue,
    gateway: opts.gateway,
    transitions: new Transitions(opts.queue, (e) => hooks.emit(e)),
    limiter: new Limiter(opts.concurrency ?? SETTINGS.concurrency.default),
    bandwidth,
    // A silent link is an outage from its last sign of life, on the screen, in `status` and in
    // the log alike (docs/engine.md, "A silent link").
    link: new LinkMonitor(
      bandwidth,
      stallTimeoutMs,
      (since, quietMs) => {
        // "Network down" is for when nothing at all answers: a gateway that answered since
        // storage fell quiet (the in-doubt asks of parts given up included) says storage is
        // slow, not the network gone.
        const cause = ctx.gatewayWatch.answeredWithin(quietMs) ? slowStorageCause(quietMs) : silentLinkCause(quietMs);
        const outage = ctx.tracker.trouble('storage', cause, Date.now(), since);
        if (outage) ctx.log.warn(outageLine(outage));
      },
      opts.minLinkRate,
    ),
    // A silent gateway likewise, from its last sign of life, until it answers again
    // (docs/engine.md, "A silent capture gateway").
    gatewayWatch: new GatewayMonitor(
      stallTimeoutMs,
      (since, quietMs, trickling) => {
        // Storage silent already, or quiet for half the stall timeout with parts open on it,
        // explains a gateway that waits on it (its status read asks storage) or on the same dead
        // network: one outage, one cause, told by the link (rule 1). Asked again at the next
        // check; once storage is back, the gateway's silence is counted afresh from then.
        if (
          ctx.tracker.outageWhere() === 'storage' ||
          (ctx.link.asking() && performance.now() - ctx.link.lastLife() >= stallTimeoutMs / 2)
        ) {
          behindStorage = true;
          return false;
        }
        if (behindStorage) {
          behindStorage = false;
          ctx.gatewayWatch.afresh();
          return false;
        }
        const cause = trickling ? slowGatewayCause(quietMs) : silentGatewayCause(quietMs);
        const outage = ctx.tracker.trouble('gateway', cause, Date.now(), since);
        if (outage) ctx.log.warn(outageLine(outage));
      },
      () => ctx.tracker.answered('gateway'),
      opts.minLinkRate,
    ),
    ledger: new PartLedger(
      opts.queue,
      100,
      (err) => hooks.fatal(err) || ctx.log.warn(`Could not record stored parts: ${String(err)}`),
    ),
    tracker: new ProgressTracker((files, overall) => {
      outages.seen(overall.outage);
      hooks.emit({ type: 'progress', files, overall });
    }, opts.progressIntervalMs ?? 100),
    outages,
    log: opts.log ?? { info: () => {}, warn: () => {} },
    partRetry: opts.partRetry ?? recommendedRetryPolicy(),
    retrySchedule: opts.retrySchedule ?? overnightRetrySchedule(),
    stallTimeoutMs,
    answerSettleMs: opts.answerSettleMs ?? IN_DOUBT_SETTLE_MS,
    maxResigns: opts.maxResigns ?? 3,
    maxRounds: opts.maxRounds ?? 3,
    warn: (message) => hooks.warn(message),
    fatal: (err) => hooks.fatal(err),
    storageAsked: () => {
      // The gateway answered storage's own list of parts: something answers, so an outage at
      // storage said "network down" is over, and storage's silence counts afresh: if it lasts,
      // it is told again as storage answering too slowly (the gateway answered since).
      const cause = ctx.tracker.outageCause();
      if (ctx.tracker.outageWhere() !== 'storage' || cause === null || plainCause(cause) !== CAUSE_WORDS.network)
        return;
      ctx.tracker.answered('storage');
      ctx.link.alive();
    },
  };
  opts.gateway.watchCalls(() => ctx.gatewayWatch.call());
  return ctx;
}

/**
 * An outage as the engine's log says it: the headline's words and the cause in the one wording
 * of shared/causes.ts, then the service's message: "Waiting for storage since
 * 2026-11-27T02:10:00.000Z: storage unavailable — No answer from storage for 60 s: …".
 */
function outageLine(o: Outage): string {
  return `${WAITING_FOR[o.where]} since ${new Date(o.since).toISOString()}: ${plainCause(o.cause)} — ${o.cause}`;
}
