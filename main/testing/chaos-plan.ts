import type { FaultRuleInput } from '../../e2e/service/testing.js';
import { MiB, prng } from './kit.js';

/**
 * The chaos check's plan of one run, drawn from a seed alone (FoundationDB's simulation tests,
 * Jepsen's nemeses): the card, the local service's faults at their instants, the signals sent to
 * the uploader's process and when the faults are cleared. The same seed always draws the same
 * plan, so a failing run is replayed by its seed (`npm run chaos -- --seed N`). Test code only;
 * what the run does with it is main/testing/chaos-run.ts, and docs/testing.md#the-chaos-check says
 * what it asserts.
 */

/** The part size of the local service's uploads (bytes): S3's least for all parts but the last. */
export const CHAOS_PART_SIZE = 5 * MiB;

/** The most parts one card holds in all, whatever its recordings drew: sized for CI's 20 runs. */
export const CHAOS_MAX_CARD_PARTS = 12;

/** One file of a recording: its name on the card and its size (bytes). */
interface ChaosFile {
  name: string;
  size: number;
}

/** One recording of the card: a dual-lens pair (`_00_` and `_10_` .insv) or a single `.mp4`. */
interface ChaosRecording {
  files: ChaosFile[];
}

/** Who the signals go to: the CLI (`add`/`import`, then `drain`), or the app's upload service process under its host. */
type ChaosTarget = 'cli' | 'service';

/** A signal the chaos sends; SIGSTOP only to the service process (a hang: the host must notice it). */
export type ChaosSignal = 'SIGKILL' | 'SIGTERM' | 'SIGINT' | 'SIGHUP' | 'SIGSTOP';

/**
 * A signal of the plan: sent to the process of step `step` (`queue`: the `add` or `import`;
 * `drain`: the n-th drain; `service`: the service process then running) `afterMs` (ms) after that
 * process's work reached the local service: an `add`'s first add-capture (its registration on the
 * wire), a drain's or the service's first part PUT; an `import`, which copies the card before it
 * registers, `afterMs` after it started. Not sent when the process has ended by then.
 */
export interface ChaosKill {
  step: 'queue' | 'drain' | 'service';
  signal: ChaosSignal;
  afterMs: number;
}

/**
 * Where a run's instants are counted from (ms on the monotonic clock): `registration`, the run's
 * first request to the service (the sign-in before the first add-capture); `upload`, its first part
 * PUT. Counted from the work rather than the run's start, a fault meets the same step of the work
 * on a loaded machine, where a process takes seconds longer to start, as on a quiet one.
 */
type ChaosAnchor = 'registration' | 'upload';

/**
 * One fault of the plan, put in `atMs` after its `anchor` and in force until it has fired its
 * `times` or the run's faults are cleared: a local service rule (e2e/service/faults.ts), or a
 * change of its settings (undone when the faults are cleared). A fault of the registration at 0
 * is in place before the run starts. `kind` names it for the figures (`storage 403 html`, `gateway
 * slow body`); `answers` marks the kinds of the `--answers` set.
 */
export interface ChaosFault {
  anchor: ChaosAnchor;
  atMs: number;
  kind: string;
  rule?: FaultRuleInput;
  settings?: Record<string, unknown>;
  answers?: boolean;
}

/** A run's plan: everything it does, drawn from `seed`. */
export interface ChaosPlan {
  seed: number;
  /** Whether the answers of the `--answers` set were drawn too (bad part lists, empty finalize answers, hostile ids). */
  answers: boolean;
  target: ChaosTarget;
  /** How the CLI queues the card: `add` of its folder, or `import` into a library with placement. */
  queueBy: 'add' | 'import';
  /** The CLI's `--concurrency` (parts at once), 1–4. */
  concurrency: number;
  /** The card's local time stamp (ms since 1970, UTC) of its first recording; one minute apart after it. */
  recordedAt: number;
  recordings: ChaosRecording[];
  /** Storage's bandwidth while the faults are in force (bytes per second), so that parts are on the wire when they strike. */
  bandwidth: number;
  faults: ChaosFault[];
  kills: ChaosKill[];
  /**
   * When the faults are cleared: this long (ms) after the first part PUT, or, when no part is
   * sent by then, HEAL_WITHOUT_UPLOAD_MS more after the first request. The run then goes on to its
   * end without them.
   */
  healAtMs: number;
}

/** When no part was sent at all, the faults are cleared this long (ms) after the run's first request plus `healAtMs`. */
export const HEAL_WITHOUT_UPLOAD_MS = 5000;

/** What a plan is drawn with besides its seed. */
export interface ChaosPlanOptions {
  /** Draw the `--answers` set too (off by default until the client's fixes for them have landed). */
  answers?: boolean;
}

const SIGNALS: ChaosSignal[] = ['SIGKILL', 'SIGTERM', 'SIGINT', 'SIGHUP'];

/**
 * Draws the plan of run `seed` (an integer). Deterministic: the same seed and options always
 * give the same plan; the `--answers` faults are drawn from a stream of their own, so turning
 * them on adds faults without changing the rest of the plan.
 */
export function drawPlan(seed: number, opts: ChaosPlanOptions = {}): ChaosPlan {
  const r = prng(seed);
  const int = (lo: number, hi: number) => lo + Math.floor(r() * (hi - lo + 1));
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;

  const target: ChaosTarget = r() < 0.75 ? 'cli' : 'service';
  const queueBy = r() < 0.7 ? 'add' : 'import';
  const concurrency = int(1, 4);
  // Recordings 1–6 and parts 1–12 a file, small ones more often (r³), then the card held to
  // CHAOS_MAX_CARD_PARTS in all by shrinking its largest files.
  const count = 1 + Math.floor(6 * r() ** 2);
  const shapes = Array.from({ length: count }, () => ({
    lenses: r() < 0.5 ? 2 : 1,
    parts: [] as number[],
  }));
  for (const s of shapes) s.parts = Array.from({ length: s.lenses }, () => 1 + Math.floor(12 * r() ** 3));
  for (let total = sum(shapes.flatMap((s) => s.parts)); total > CHAOS_MAX_CARD_PARTS; total--) {
    const largest = shapes.flatMap((s) => s.parts.map((p, i) => ({ s, i, p }))).sort((a, b) => b.p - a.p)[0]!;
    largest.s.parts[largest.i]! -= 1;
  }
  // A stamp of its own for each seed (six minutes apart), so that no two runs name a file alike.
  const recordedAt = Date.UTC(2026, 0, 1, 6) + seed * 6 * 60_000;
  const recordings = shapes.map((s, i) => {
    const stamp = insta360Stamp(recordedAt + i * 60_000);
    const nnn = String(i + 1).padStart(3, '0');
    const lastPart = () => int(1, CHAOS_PART_SIZE);
    const size = (parts: number) => (parts - 1) * CHAOS_PART_SIZE + lastPart();
    const files =
      s.lenses === 2
        ? [
            { name: `VID_${stamp}_00_${nnn}.insv`, size: size(s.parts[0]!) },
            { name: `VID_${stamp}_10_${nnn}.insv`, size: size(s.parts[1]!) },
          ]
        : [{ name: `VID_${stamp}_00_${nnn}.mp4`, size: size(s.parts[0]!) }];
    return { files };
  });
  const bytes = sum(recordings.flatMap((rec) => rec.files.map((f) => f.size)));
  // The card takes 2–5 s to send at this rate: long enough for faults and signals to meet parts on the wire.
  const bandwidth = Math.max(MiB, Math.round(bytes / (2 + 3 * r())));

  const faults: ChaosFault[] = [];
  const nFaults = int(1, 6);
  for (let i = 0; i < nFaults; i++) {
    const fault = drawFault(r, int, pick);
    // Registration is over within a second of the first request: a fault on it is in place from the start, or comes soon after.
    // Presigning comes before a file's first part: half the faults on it are in place from the start too.
    const op = fault.rule?.operation;
    const early = op === 'add-capture' || op === 'signin' || (op === 'presign-missing' && r() < 0.5);
    const atMs = early ? (r() < 0.7 || op === 'presign-missing' ? 0 : int(1, 300)) : int(0, 4000);
    faults.push({ anchor: early ? 'registration' : 'upload', atMs, ...fault });
  }
  if (opts.answers) {
    const a = prng(seed ^ 0x5eed_a45);
    const aInt = (lo: number, hi: number) => lo + Math.floor(a() * (hi - lo + 1));
    const nAnswers = aInt(1, 2);
    for (let i = 0; i < nAnswers; i++) {
      const fault = drawAnswer(a, aInt);
      const early =
        fault.rule?.operation === 'add-capture' || (fault.rule?.operation === 'presign-missing' && a() < 0.5);
      faults.push({
        anchor: early ? 'registration' : 'upload',
        atMs: early ? 0 : aInt(0, 3000),
        answers: true,
        ...fault,
      });
    }
  }

  const kills: ChaosKill[] = [];
  const nKills = pick([0, 1, 1, 2, 2, 3]);
  for (let i = 0; i < nKills; i++) {
    if (target === 'service') {
      // A stop (SIGSTOP) is a hang of the service: rare, since noticing it takes the host's deadline.
      kills.push({ step: 'service', signal: r() < 0.1 ? 'SIGSTOP' : pick(SIGNALS), afterMs: int(0, 2000) });
      continue;
    }
    const step = i === 0 && r() < 0.4 ? 'queue' : 'drain';
    let afterMs = int(0, 2000);
    if (step === 'queue' && queueBy === 'add') {
      // The gateway is slow to answer add-capture, so the signal lands while registrations are on the wire.
      const ms = int(300, 1500);
      faults.push({
        anchor: 'registration',
        atMs: 0,
        kind: 'gateway slow to register',
        rule: { target: 'gateway', operation: 'add-capture', times: 0, action: { type: 'latency', ms } },
      });
      afterMs = int(0, ms);
    } else if (step === 'queue') afterMs = int(300, 3000); // an import copies for a second or more before it registers
    kills.push({ step, signal: pick(SIGNALS), afterMs });
  }
  // Now and then storage refuses parts (presigned URLs that expire within a second, an HTML 403
  // as a proxy or a network's sign-in page answers), and the presigns again that follow are
  // refused too a little later: faults that meet.
  if (r() < 0.15) {
    const atMs = int(0, 1000);
    faults.push(
      { anchor: 'upload', atMs, kind: 'presigned URLs expiring', settings: { presignExpiresIn: 1 } },
      {
        anchor: 'upload',
        atMs: atMs + int(0, 700),
        kind: 'storage 403 html',
        rule: {
          target: 'storage',
          operation: 'UploadPart',
          skip: int(0, 1),
          times: int(1, 2),
          action: { type: 'html', status: 403 },
        },
      },
      {
        anchor: 'upload',
        atMs: atMs + int(1500, 3000),
        kind: 'gateway presign again refused',
        rule: {
          target: 'gateway',
          operation: 'presign-missing',
          times: int(1, 2),
          action: { type: 'status', status: pick([500, 501, 503]) },
        },
      },
    );
  }
  // Now and then a proxy that buffers whole part bodies and delivers them slowly: a part is then
  // in doubt for longer than the client waits for its answer (a minute or more: rare, for its cost).
  if (r() < 0.08)
    faults.push({
      anchor: 'upload',
      atMs: int(0, 2000),
      kind: 'storage behind a buffering proxy',
      rule: {
        target: 'storage',
        operation: 'UploadPart',
        times: 1,
        action: { type: 'bufferedBody', bytesPerSecond: int(48, 128) * 1024 },
      },
    });
  faults.sort((x, y) => (x.anchor === y.anchor ? x.atMs - y.atMs : x.anchor === 'registration' ? -1 : 1));
  const lastFault = Math.max(0, ...faults.filter((f) => f.anchor === 'upload').map((f) => f.atMs));
  const healAtMs = lastFault + int(1500, 4000);
  return {
    seed,
    answers: !!opts.answers,
    target,
    queueBy,
    concurrency,
    recordedAt,
    recordings,
    bandwidth,
    faults,
    kills,
    healAtMs,
  };
}

/** One fault of the common set: storage and the gateway alike, each with how often it fires. */
function drawFault(
  r: () => number,
  int: (lo: number, hi: number) => number,
  pick: <T>(xs: readonly T[]) => T,
): Omit<ChaosFault, 'atMs' | 'anchor'> {
  const times = pick([1, 1, 1, 2, 3, 0]); // 0: every match until the faults are cleared
  const skip = pick([0, 0, 1, 2]);
  const where = r() < 0.55 ? 'storage' : 'gateway';
  if (where === 'storage') {
    const scope = { target: 'storage' as const, operation: 'UploadPart', skip };
    const kinds: (() => Omit<ChaosFault, 'atMs' | 'anchor'>)[] = [
      ...refusals('storage', scope, times, int),
      () => ({
        kind: 'storage reset before the last byte',
        rule: { ...scope, times, action: { type: 'reset', afterBytes: int(1, CHAOS_PART_SIZE - 1) } },
      }),
      () => ({
        kind: 'storage reset after the last byte, stored',
        rule: { ...scope, times: int(1, 2), action: { type: 'dropWhileStoring' } },
      }),
      () => ({
        kind: 'storage reset after the last byte, not stored',
        rule: { ...scope, times: int(1, 2), action: { type: 'resetAfterBody' } },
      }),
      () => ({ kind: 'storage hang', rule: { ...scope, times: int(1, 2), action: { type: 'hang' } } }),
      () => ({
        kind: 'storage latency',
        rule: { ...scope, times, action: { type: 'latency', ms: int(200, 3000) } },
      }),
      () => ({
        kind: 'storage slow body',
        rule: { ...scope, times: 1, action: { type: 'slowBody', bytesPerSecond: int(64, 512) * 1024 } },
      }),
      () => ({ kind: 'storage slow to store', settings: { partStoreDelayMs: int(500, 20_000) } }),
      () => ({ kind: 'presigned URLs expiring', settings: { presignExpiresIn: int(1, 3) } }),
    ];
    return pick(kinds)();
  }
  const operation = pick([
    'signin',
    'add-capture',
    'add-capture',
    'presign-missing',
    'presign-missing',
    'complete-batch',
    'complete-batch',
    'status',
  ]);
  const scope = { target: operation === 'signin' ? ('auth' as const) : ('gateway' as const), operation, skip };
  const kinds: (() => Omit<ChaosFault, 'atMs' | 'anchor'>)[] = [
    ...refusals('gateway', scope, times, int),
    () => ({ kind: 'gateway reset', rule: { ...scope, times, action: { type: 'reset' } } }),
    () => ({ kind: 'gateway hang', rule: { ...scope, times: 1, action: { type: 'hang' } } }),
    () => ({ kind: 'gateway latency', rule: { ...scope, times, action: { type: 'latency', ms: int(200, 3000) } } }),
    () => ({
      kind: 'gateway slow body',
      rule: { ...scope, times: 1, action: { type: 'slowBody', bytesPerSecond: int(1, 50) } },
    }),
    () => ({
      kind: 'gateway answer lost after acting',
      rule: { ...scope, times: 1, action: { type: 'dropResponse', afterMs: int(0, 2000) } },
    }),
    () => ({
      kind: 'gateway 5xx after acting',
      rule: { ...scope, times: 1, action: { type: 'statusAfterActing', status: pick([500, 503]) } },
    }),
    () => ({ kind: 'gateway latency on every call', settings: { latencyMs: int(50, 500) } }),
  ];
  return pick(kinds)();
}

/**
 * The refusals storage and the gateway alike are drawn from, for a rule of `scope`: an HTML 403,
 * 429 without and with `Retry-After` (1–3 s), 500, 501 and 503; `times` as drawn (501 and the
 * HTML page once or twice).
 */
function refusals(
  where: 'storage' | 'gateway',
  scope: Omit<FaultRuleInput, 'action' | 'times'>,
  times: number,
  int: (lo: number, hi: number) => number,
): (() => Omit<ChaosFault, 'atMs' | 'anchor'>)[] {
  const status = (status: number, n = times, retryAfter?: string) => ({
    ...scope,
    times: n,
    action: { type: 'status' as const, status, ...(retryAfter ? { retryAfter } : {}) },
  });
  return [
    () => ({ kind: `${where} 403 html`, rule: { ...scope, times: int(1, 2), action: { type: 'html', status: 403 } } }),
    () => ({ kind: `${where} 429`, rule: status(429) }),
    () => ({ kind: `${where} 429 Retry-After`, rule: status(429, times, String(int(1, 3))) }),
    () => ({ kind: `${where} 500`, rule: status(500) }),
    () => ({ kind: `${where} 501`, rule: status(501, int(1, 2)) }),
    () => ({ kind: `${where} 503`, rule: status(503) }),
  ];
}

/** One fault of the `--answers` set: a presign list that does not fit the file, an empty finalize answer, hostile ids. */
function drawAnswer(a: () => number, int: (lo: number, hi: number) => number): Omit<ChaosFault, 'atMs' | 'anchor'> {
  const n = int(0, 2);
  if (n === 0) {
    const mode = (['beyond', 'missing', 'duplicate', 'swap', 'zero', 'fileUrl'] as const)[int(0, 5)]!;
    return {
      kind: `answer: part list ${mode}`,
      rule: { target: 'gateway', operation: 'presign-missing', times: int(1, 2), action: { type: 'badParts', mode } },
    };
  }
  if (n === 1) {
    const status = a() < 0.5 ? 200 : 204;
    return {
      kind: `answer: empty finalize ${status}`,
      rule: {
        target: 'gateway',
        operation: 'complete-batch',
        times: int(1, 2),
        action: { type: 'emptyAfterActing', status },
      },
    };
  }
  return {
    kind: 'answer: hostile ids',
    rule: { target: 'gateway', operation: 'add-capture', times: int(1, 3), action: { type: 'hostileIds' } },
  };
}

/** `YYYYMMDD_HHMMSS` of a time (UTC), as an Insta360 file name carries it. */
function insta360Stamp(ms: number): string {
  const d = new Date(ms);
  const p = (n: number) => String(n).padStart(2, '0');
  return `${d.getUTCFullYear()}${p(d.getUTCMonth() + 1)}${p(d.getUTCDate())}_${p(d.getUTCHours())}${p(d.getUTCMinutes())}${p(d.getUTCSeconds())}`;
}

const sum = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0);

/** The command that replays run `seed` as it was drawn. */
export function replayCommand(seed: number, opts: ChaosPlanOptions = {}): string {
  return `npm run chaos -- --seed ${seed}${opts.answers ? ' --answers' : ''}`;
}
