import { WAITING_FOR, plainCause } from './causes.js';
import { localTime, warnedPhrase } from './night-summary.js';
import type { QueueHoldView, QueueTotals } from './ipc.js';

/**
 * What the whole queue is doing, computed once and shown the same in the app's headline, the
 * tray tooltip and the first line of `capture-uploader status`.
 * `kind` for code and tests; `headline` in a word or three ("Waiting for storage"); `detail` the
 * rest of the sentence or null ("since 19:42 · storage unavailable · next try 19:45 · nothing
 * lost"); `tone` a CSS class; `since`/`nextTry` ms since epoch or null; `etaSeconds` for the
 * whole queue from the acknowledged-bytes speed, null ("unknown") when it cannot be said honestly.
 */
export interface QueueState {
  kind:
    | 'idle'
    | 'card-removed'
    | 'paused-until'
    | 'waiting-storage'
    | 'waiting-gateway'
    | 'uploading'
    | 'waiting'
    | 'retrying'
    | 'paused'
    | 'needs-you'
    | 'done'
    | 'done-with-warnings';
  headline: string;
  detail: string | null;
  tone: 'moving' | 'retrying' | 'paused' | 'needs-you' | 'done' | 'idle';
  since: number | null;
  nextTry: number | null;
  etaSeconds: number | null;
}

/**
 * What the state is computed from besides the totals: the credentials refused (`blocked`), the
 * queue-wide hold, the time now (ms) and the locale its times are written in (BCP 47, for tests;
 * the system's when absent).
 */
export interface QueueStateInput {
  blocked?: string | null;
  hold?: QueueHoldView | null;
  now?: number;
  locale?: string;
}

/**
 * A retry time (ms since the epoch) as a person reads it, never in the past: "any
 * moment" when it is due or overdue (the engine takes it up at once), else the one time format
 * (shared/night-summary.ts localTime: the locale's clock, the date when not today).
 */
export function retryTime(at: number, now = Date.now(), locale?: string): string {
  return at <= now + 1000 ? 'any moment' : localTime(at, { now, locale });
}

/**
 * What a file (or a capture of such files) waiting for its retry says, in the rows and in
 * `status`: "Retrying at 14:11" while its time (ms since the epoch) is ahead; once the time has
 * come, "Retry due since 14:09": it waits for a free request slot, which it takes before any file
 * not yet tried (docs/decisions/0005-fair-order.md). "Retrying now" is said only while its
 * request is on the wire (an uploading file with earlier attempts), never of a file that waits.
 * Times in the one time format (localTime: the locale's clock, the date when not today).
 */
export function retryWait(at: number, now = Date.now(), locale?: string): string {
  return at > now
    ? `Retrying at ${localTime(at, { now, locale })}`
    : `Retry due since ${localTime(at, { now, locale })}`;
}

/**
 * The queue's state from its totals (shared/ipc.ts QueueTotals): before anything else, while
 * work is left, "Needs you" when the service refuses the credentials (nothing moves until a
 * person corrects them in Settings: the same words as any other stop that waits for a person),
 * "Card removed: put it back to
 * continue (48 recordings waiting)" when a card was pulled while its recordings uploaded straight
 * from it (one state for the card, not a failure per file), "Paused until 07:00" during a
 * queue-wide hold, "Waiting for storage" / "Waiting for the gateway" during an outage (since when,
 * the cause in plain words, the next try, "nothing lost"); then "Uploading", "Waiting" (files
 * about to start), "Waiting to retry", "Paused", "Needs you (n)", "All n files uploaded" (", 2
 * captures with warnings" when some carry warnings:).
 */
export function queueState(t: QueueTotals, input: QueueStateInput = {}): QueueState {
  const now = input.now ?? Date.now();
  const locale = input.locale;
  const nextTry = t.nextRetryAt ?? null;
  const base = { detail: null, since: null, nextTry, etaSeconds: null };
  const counted = t.files - t.cancelled;
  if (counted === 0) return { ...base, kind: 'idle', headline: 'Nothing queued', tone: 'idle' };
  const left = counted - t.completed - t.needYou;
  if (input.blocked && left > 0)
    return {
      ...base,
      kind: 'needs-you',
      headline: 'Needs you',
      detail: `${input.blocked} Nothing queued is lost.`,
      tone: 'needs-you',
    };
  const card = t.cardRemoved;
  if (card && card.cards > 0 && card.recordings > 0)
    return { ...base, kind: 'card-removed', ...cardRemovedState(card), tone: 'paused' };
  if (input.hold && left > 0) {
    const until = input.hold.until ? Date.parse(input.hold.until) : null;
    return {
      ...base,
      kind: 'paused-until',
      headline: until === null ? 'Paused' : `Paused until ${localTime(until, { now, locale })}`,
      detail: input.hold.by === 'timetable' ? 'by the bandwidth timetable' : null,
      tone: 'paused',
    };
  }
  const outage = t.outage;
  if (outage && left > 0) {
    const next = nextTry === null ? 'next try any moment' : `next try ${retryTime(nextTry, now, locale)}`;
    return {
      ...base,
      kind: outage.where === 'storage' ? 'waiting-storage' : 'waiting-gateway',
      headline: WAITING_FOR[outage.where],
      detail: `since ${localTime(outage.since, { now, locale })} · ${plainCause(outage.cause)} · ${next} · nothing lost`,
      tone: 'retrying',
      since: outage.since,
    };
  }
  const eta = t.bytesPerSecond > 0 ? Math.ceil(t.bytesRemaining / t.bytesPerSecond) : null;
  if (t.uploading > 0) return { ...base, kind: 'uploading', headline: 'Uploading', tone: 'moving', etaSeconds: eta };
  if (t.queued > 0) return { ...base, kind: 'waiting', headline: 'Waiting', tone: 'moving' };
  if (t.retrying > 0) {
    return {
      ...base,
      kind: 'retrying',
      headline: 'Waiting to retry',
      detail: nextTry === null ? null : `next try ${retryTime(nextTry, now, locale)} · nothing lost`,
      tone: 'retrying',
    };
  }
  if (t.paused > 0) return { ...base, kind: 'paused', headline: 'Paused', tone: 'paused' };
  if (t.needYou > 0) return { ...base, kind: 'needs-you', headline: `Needs you (${t.needYou})`, tone: 'needs-you' };
  const all = `All ${counted} file${counted === 1 ? '' : 's'} uploaded`;
  // Never plain green when a capture carries a warning: the finish says how many.
  const warned = t.capturesWarned ?? 0;
  if (warned > 0)
    return { ...base, kind: 'done-with-warnings', headline: `${all}, ${warnedPhrase(warned)}`, tone: 'retrying' };
  return { ...base, kind: 'done', headline: all, tone: 'done' };
}

/**
 * The words for pulled cards (shared/ipc.ts QueueTotals.cardRemoved), naming them as the person
 * reads them on the card: "Card X4_CARD removed: put it back to continue (48 recordings
 * waiting)", or for several "2 cards removed (X4_CARD, X3_CARD): put them back to continue (…)";
 * without names (an older queue), "Card removed: …". The detail says that nothing failed and no
 * click is needed.
 */
export function cardRemovedState(c: {
  cards: number;
  recordings: number;
  names?: readonly string[];
}): Pick<QueueState, 'headline' | 'detail'> {
  const waiting = `(${c.recordings} recording${c.recordings === 1 ? '' : 's'} waiting)`;
  const names = c.names ?? [];
  const headline =
    c.cards === 1
      ? `Card ${names[0] ? `${names[0]} ` : ''}removed: put it back to continue ${waiting}`
      : `${c.cards} cards removed${names.length ? ` (${names.join(', ')})` : ''}: put them back to continue ${waiting}`;
  return {
    headline,
    detail: `uploads resume by themselves once ${c.cards === 1 ? 'it is' : 'they are'} back, under any name · nothing lost`,
  };
}

/** The state as one line (tray tooltip, `status`): "Waiting for storage — since 19:42 · storage unavailable · next try 19:45 · nothing lost". */
export function queueStateLine(s: QueueState): string {
  return s.detail ? `${s.headline} — ${s.detail}` : s.headline;
}
