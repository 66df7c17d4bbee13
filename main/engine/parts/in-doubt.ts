import { setTimeout as sleep } from 'node:timers/promises';
import { CancelledError } from '../../api/errors.js';
import type { LinkMonitor } from '../outages/link.js';

// Parts in doubt: every byte of a part left this computer, but the work stopped
// (quit, pause, cancel) before storage answered. Storage keeps a part whose whole body arrived
// even when the client has gone (a TCP reset does not take back what already sits in storage's
// receive buffer), and stores it only after its own work (MD5, encryption, replication), so for
// a while after the stop presign-missing (§4.5) still lists a part storage is about to have.
//
// What the interface offers to find out (capture-upload-interface.md): presign-missing "only
// parts not yet in storage", repeatable "at any time", and the §4.9 status read with
// syncFromS3=true; no lookup of one part, no conditional PUT (§4.6 sends no header), nothing that
// says "storage is still working on it". A careful client therefore (1) gives a fully sent part a
// few seconds for its answer when quitting (ANSWER_GRACE_ON_STOP_MS), and (2) writes the part as
// unanswered in the queue before the work unwinds (migration 10), and (3) at the next start asks
// again (status read, else presign-missing) until the part shows or IN_DOUBT_SETTLE_MS have
// passed since it was given up, and only then sends it again. Waiting costs seconds once; sending
// again costs the whole part over a site link and leaves storage with a second copy.
//
// The same race within one run: the connection drops after the last byte, before storage answers
// (a proxy cutting long uploads, a flaky NAT), while storage is still storing the part. The part
// is marked unanswered at once (so a crash meanwhile is covered as above), and AnswerSettler asks
// again over the settle time (EngineOptions.answerSettleMs, default IN_DOUBT_SETTLE_MS), without
// holding a request slot, before the part is sent again. A part whose body did not all leave
// (dropped mid-body) is no doubt: storage keeps no partial part, so it is sent again at once.

/** On quit (the engine's stop, Ctrl-C), how long a part whose every byte went out waits for its answer (ms). */
export const ANSWER_GRACE_ON_STOP_MS = 5000;
/**
 * How long after a part in doubt was given up the next start keeps asking whether storage has it
 * before sending it again (ms). Real S3 answers a part well inside a second after its last byte;
 * 15 s leaves room for a slow storage node and for bytes still in flight when the connection was reset.
 */
export const IN_DOUBT_SETTLE_MS = 15_000;
/** Between two questions to the service about parts in doubt (ms). */
const ASK_EVERY_MS = 1000;
/**
 * Within a run, the gaps between questions double from ASK_EVERY_MS up to this (ms): questions at
 * about 0, 1, 3, 7, 11 and 15 s. Where the gateway has no status read each question is a
 * presign-missing call that presigns every part still missing (up to 10,000), so a question every
 * second for 15 s would be 15 of those per doubt; storage answers most parts within the first second.
 */
const ASK_GAP_MAX_MS = 4000;

/** The reason the engine's stop (quit, Ctrl-C) aborts file tasks with: a fully sent part then waits longer for its answer. */
export class EngineStopping extends CancelledError {
  constructor() {
    super('Stopped');
  }
}

/**
 * A part was stopped (quit, pause, cancel) after every byte left this computer and before
 * storage answered: storage may store it yet. `md5Etag` is the quoted MD5 of the bytes sent.
 * A CancelledError, so everything that stops on cancellation stops on it.
 */
export class UnansweredPartError extends CancelledError {
  constructor(readonly md5Etag: string) {
    super('Stopped after the whole part was sent, before storage answered');
  }
}

/**
 * Asks `missingNow` (the part numbers storage lacks now: the §4.9 status read, else
 * presign-missing) until every part of `parts` is found in storage or its settle time is over:
 * IN_DOUBT_SETTLE_MS after its `unansweredAt` (ms since 1970, the wall clock of the run that gave
 * it up), never longer than IN_DOUBT_SETTLE_MS from now (a wall clock stepped back cannot
 * stretch it); waits between questions on the monotonic clock. Returns the part numbers found in
 * storage (their ETag is rebuilt from their bytes by the caller). Throws what `missingNow` throws,
 * and CancelledError when `signal` aborts.
 */
export async function settleInDoubt(
  parts: readonly { partNumber: number; unansweredAt: number }[],
  missingNow: () => Promise<Set<number>>,
  signal: AbortSignal,
  settleMs = IN_DOUBT_SETTLE_MS,
): Promise<Set<number>> {
  const start = performance.now();
  const wall = Date.now();
  const until = new Map(
    parts.map((p) => [p.partNumber, start + Math.min(settleMs, Math.max(0, p.unansweredAt + settleMs - wall))]),
  );
  const found = new Set<number>();
  for (;;) {
    const missing = await missingNow();
    for (const n of until.keys()) {
      if (missing.has(n)) continue;
      found.add(n);
      until.delete(n);
    }
    const now = performance.now();
    const last = Math.max(...until.values());
    if (until.size === 0 || now >= last) return found;
    try {
      await sleep(Math.min(ASK_EVERY_MS, last - now), undefined, { signal });
    } catch {
      throw new CancelledError();
    }
  }
}

/**
 * What a long settle (a part this client gave up waiting for) reads of the link and tells the
 * engine: the link's view (its last sign of life, the bytes in doubt, the slowest rate assumed),
 * the stall timeout (ms) that caps the gaps between questions at half of it, and the engine's
 * hook told each time the gateway answers a question (EngineContext.storageAsked).
 */
export interface LongSettle {
  link: Pick<LinkMonitor, 'lastDoubtFound' | 'inDoubtBytes' | 'slowestRate' | 'doubtFound' | 'overtook'>;
  stallTimeoutMs: number;
  answered(): void;
}

/**
 * Until when (monotonic ms) a part given up for lack of an answer at `givenUpAt` is still asked
 * for before it is sent again: from the later of its giving up and the last time storage turned
 * out to hold such a part (the link is delivering what is in doubt), the settle time, or longer:
 * every byte in doubt on the link at the slowest rate it is assumed to carry, since they share it
 * and sending one again costs its bytes over the same link (docs/engine.md, "A silent link").
 * Other parts answered meanwhile do not move it: on a link that answers, a part truly lost is
 * sent again once its own share has passed, or at once when storage stored a part of at least
 * its `bytes` sent after it was given up (LinkMonitor.overtook): the link delivers what is sent
 * on it, and not this part.
 */
function longSettleUntil(givenUpAt: number, settleMs: number, long: LongSettle, bytes?: number): number {
  if (bytes !== undefined && long.link.overtook(givenUpAt, bytes)) return givenUpAt;
  const share = (long.link.inDoubtBytes * 1000) / long.link.slowestRate();
  return Math.max(givenUpAt, long.link.lastDoubtFound()) + Math.max(settleMs, share);
}

/**
 * Settles parts in doubt within a run, for one file: `settle(n)` resolves true as soon as
 * `missingNow` (the part numbers storage lacks now: §4.9 status read, else presign-missing §4.5)
 * no longer lists part n, false once `settleMs` (monotonic clock, from the call) passed with it
 * still listed. One question at a time serves every part waiting, asked at once for the first
 * and then at gaps doubling from 1 s to 4 s (ASK_EVERY_MS, ASK_GAP_MAX_MS) while any waits; nothing else is held meanwhile
 * (no request slot), so other parts and files go on uploading. Every waiting part rejects with
 * what `missingNow` throws, and with CancelledError when `signal` aborts.
 *
 * A part this client gave up waiting for (`settle(n, true)`: the stall rules or its deadline
 * ended the wait; its bytes may still be on a slow link or in a proxy that holds them) settles
 * longer, until longSettleUntil, recomputed at each question, and the gaps double on up to half
 * the stall timeout (at least 4 s); a part found that way is a sign of life of the link. Each
 * answered question is told to `long.answered()`.
 */
export class AnswerSettler {
  private readonly waiting = new Map<
    number,
    { until: () => number; long: boolean; done(found: boolean): void; fail(err: unknown): void }
  >();
  private asking = false;

  constructor(
    private readonly missingNow: () => Promise<Set<number>>,
    private readonly settleMs: number,
    private readonly signal: AbortSignal,
    private readonly long?: LongSettle,
  ) {}

  /**
   * Waits for part `partNumber` to show in storage; `givenUp`: this client gave up waiting for its
   * answer (a long settle), and `bytes`, when known, its size, which ends the long settle once a
   * part as large, sent after it was given up, is stored. See the class comment.
   */
  settle(partNumber: number, givenUp = false, bytes?: number): Promise<boolean> {
    if (this.signal.aborted) return Promise.reject(new CancelledError());
    return new Promise<boolean>((resolve, reject) => {
      const from = performance.now();
      const long = givenUp ? this.long : undefined;
      const until = long ? () => longSettleUntil(from, this.settleMs, long, bytes) : () => from + this.settleMs;
      this.waiting.set(partNumber, { until, long: long !== undefined, done: resolve, fail: reject });
      if (this.asking) return; // the running loop takes it at its next question
      this.asking = true;
      void this.ask();
    });
  }

  private async ask(): Promise<void> {
    let gap = ASK_EVERY_MS;
    try {
      while (this.waiting.size > 0) {
        const missing = await this.missingNow();
        this.long?.answered();
        const now = performance.now();
        for (const [n, w] of this.waiting) {
          if (missing.has(n) && now < w.until()) continue;
          this.waiting.delete(n);
          // Storage took its bytes after all: the link delivers (docs/engine.md, "A silent link").
          if (w.long && !missing.has(n)) this.long?.link.doubtFound();
          w.done(!missing.has(n));
        }
        if (this.waiting.size === 0) break;
        const waits = [...this.waiting.values()];
        const next = Math.min(...waits.map((w) => w.until()));
        const cap = waits.every((w) => w.long)
          ? Math.max(ASK_GAP_MAX_MS, (this.long?.stallTimeoutMs ?? 0) / 2)
          : ASK_GAP_MAX_MS;
        await sleep(Math.max(0, Math.min(gap, next - now)), undefined, { signal: this.signal });
        gap = Math.min(gap * 2, cap);
      }
    } catch (err) {
      const reason = this.signal.aborted ? new CancelledError() : err;
      for (const w of this.waiting.values()) w.fail(reason);
      this.waiting.clear();
    } finally {
      this.asking = false; // at once, before any settle() that follows a resolution can look
    }
  }
}
