import { randomBytes } from 'node:crypto';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FaultAction, TestService } from '../../e2e/service/testing.js';
import type { SettingsView } from '../../shared/ipc.js';
import { HEARTBEAT } from '../service-host/heartbeat.js';
import { ServiceHost } from '../service-host/host.js';
import type { ChaosFault, ChaosKill, ChaosPlan, ChaosSignal } from './chaos-plan.js';
import { HEAL_WITHOUT_UPLOAD_MS } from './chaos-plan.js';
import type { DoubleWhy, QueueCaptureRow, QueueFileRow } from './chaos-checks.js';
import {
  addExitCodeFor,
  drainExitCodeFor,
  explainDouble,
  rawControlIn,
  readQueue,
  signalExitCode,
} from './chaos-checks.js';
import { addArgs, importArgs } from './e2e-cli.js';
import type { CliRun } from './kit.js';
import { sha256, spawnCli } from './kit.js';

/**
 * Runs one plan of the chaos check (main/testing/chaos-plan.ts) against a local service and
 * judges it (docs/testing.md#the-chaos-check). The card is written under `work`, queued by the CLI
 * (`add` or `import`) and drained, or registered through the app's upload service process under
 * its host; the faults go in at their instants, the signals land on the process at work, the faults
 * are cleared, and then a person does what the README says (decides registrations that are unknown
 * by looking at the platform, retries what failed, drains once more). Test code only.
 */

/**
 * Where a run happens: the local service (started in this process), a folder for the run's card
 * and queue, and the CLI to run: the built one (built-cli.ts `buildCli`'s `entry`), or from source
 * through tsx when absent.
 */
export interface ChaosEnv {
  svc: TestService;
  work: string;
  cli?: string;
}

/** One check a run failed, with what was seen. */
interface ChaosViolation {
  check:
    | 'exit-time'
    | 'exit-code'
    | 'hung'
    | 'registered-once'
    | 'bytes'
    | 'stored-twice'
    | 'unknown-after-signal'
    | 'finalize-counted'
    | 'output-controls'
    | 'healed'
    | 'service-liveness'
    | 'service-exit';
  detail: string;
}

/** One process of the run (the CLI, or a service process), as the transcript keeps it. */
interface ChaosProcess {
  label: string;
  pid?: number;
  /** ms on this process's monotonic clock (performance.now()). */
  spawnAt: number;
  exitAt?: number;
  code: number | null;
  signal: string | null;
  /** The signal the chaos sent it, and when (ms, monotonic). */
  sent?: { signal: ChaosSignal; at: number };
  /** Lines it printed, with when (ms, monotonic). */
  lines: { at: number; text: string }[];
}

/** A part stored twice: which, and why by the in-doubt rules (chaos-checks.ts explainDouble). */
interface ChaosDouble {
  file: string;
  part: number;
  why: DoubleWhy;
}

/** What one run did and found. */
export interface ChaosRunResult {
  plan: ChaosPlan;
  violations: ChaosViolation[];
  processes: ChaosProcess[];
  /** Faults drawn (rules and settings), and how many times a rule acted. */
  faultsDrawn: number;
  faultsFired: number;
  /** Each time a rule acted: when (ms after the run started), on which operation, which fault of the plan. */
  firings: { atMs: number; operation: string; kind: string }[];
  /** Signals drawn, and whether each reached a running process. */
  kills: { signal: ChaosSignal; step: ChaosKill['step']; delivered: boolean }[];
  doubles: ChaosDouble[];
  /** The longest time (ms) from a drain's summary line to its exit, and from any process's last line to its exit. */
  summaryToExitMs: number | null;
  lastLineToExitMs: number | null;
  /** Captures whose registration was left unknown, and of them those the person dropped (the platform had them). */
  unknown: number;
  dropped: number;
  durationMs: number;
}

/** A process still running this long after the faults were cleared (or after its start, if it started later) is hung (ms). */
const HUNG_AFTER_HEAL_MS = 90_000;
/** A process that printed its summary and is still running this long after is killed and reported (ms). */
const AFTER_SUMMARY_KILL_MS = 10_000;
/** A signal sent this close to a process's exit may land after its event loop ended, unread (ms). */
const LATE_SIGNAL_MS = 250;
/** The README's promise: a process exits within this long of its last line (ms). */
const EXIT_AFTER_LAST_LINE_MS = 5000;
/**
 * How long the host has to notice a service process that stopped (SIGSTOP) and start another
 * (ms): the heartbeat's promise (docs/decisions/0035-service-heartbeat.md), its silence deadline
 * counted from the service's last message plus one beat to see it, and 5 s for a loaded machine
 * to start the next process. 30 s flat failed 9 of 200 runs that kept the promise.
 */
const SERVICE_HANG_NOTICED_MS = HEARTBEAT.deadlineMs + HEARTBEAT.intervalMs + 5_000;
/** How long the service has, once the faults are cleared and a person retried, to complete every file (ms). */
const SERVICE_HEALED_MS = 120_000;

/** How long storage has, after the run, to store the parts it still holds (a buffering proxy's are the slowest: 5 MiB at 48 KiB/s, 107 s) (ms). */
const STORES_PENDING_MS = 150_000;

/** The settings the local service runs without faults (faults.ts defaults). */
const CLEAR_SETTINGS = {
  presignExpiresIn: 3600,
  bandwidthBytesPerSecond: null,
  latencyMs: 0,
  partStoreDelayMs: 0,
  storageRetryAfterSeconds: null,
  jsonBytesPerSecond: null,
};

const SUMMARY_LINE = /file\(s\) completed, \d+ failed/;

/** Runs `plan` in `env` and judges it. Never throws for what it finds: that is `violations`. */
export async function runChaos(env: ChaosEnv, plan: ChaosPlan): Promise<ChaosRunResult> {
  return new ChaosRun(env, plan).run();
}

class ChaosRun {
  private readonly dir: string;
  private readonly queueDir: string;
  private readonly card: string;
  private readonly violations: ChaosViolation[] = [];
  private readonly processes: ChaosProcess[] = [];
  private readonly kills: ChaosRunResult['kills'] = [];
  /** Every time a rule of this run acted: when, on what, which fault of the plan. */
  private readonly firings: { at: number; operation: string; fault: ChaosFault }[] = [];
  /** Moments (ms, monotonic) a process of this run died without a word: the in-doubt rules cannot cover them. */
  private readonly deaths: number[] = [];
  /** Lines the uploader wrote (CLI output, the service's log), for the in-doubt explanations. */
  private readonly logLines: string[] = [];
  private readonly timers: (NodeJS.Timeout | ReturnType<typeof setInterval>)[] = [];
  private t0 = 0;
  private healedAt: number | undefined;
  /** Files already reported as failed after a finalize that succeeded: said once. */
  private readonly finalizeReported = new Set<number>();
  /** Whether the person's steps have begun (for the transcript's labels). */
  private inPerson = false;
  private partLogFrom = 0;
  private unknown = 0;
  private dropped = 0;
  private summaryToExitMs: number | null = null;
  private lastLineToExitMs: number | null = null;
  private restoreTake?: () => void;
  /** The card's files by name, with their bytes' SHA-256 and which recording of the plan each is. */
  private readonly sources = new Map<string, { path: string; sha256: string; recording: number }>();
  /** The plan's fault each rule put in stands for, by the rule's action (what FaultRegistry.take answers). */
  private readonly byAction = new WeakMap<FaultAction, ChaosFault>();
  private readonly doubles: ChaosDouble[] = [];

  constructor(
    private readonly env: ChaosEnv,
    private readonly plan: ChaosPlan,
  ) {
    this.dir = join(env.work, `run-${plan.seed}${plan.answers ? '-answers' : ''}`);
    rmSync(this.dir, { recursive: true, force: true });
    this.queueDir = join(this.dir, plan.target === 'service' ? 'app/queue' : 'queue');
    this.card = join(this.dir, 'X4_CARD');
  }

  private get svc(): TestService {
    return this.env.svc;
  }

  async run(): Promise<ChaosRunResult> {
    const started = performance.now();
    this.writeCard();
    this.svc.faults.clear();
    this.svc.faults.update(CLEAR_SETTINGS);
    this.partLogFrom = this.svc.storage.partLog.length;
    this.watchFirings();
    try {
      this.svc.faults.update({ bandwidthBytesPerSecond: this.plan.bandwidth });
      this.t0 = performance.now();
      this.scheduleFaults();
      if (this.plan.target === 'cli') await this.cliRun();
      else await this.serviceRun();
      await this.checkPlatform();
      // A part storage still works on (a delay, a buffering proxy) may yet be stored a second time,
      // unless its upload is completed: storage then refuses it (NoSuchUpload).
      const open = () =>
        Object.values(this.svc.store.state.uploads).some(
          (u) => this.sources.has(u.fileName) && u.status !== 'completed',
        );
      if (open() && !(await until(() => this.svc.storage.storesPending === 0, STORES_PENDING_MS)))
        this.violations.push({
          check: 'hung',
          detail: `storage still had ${this.svc.storage.storesPending} part(s) to store ${STORES_PENDING_MS / 1000} s after the run`,
        });
      this.checkDoubles();
    } catch (err) {
      this.violations.push({ check: 'healed', detail: `the run stopped: ${(err as Error).stack ?? String(err)}` });
    } finally {
      for (const t of this.timers) clearInterval(t);
      this.heal();
      this.restoreTake?.();
    }
    const kinds = this.plan.faults;
    return {
      plan: this.plan,
      violations: this.violations,
      processes: this.processes,
      faultsDrawn: kinds.length,
      faultsFired: this.firings.length,
      firings: this.firings.map((f) => ({
        atMs: Math.round(f.at - this.t0),
        operation: f.operation,
        kind: f.fault.kind,
      })),
      kills: this.kills,
      doubles: this.doubles,
      summaryToExitMs: this.summaryToExitMs,
      lastLineToExitMs: this.lastLineToExitMs,
      unknown: this.unknown,
      dropped: this.dropped,
      durationMs: performance.now() - started,
    };
  }

  // ---- set-up ----------------------------------------------------------------------------------

  private writeCard(): void {
    const camera = join(this.card, 'DCIM', 'Camera01');
    mkdirSync(camera, { recursive: true });
    this.plan.recordings.forEach((rec, i) => {
      for (const f of rec.files) {
        const path = join(camera, f.name);
        const bytes = randomBytes(f.size);
        writeFileSync(path, bytes);
        this.sources.set(f.name, { path, sha256: sha256(bytes), recording: i });
      }
    });
  }

  /** Notes every time a rule of this run acts, and for which fault of the plan. */
  private watchFirings(): void {
    const faults = this.svc.faults;
    const take = faults.take.bind(faults);
    faults.take = (req) => {
      const action = take(req);
      const fault = action && this.byAction.get(action);
      if (fault) this.firings.push({ at: performance.now(), operation: req.operation, fault });
      return action;
    };
    this.restoreTake = () => {
      faults.take = take;
    };
  }

  /**
   * Puts each fault in at its instant after its anchor (ChaosAnchor: the run's first request, its
   * first part PUT), and clears them all at the plan's heal time; a fault of the registration at 0
   * goes in now. Asked every 20 ms until the faults are cleared.
   */
  private scheduleFaults(): void {
    const pending = [...this.plan.faults];
    const install = (f: ChaosFault) => {
      if (f.settings) this.svc.faults.update(f.settings);
      if (f.rule) {
        const id = this.svc.faults.add(f.rule);
        const rule = this.svc.faults.list().find((r) => r.id === id);
        if (rule) this.byAction.set(rule.action, f);
      }
    };
    for (const f of pending.filter((x) => x.anchor === 'registration' && x.atMs === 0)) {
      install(f);
      pending.splice(pending.indexOf(f), 1);
    }
    const tick = setInterval(() => {
      if (this.healedAt !== undefined) return clearInterval(tick);
      const now = performance.now();
      this.anchors.registration ??= this.firstRequestSince(this.t0)?.at;
      this.anchors.upload ??= this.firstRequestSince(this.t0, (r) => r.operation === 'UploadPart')?.at;
      for (const f of [...pending]) {
        const from = this.anchors[f.anchor];
        if (from === undefined || now < from + f.atMs) continue;
        install(f);
        pending.splice(pending.indexOf(f), 1);
      }
      const { upload, registration = this.t0 } = this.anchors;
      const healAt =
        upload !== undefined ? upload + this.plan.healAtMs : registration + this.plan.healAtMs + HEAL_WITHOUT_UPLOAD_MS;
      if (now >= healAt) this.heal();
    }, 20);
    this.timers.push(tick);
  }

  /** When the run's first request and first part PUT reached the service (ms, monotonic). */
  private readonly anchors: { registration?: number; upload?: number } = {};

  /** Clears every fault: rules, settings, the run's bandwidth. Held requests go on. */
  private heal(): void {
    if (this.healedAt !== undefined) return;
    this.healedAt = performance.now();
    this.svc.faults.clear();
    this.svc.faults.update(CLEAR_SETTINGS);
  }

  /** Resolves once the scheduler has cleared the faults (scheduleFaults). */
  private async untilHealed(): Promise<void> {
    while (this.healedAt === undefined) await sleep(50);
  }

  // ---- the CLI ---------------------------------------------------------------------------------

  private async cliRun(): Promise<void> {
    const { plan } = this;
    const kills = [...plan.kills];
    const queueKill = kills[0]?.step === 'queue' ? kills.shift() : undefined;
    await this.queueCard(queueKill);
    // A person whose `add` or `import` was stopped before it queued the whole card runs it again.
    for (let again = 0; again < 2 && this.cardFilesQueued() < this.sources.size; again++) await this.queueCard();
    for (const kill of kills) {
      // All done: nobody runs drain again; the signals left are not sent.
      if (drainExitCodeFor(readQueue(this.queueDir)) === 0) break;
      await this.cli('drain', ['drain'], kill);
    }
    // As a cron job would, drains follow one another while the faults are in force and work goes
    // on by itself (exit 3); a drain that says a person is needed (1) waits for the person.
    for (;;) {
      const drain = await this.cli('drain', ['drain']);
      // All done already: the faults still to come would meet nothing, and a person has nothing to do.
      if (drainExitCodeFor(readQueue(this.queueDir)) === 0) return this.heal();
      if (this.healedAt !== undefined || drain.code !== 3) break;
    }
    await this.untilHealed();
    await this.person();
  }

  private cardFilesQueued(): number {
    return readQueue(this.queueDir).files.filter((f) => f.state !== 'cancelled').length;
  }

  private async queueCard(kill?: ChaosKill): Promise<void> {
    const structure = this.svc.info.structures[0]!;
    const args =
      this.plan.queueBy === 'add'
        ? addArgs(structure, [this.card])
        : importArgs(this.card, { library: join(this.dir, 'library'), place: { structure } });
    await this.cli(this.plan.queueBy, args, kill);
  }

  /**
   * Runs one CLI command to its end (with the run's --concurrency), sending it `kill` when drawn,
   * with the deadlines of HUNG_AFTER_HEAL_MS and AFTER_SUMMARY_KILL_MS; checks how it exited.
   */
  private async cli(
    kind: 'add' | 'import' | 'drain' | 'status' | 'resolve' | 'retry',
    args: string[],
    kill?: ChaosKill,
  ): Promise<ChaosProcess> {
    const before = readQueue(this.queueDir);
    const lines: { at: number; text: string }[] = [];
    const rec: ChaosProcess = {
      label: `${this.inPerson ? 'person: ' : ''}${args.map((a) => a.replace(this.dir, '…')).join(' ')} (${
        this.processes.length + 1
      })`,
      spawnAt: performance.now(),
      code: null,
      signal: null,
      lines,
    };
    this.processes.push(rec);
    const run = spawnCli(this.svc, this.queueDir, ['--concurrency', String(this.plan.concurrency), ...args], {
      lines,
      ...(this.env.cli ? { entry: this.env.cli } : {}),
    });
    rec.pid = run.child.pid;
    let ended = false;
    const done = run.done.then((r) => {
      ended = true;
      rec.exitAt = performance.now();
      rec.code = r.code;
      rec.signal = r.signal;
      return r;
    });
    if (kill) void this.armKill(kill, rec, run, () => ended, kind);
    const result = await this.watch(run, rec, () => ended, done);
    for (const l of result.out.split('\n')) if (l) this.logLines.push(l);
    // Ended by a signal itself (SIGKILL, or one it has no handler for): it could say nothing of its work.
    if (rec.signal !== null) this.deaths.push(rec.exitAt!);
    this.checkExit(kind, rec, before, result.out);
    return rec;
  }

  /**
   * Sends `kill.signal` `kill.afterMs` after the process's work reached the service (ChaosKill:
   * an `add`'s first add-capture, a drain's first part PUT; an `import`'s start), if it is still
   * running then.
   */
  private async armKill(
    kill: ChaosKill,
    rec: ChaosProcess,
    run: Pick<CliRun, 'child'>,
    ended: () => boolean,
    kind: string,
  ): Promise<void> {
    const entry = { signal: kill.signal, step: kill.step, delivered: false };
    this.kills.push(entry);
    let trigger = rec.spawnAt;
    if (kind !== 'import') {
      const operation = kind === 'add' ? 'add-capture' : 'UploadPart';
      for (;;) {
        const first = this.firstRequestSince(rec.spawnAt, (r) => r.operation === operation);
        if (first) {
          trigger = first.at;
          break;
        }
        if (ended()) return;
        await sleep(10);
      }
    }
    const wait = trigger + kill.afterMs - performance.now();
    if (wait > 0) await sleep(wait);
    if (ended()) return;
    rec.sent = { signal: kill.signal, at: performance.now() };
    entry.delivered = true;
    run.child.kill(kill.signal);
  }

  /** The first request any listener of the service received at or after `t` (ms, monotonic) that `match` takes. */
  private firstRequestSince(
    t: number,
    match: (r: { operation: string }) => boolean = () => true,
  ): { at: number; operation: string } | undefined {
    const requests = this.svc.faults.requests;
    let first: { at: number; operation: string } | undefined;
    for (let i = requests.length - 1; i >= 0 && requests[i]!.at >= t; i--) if (match(requests[i]!)) first = requests[i];
    return first;
  }

  /** Waits for the process's end under the run's deadlines; kills it (SIGKILL) when one passes, saying which. */
  private async watch(
    run: CliRun,
    rec: ChaosProcess,
    ended: () => boolean,
    done: Promise<{ out: string }>,
  ): Promise<{ out: string }> {
    for (;;) {
      const r = await Promise.race([done, sleep(200).then(() => undefined)]);
      if (r) return r;
      if (ended()) continue;
      const now = performance.now();
      const summary = rec.lines.find((l) => SUMMARY_LINE.test(l.text));
      const last = rec.lines.at(-1);
      let why: string | undefined;
      if (summary && now - summary.at > AFTER_SUMMARY_KILL_MS)
        why = `still running ${Math.round((now - summary.at) / 1000)} s after its summary ("${summary.text}")`;
      else if (this.healedAt !== undefined && now - Math.max(this.healedAt, rec.spawnAt) > HUNG_AFTER_HEAL_MS)
        why = `still running ${Math.round((now - Math.max(this.healedAt, rec.spawnAt)) / 1000)} s after the faults were cleared${
          rec.spawnAt > this.healedAt ? ' (it started after)' : ''
        }; its last line, ${last ? `${Math.round((now - last.at) / 1000)} s ago: "${last.text}"` : 'none'}`;
      if (why) {
        this.violations.push({ check: 'hung', detail: `${rec.label}: ${why}; killed` });
        run.child.kill('SIGKILL');
        return done;
      }
    }
  }

  /** The README's exit status for how `rec` ended and the queue it left; its exit within 5 s of its last line. */
  private checkExit(
    kind: string,
    rec: ChaosProcess,
    before: { captures: QueueCaptureRow[]; files: QueueFileRow[] },
    out: string,
  ): void {
    const control = rawControlIn(out);
    if (control) this.violations.push({ check: 'output-controls', detail: `${rec.label} printed a raw ${control}` });
    if (rec.signal === 'SIGKILL') return;
    const last = rec.lines.at(-1);
    if (last && rec.exitAt !== undefined) {
      const ms = rec.exitAt - last.at;
      this.lastLineToExitMs = Math.max(this.lastLineToExitMs ?? 0, ms);
      if (ms > EXIT_AFTER_LAST_LINE_MS)
        this.violations.push({
          check: 'exit-time',
          detail: `${rec.label} exited ${(ms / 1000).toFixed(1)} s after its last line ("${last.text}")`,
        });
      const summary = rec.lines.findLast((l) => SUMMARY_LINE.test(l.text));
      if (summary) this.summaryToExitMs = Math.max(this.summaryToExitMs ?? 0, rec.exitAt - summary.at);
    }
    const after = readQueue(this.queueDir);
    this.checkFinalizeCounted(rec.label, after.files);
    this.checkUnknownAfterSignal(rec, before, after);
    // What its work earned, whatever signal it was sent.
    let earned: number;
    let earnedBecause: string;
    if (kind === 'add' || kind === 'import') {
      const known = new Set(before.captures.map((c) => c.id));
      const queued = after.captures.filter((c) => !known.has(c.id));
      earned = addExitCodeFor(queued, kind === 'add');
      earnedBecause = `the README's status for the ${queued.length} capture(s) it queued: ${queued.map((c) => c.state).join(', ') || 'none'}`;
    } else if (kind === 'drain') {
      earned = drainExitCodeFor(after);
      earnedBecause = `the README's status for the queue it left: ${describeQueue(after)}`;
    } else {
      earned = 0;
      earnedBecause = 'it did what it was asked';
    }
    let expected: number | undefined = earned;
    let because = earnedBecause;
    if (rec.sent && rec.sent.signal !== 'SIGKILL' && rec.sent.signal !== 'SIGSTOP') {
      expected = signalExitCode(rec.sent.signal);
      because = `stopped by ${rec.sent.signal}: 128 + its number, as the README's 130 for SIGINT and 143 for SIGTERM`;
      // A signal in a process's last instants, its event loop already ending, is never read
      // (Node's signal watcher holds the loop open for nothing): the process ends with what its
      // work earned and says nothing of a stop, which is true. Allowed only then, and only when
      // it printed no stop of its own.
      const lateMs = rec.exitAt !== undefined ? rec.exitAt - rec.sent.at : Infinity;
      if (rec.code === earned && lateMs < LATE_SIGNAL_MS && !/Stopped by SIG/.test(out)) expected = earned;
    }
    if (rec.code !== expected)
      this.violations.push({
        check: 'exit-code',
        detail: `${rec.label} ended with ${rec.code ?? rec.signal}; expected ${expected}, ${because}`,
      });
  }

  /** A file marked failed while the service completed its upload: a finalize that succeeded, counted as a failure. */
  private checkFinalizeCounted(label: string, files: readonly QueueFileRow[]): void {
    const uploads = this.svc.store.state.uploads;
    for (const f of files) {
      if (f.state !== 'failed' || !f.uploadId || this.finalizeReported.has(f.id)) continue;
      if (uploads[f.uploadId]?.status !== 'completed') continue;
      this.finalizeReported.add(f.id);
      this.violations.push({
        check: 'finalize-counted',
        detail: `after ${label}, ${f.fileName} is failed ("${f.error}") although the service completed its upload`,
      });
    }
  }

  /**
   * A capture whose registration `rec` left unknown, although nothing made the answer
   * unknowable: the process was stopped by SIGINT, SIGTERM or SIGHUP, which leave it the time to
   * let a registration on the wire finish (whether or not it has a handler for them), and no
   * gateway fault but latency acted on add-capture meanwhile.
   */
  private checkUnknownAfterSignal(
    rec: ChaosProcess,
    before: { captures: QueueCaptureRow[] },
    after: { captures: QueueCaptureRow[] },
  ): void {
    // Left "registering" by a process that is gone, a capture is "registration unknown" at the next start.
    const inDoubt = (state: string) => state === 'registration_unknown' || state === 'registering';
    const wasUnknown = new Set(before.captures.filter((c) => inDoubt(c.state)).map((c) => c.id));
    const newly = after.captures.filter((c) => inDoubt(c.state) && !wasUnknown.has(c.id));
    if (newly.length === 0) return;
    const end = rec.exitAt ?? performance.now();
    // A fault that loses or garbles add-capture's answer makes it unknowable; a slow answer does not.
    const faulted = this.firings.some(
      (f) =>
        f.operation === 'add-capture' && f.at >= rec.spawnAt && f.at <= end && f.fault.rule?.action.type !== 'latency',
    );
    // Only SIGKILL leaves no chance to let a registration on the wire finish; INT, TERM and HUP do.
    if (faulted || rec.signal === 'SIGKILL' || !rec.sent || rec.sent.signal === 'SIGKILL') return;
    this.violations.push({
      check: 'unknown-after-signal',
      detail: `${rec.label}, stopped by ${rec.sent.signal}, left ${newly.length} capture(s) "registration unknown" (${newly
        .map((c) => c.label)
        .join(', ')}) with no fault on add-capture`,
    });
  }

  /**
   * What a person does once the faults are cleared, as the README says: each capture whose
   * registration is unknown is looked up at the platform (dropped if there, registered again if
   * not), captures refused, failed or still queued are registered again, files not completed are
   * retried, and one more drain must complete everything (exit 0).
   */
  private async person(): Promise<void> {
    this.inPerson = true;
    const q = readQueue(this.queueDir);
    for (const c of q.captures) {
      if (c.state === 'registration_unknown') {
        this.unknown++;
        const names = q.files.filter((f) => f.captureRow === c.id).map((f) => f.fileName);
        const atPlatform = this.platformCapturesOf(names[0]!).length > 0;
        if (atPlatform) this.dropped++;
        await this.cli('resolve', ['resolve', String(c.id), atPlatform ? '--drop' : '--register-again']);
      } else if (['rejected', 'failed', 'queued'].includes(c.state)) {
        await this.cli('resolve', ['resolve', String(c.id), '--register-again']);
      }
    }
    const retry = readQueue(this.queueDir)
      .files.filter((f) => f.uploadId && f.replacedBy === null && f.state !== 'completed')
      .map((f) => String(f.id));
    if (retry.length) await this.cli('retry', ['retry', ...retry]);
    const last = await this.cli('drain', ['drain']);
    if (last.code !== 0)
      this.violations.push({
        check: 'healed',
        detail: `once the faults were cleared and a person retried, drain ended with ${last.code ?? last.signal}: ${last.lines
          .slice(-3)
          .map((l) => l.text)
          .join(' / ')}`,
      });
    // What a person reads, and what a script reads: neither may carry a control an answer put there.
    if (this.plan.answers) {
      await this.cli('status', ['status']);
      await this.cli('status', ['--json', 'status']);
    }
  }

  // ---- the app's upload service process ---------------------------------------------------------

  private async serviceRun(): Promise<void> {
    const logs: string[] = this.logLines;
    const store = new Map<string, unknown>();
    const host = new ServiceHost({
      dataDir: join(this.dir, 'app'),
      store: {
        get: (k) => store.get(k),
        set: (k, v) => void store.set(k, v),
        snapshot: () => Object.fromEntries(store),
      },
      secrets: { available: () => true, encrypt: (s) => `sealed:${s}`, decrypt: (s) => s.slice('sealed:'.length) },
      emit: () => {},
      pickFiles: async () => [],
      localService: { info: this.svc.info },
      log: { info: (m) => logs.push(m), warn: (m) => logs.push(m) },
    });
    const procs = new Map<number, ChaosProcess>();
    const track = () => {
      const pid = host.child?.pid;
      if (pid === undefined || procs.has(pid)) return;
      const rec: ChaosProcess = {
        label: `service process ${pid}`,
        pid,
        spawnAt: performance.now(),
        code: null,
        signal: null,
        lines: [],
      };
      procs.set(pid, rec);
      this.processes.push(rec);
    };
    try {
      await host.start();
      track();
      const call = async <T>(channel: Parameters<ServiceHost['call']>[0], args?: unknown): Promise<T> => {
        const answer = await withDeadline(host.call(channel, args), 20_000, `the service's answer to ${channel}`);
        if (!answer.ok) throw new Error(`${channel}: ${answer.error}`);
        return answer.value as T;
      };
      const view = await call<SettingsView>('capture:settings.useLocalService');
      const forms = this.plan.recordings.map((rec, i) => ({
        paths: rec.files.map((f) => this.sources.get(f.name)!.path),
        structure: view.structures[0]!.id,
        type: 'interior' as const,
        capturedAt: new Date(this.plan.recordedAt + i * 60_000).toISOString(),
      }));
      await call('capture:captures.register', forms);
      for (const kill of this.plan.kills) await this.killService(host, kill, track);
      await this.untilHealed();
      await this.servicePerson(call, track);
    } catch (err) {
      this.violations.push({ check: 'healed', detail: `the service run stopped: ${(err as Error).message}` });
    } finally {
      const pid = host.child?.pid;
      const closing = performance.now();
      await host.close();
      const ms = performance.now() - closing;
      const last = this.processes.find((p) => p.pid === pid);
      if (last && last.exitAt === undefined) {
        last.exitAt = performance.now();
        last.label += ', closed by the host';
      }
      if (pid !== undefined && alive(pid)) {
        this.violations.push({
          check: 'service-exit',
          detail: `service process ${pid} still runs after the host closed`,
        });
        process.kill(pid, 'SIGKILL');
      } else if (ms > EXIT_AFTER_LAST_LINE_MS)
        this.violations.push({
          check: 'service-exit',
          detail: `the service process took ${(ms / 1000).toFixed(1)} s to end after the host closed it`,
        });
    }
  }

  /** Sends `kill` to the service process at its instant (after its first part PUT), then waits for the host to start another. */
  private async killService(host: ServiceHost, kill: ChaosKill, track: () => void): Promise<void> {
    const pid = host.child?.pid;
    const entry = { signal: kill.signal, step: kill.step, delivered: false };
    this.kills.push(entry);
    if (pid === undefined) return;
    const from = performance.now();
    await until(() => this.firstRequestSince(from, (r) => r.operation === 'UploadPart') !== undefined, 20_000);
    await sleep(kill.afterMs);
    if (host.child?.pid !== pid) return;
    const rec = this.processes.find((p) => p.pid === pid);
    entry.delivered = true;
    if (rec) rec.sent = { signal: kill.signal, at: performance.now() };
    process.kill(pid, kill.signal);
    // The service has no handler of its own: every signal ends its work at once (a stopped one
    // reads no answer from then on, and is killed once noticed).
    this.deaths.push(performance.now());
    const noticed = await until(
      () => host.child?.pid !== undefined && host.child.pid !== pid,
      kill.signal === 'SIGSTOP' ? SERVICE_HANG_NOTICED_MS : 30_000,
    );
    if (rec) {
      rec.exitAt = performance.now();
      rec.signal = kill.signal;
    }
    if (!noticed) {
      this.violations.push({
        check: 'service-liveness',
        detail:
          kill.signal === 'SIGSTOP'
            ? `the service process ${pid}, stopped (SIGSTOP), was not noticed by the host within ${SERVICE_HANG_NOTICED_MS / 1000} s`
            : `no service process was started again within 30 s of ${kill.signal}`,
      });
      // Go on: killed for good, the host starts another as after a crash.
      this.deaths.push(performance.now());
      if (alive(pid)) process.kill(pid, 'SIGKILL');
      await until(() => host.child?.pid !== undefined && host.child.pid !== pid, 30_000);
    }
    track();
  }

  /** The person's part in the app: decides unknown registrations, retries every file, and waits for the queue to complete. */
  private async servicePerson(
    call: <T>(channel: Parameters<ServiceHost['call']>[0], args?: unknown) => Promise<T>,
    track: () => void,
  ): Promise<void> {
    track();
    const q = readQueue(this.queueDir);
    for (const c of q.captures) {
      if (c.state === 'registration_unknown') {
        this.unknown++;
        const name = q.files.find((f) => f.captureRow === c.id)!.fileName;
        const atPlatform = this.platformCapturesOf(name).length > 0;
        if (atPlatform) this.dropped++;
        await call('capture:queue.resolve', { captureRow: c.id, decision: atPlatform ? 'drop' : 'register-again' });
      } else if (['rejected', 'failed', 'queued'].includes(c.state))
        await call('capture:queue.resolve', { captureRow: c.id, decision: 'register-again' });
    }
    await call('capture:queue.retry', { all: true });
    const done = await until(() => {
      const rows = readQueue(this.queueDir);
      return rows.captures.every((c) => c.state === 'completed') && rows.files.every((f) => f.state === 'completed');
    }, SERVICE_HEALED_MS);
    this.checkFinalizeCounted('the service', readQueue(this.queueDir).files);
    if (!done)
      this.violations.push({
        check: 'healed',
        detail: `once the faults were cleared and a person retried, the service had not completed the queue within ${
          SERVICE_HEALED_MS / 1000
        } s: ${describeQueue(readQueue(this.queueDir))}`,
      });
  }

  // ---- the platform and storage ------------------------------------------------------------------

  /** The platform's captures that hold a file of this name. */
  private platformCapturesOf(fileName: string) {
    const { captures, uploads } = this.svc.store.state;
    return Object.values(captures).filter((c) => c.uploadIds.some((id) => uploads[id]?.fileName === fileName));
  }

  /** Every recording registered exactly once; every file not dropped stored whole, byte for byte. */
  private async checkPlatform(): Promise<void> {
    const q = readQueue(this.queueDir);
    const queuedNames = new Set(q.files.map((f) => f.fileName));
    for (const [name, src] of this.sources) {
      const at = this.platformCapturesOf(name);
      if (at.length !== 1) {
        this.violations.push({
          check: 'registered-once',
          detail: `${name} (recording ${src.recording + 1}) is in ${at.length} captures at the platform`,
        });
        continue;
      }
      if (!queuedNames.has(name)) continue; // dropped by the person: the platform had it, its upload is not ours to finish
      const upload = at[0]!.uploadIds.map((id) => this.svc.store.state.uploads[id]!).find((u) => u.fileName === name)!;
      if (upload.status !== 'completed') {
        this.violations.push({ check: 'bytes', detail: `${name}: its upload at the platform is ${upload.status}` });
        continue;
      }
      const stored = await readStored(this.svc, upload.key);
      if (stored !== src.sha256)
        this.violations.push({
          check: 'bytes',
          detail: `${name}: storage holds other bytes (SHA-256 ${stored.slice(0, 12)}…, the file's ${src.sha256.slice(0, 12)}…)`,
        });
    }
  }

  /** Each part of this run's uploads stored twice, explained by the in-doubt rules or reported. */
  private checkDoubles(): void {
    const { uploads } = this.svc.store.state;
    const names = new Map<string, string>();
    for (const u of Object.values(uploads)) if (this.sources.has(u.fileName)) names.set(u.key, u.fileName);
    const log = this.svc.storage.partLog.slice(this.partLogFrom).filter((p) => names.has(p.key));
    log.forEach((p, i) => {
      if (!p.replaced) return;
      const first = log.slice(0, i).findLast((q) => q.key === p.key && q.partNumber === p.partNumber)!;
      const file = names.get(p.key)!;
      const why = explainDouble(file, p.partNumber, first ?? p, p, this.logLines, this.deaths);
      this.doubles.push({ file, part: p.partNumber, why });
      if (why === 'unexplained')
        this.violations.push({
          check: 'stored-twice',
          detail: `part ${p.partNumber} of ${file} was stored twice, and neither the uploader's log nor a kill explains it`,
        });
    });
  }
}

/** "2 captures (completed, registration_unknown), 3 files (completed ×2, failed)". */
function describeQueue(rows: { captures: QueueCaptureRow[]; files: QueueFileRow[] }): string {
  const count = (xs: string[]) =>
    [...new Set(xs)]
      .map((s) => `${s}${xs.filter((x) => x === s).length > 1 ? ` ×${xs.filter((x) => x === s).length}` : ''}`)
      .join(', ');
  return `${rows.captures.length} capture(s) (${count(rows.captures.map((c) => c.state))}), ${rows.files.length} file(s) (${count(
    rows.files.map((f) => f.state),
  )})`;
}

async function readStored(svc: TestService, key: string): Promise<string> {
  const { GetObjectCommand } = await import('@aws-sdk/client-s3');
  const res = await svc.s3().send(new GetObjectCommand({ Bucket: svc.info.s3.bucket, Key: key }));
  return sha256(Buffer.from(await res.Body!.transformToByteArray()));
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** Resolves true once `cond` holds (asked every 100 ms), false when `ms` passed first. */
async function until(cond: () => boolean, ms: number): Promise<boolean> {
  for (const end = performance.now() + ms; performance.now() < end; await sleep(100)) if (cond()) return true;
  return cond();
}

/** `p`, or a rejection naming `what` after `ms` (ms). */
function withDeadline<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout;
  return Promise.race([
    p.finally(() => clearTimeout(timer)),
    new Promise<T>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer within ${ms / 1000} s: ${what}`)), ms);
    }),
  ]);
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
