import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import type { TimetableEntry } from '../../shared/bandwidth.js';
import type { GatewayConfig } from '../api/gateway.js';
import { applyTimetable } from '../engine/scheduling/bandwidth-timetable.js';
import type { Logger } from '../engine/engine.js';
import type { Uploader } from '../service/uploader.js';
import { openUploader, partLimitBeforeRegistration } from '../service/uploader.js';
import { startLocalService } from '../service/local-service.js';
import { resolveGatewayConfig } from './config.js';
import type { CliSettings } from './setting-flags.js';
import { engineSettings } from '../../shared/settings-table.js';
import { formatBytes } from '../../shared/format.js';
import { describeRegistration, describeSkipped, placementName } from '../../shared/registration.js';
import { attachDisplay, drainExitCode, stoppedLine, summaryLines } from './render.js';
import type { DrainSummary } from '../engine/engine.js';
import type { StopSignal } from './exit-status.js';
import { EXIT, SIGNAL_EXIT } from './exit-status.js';
import type { StopWatch } from './stop-signals.js';
import { STOP_GRACE_MS, watchStopSignals } from './stop-signals.js';
import { printable, printableJson } from './printable.js';
import { setAsideMessage } from './local-faults.js';
import type { UploadQueue } from '../queue/queue.js';
import { SupportLog } from '../support/log-file.js';
import { cliLogDir } from './support-paths.js';

// The commands that open the queue and talk to the service. index.ts loads this module only when
// such a command runs, so `--help` and `status` start without got, zod or the media parsers.

/** The options every command takes (see index.ts). */
export interface GlobalOptions {
  /** `--data-dir` as given (CAPTURE_DATA_DIR and the default are read where the folder is opened). */
  dataDir?: string;
  /** The settings in force, from the settings table (setting-flags.ts cliSettings). */
  settings: CliSettings;
  /** `--bandwidth` as a timetable (shared/bandwidth.ts; one entry for a single rate). */
  bandwidth?: TimetableEntry[];
  json?: boolean;
  demo?: boolean;
}

/** A session: the uploader, and the local service when --demo started one. */
export interface Session {
  uploader: Uploader;
  demo?: { structures: string[]; close(): Promise<void> };
  dataDir: string;
  /** Stops applying the `--bandwidth` timetable. */
  stopLimits(): void;
  /** The password and API key the session signs in with (the demo's too), hidden in the support log. */
  secrets: string[];
  /** The stop signals, watched since the command started (stop-signals.ts): work stops between steps once one came. */
  stop: StopWatch;
}

/** Opens the queue and engine (and the local service with --demo). Throws on bad settings or a queue in use. */
export async function openSession(
  opts: GlobalOptions,
  log: Logger,
  stop: StopWatch = watchStopSignals(),
): Promise<Session> {
  const dataDir = resolve(
    opts.dataDir ??
      process.env.CAPTURE_DATA_DIR ??
      (opts.demo ? mkdtempSync(join(tmpdir(), 'capture-uploader-demo-')) : join(homedir(), '.capture-uploader')),
  );
  let gateway: GatewayConfig;
  let demo: Session['demo'];
  if (opts.demo) {
    // The local service runs in this process, so the demo needs no account; it is loaded only here.
    const service = await startLocalService(join(dataDir, 'local-service'));
    const { info } = service;
    gateway = {
      baseUrl: info.baseUrl,
      authUrl: info.authUrl,
      apiKey: info.apiKey,
      projectId: info.projectId,
      ...info.account,
    };
    demo = { structures: info.structures, close: () => service.close() };
    log.info(`Local test service at ${info.baseUrl}; queue and storage in ${dataDir}`);
  } else {
    gateway = resolveGatewayConfig(opts.settings);
  }
  // The engine's options that are settings, as one named object (shared/settings-table.ts).
  const uploader = openUploader({ ...engineSettings(opts.settings), dataDir, gateway, log });
  const stopLimits = opts.bandwidth ? applyTimetable(uploader.engine, opts.bandwidth) : () => {};
  return { uploader, demo, dataDir, stopLimits, secrets: [gateway.password, gateway.apiKey], stop };
}

/** Stops the engine, closes the queue and the local service. */
export async function closeSession(s: Session): Promise<void> {
  s.stopLimits();
  await s.uploader.close();
  await s.demo?.close();
}

/** Diagnostics on stderr; with --json only warnings. */
export function makeLog(json: boolean | undefined): Logger {
  // Diagnostics go to stderr so that --json output on stdout stays one JSON object per line.
  return {
    info: (m) => !json && process.stderr.write(`${printable(m)}\n`),
    warn: (m) => process.stderr.write(`warning: ${printable(m)}\n`),
  };
}

/**
 * `add`: queues and registers the files, printing each capture and each refusal. Resolves with
 * the exit status: 2 when the queue cannot be written (full disk, read-only), 1 when a capture
 * needs a person (refused, registration unknown), 3 when one is
 * queued but not registered yet (the service cannot be reached, or asked to wait:), else 0.
 */
export async function addFiles(
  s: Session,
  files: string[],
  o: { structure?: string; type?: 'interior' | 'exterior'; design?: string; capturedAt?: string; verbose?: boolean },
  json: boolean | undefined,
): Promise<number> {
  const structure = o.structure ?? s.demo?.structures[0];
  if (!structure) throw new Error('--structure is required: the id of the structure these captures belong to');
  const { queued, refused, warnings } = await s.uploader.add(
    files,
    { structure, type: o.type ?? 'interior', design: o.design, capturedAt: o.capturedAt },
    { signal: s.stop.aborted },
  );
  const captures = queued.map((id) => s.uploader.queue.capture(id)!);
  // What the queue kept with each capture (uploader.ts keepWarnings, as for the app's): said here
  // as it is kept, each once, after the capture it concerns.
  const kept = s.uploader.queue.activity.warnings();
  const warned = captures.map((c) => ({ capture: c, warnings: [...new Set(kept.get(c.id) ?? [])] }));
  const queuedPaths = new Set(queued.flatMap((id) => s.uploader.queue.filesOf(id).map((f) => f.path)));
  const states = new Set(captures.map((c) => c.state));
  const replaced = queued.length
    ? s.uploader.queue.allFiles().filter((f) => f.replacedBy !== null && queued.includes(f.replacedBy))
    : [];
  // 2: the queue cannot be written (full disk, read-only): registering stopped at once.
  // Nothing queued (every recording already queued, refused or not found) is not "did all it was
  // asked": 1, with the reasons printed below. Credentials the service refuses: 1,
  // a person must correct them; nothing goes on by itself.
  const exitCode = s.uploader.engine.fatal
    ? 2
    : queued.length === 0 ||
        s.uploader.engine.blocked !== null ||
        ['rejected', 'registration_unknown', 'failed'].some((st) => states.has(st as never))
      ? 1
      : states.has('queued')
        ? 3
        : 0;
  if (json) {
    process.stdout.write(
      `${printableJson({ type: 'added', captures: warned.map(({ capture: c, warnings: w }) => ({ id: c.id, label: c.label, state: c.state, captureId: c.captureId, error: c.error, files: s.uploader.queue.filesOf(c.id).map((f) => f.fileName), replaces: replaced.filter((r) => r.replacedBy === c.id).map((r) => ({ file: r.id, capture: r.captureRow })), warnings: w })), refused, warnings })}\n`,
    );
    return exitCode;
  }
  for (const c of captures) {
    process.stdout.write(
      `queued capture ${c.id} "${printable(c.label)}": ${c.state}${c.error ? ` — ${printable(c.error)}` : ''}\n`,
    );
    for (const f of s.uploader.queue.filesOf(c.id)) process.stdout.write(`    ${printable(f.fileName)}\n`);
    for (const f of replaced.filter((r) => r.replacedBy === c.id)) {
      process.stdout.write(
        `    replaces file ${f.id} of capture ${f.captureRow} (${printable(f.fileName)}), which changed on disk: that capture is now shown as replaced\n`,
      );
    }
  }
  // Summed up by reason, as --dry-run does: a card of 2,000 recordings already queued is one line,
  // not 4,000. A reason met once names its file; --verbose lists every file.
  const byKind = new Map<string, typeof refused>();
  for (const r of refused) byKind.set(kindOfRefusal(r.reason), [...(byKind.get(kindOfRefusal(r.reason)) ?? []), r]);
  for (const [kind, list] of byKind) {
    if (list.length === 1)
      process.stdout.write(`not queued: ${printable(list[0]!.path)}: ${printable(list[0]!.reason)}\n`);
    else {
      process.stdout.write(
        `not queued: ${list.length} files: ${printable(kind)}${o.verbose ? '' : ' (--verbose lists them)'}\n`,
      );
      if (o.verbose)
        for (const r of list)
          process.stdout.write(`    ${printable(r.path)}${r.reason === kind ? '' : `: ${printable(r.reason)}`}\n`);
    }
  }
  for (const { capture: c, warnings: w } of warned)
    for (const sentence of w)
      process.stderr.write(`warning: capture ${c.id} "${printable(c.label)}": ${printable(sentence)}\n`);
  // A file's warning whose capture was not queued is said by the file.
  for (const w of warnings)
    if (!queuedPaths.has(w.path)) process.stderr.write(`warning: ${printable(w.path)}: ${printable(w.reason)}\n`);
  if (queued.length === 0)
    process.stderr.write(
      refused.length
        ? 'Nothing was queued: see the reasons above.\n'
        : 'Nothing was queued: no recordings were found in what was given.\n',
    );
  return exitCode;
}

/**
 * The kind of a refusal, for summing refusals up: the reason itself, but for those that name the
 * capture a file is queued as ("Already in the queue as capture 12 (…)"), which are one kind.
 */
function kindOfRefusal(reason: string): string {
  return /^Already in the queue as capture \d+ /.test(reason)
    ? 'Already in the queue, each as the capture it was added as; not added twice.'
    : reason;
}

/**
 * `add --dry-run`: what `add` would do, without queuing or sending anything: the captures it would
 * register and where, the files that would not be uploaded (grouped by reason), files already
 * queued, and warnings about odd media.
 */
export async function previewAdd(
  s: Session,
  files: string[],
  o: { structure?: string; type?: 'interior' | 'exterior'; design?: string; capturedAt?: string },
  json: boolean | undefined,
): Promise<void> {
  const structure = o.structure ?? s.demo?.structures[0];
  if (!structure) throw new Error('--structure is required: the id of the structure these captures belong to');
  const { prepareCaptures } = await import('../intake/intake.js');
  const { readMediaFacts } = await import('../media/metadata.js');
  const { captures, refused, warnings } = await prepareCaptures(
    files,
    { structure, type: o.type ?? 'interior', design: o.design, capturedAt: o.capturedAt, project: '' },
    readMediaFacts,
  );
  const queued = captures.filter((c) => c.files.some((f) => s.uploader.queue.findQueuedFile(f)));
  // What `add` says of the 10,000-part limit before registering (uploader.ts), said here too.
  const fresh = captures.filter((c) => {
    if (queued.includes(c)) return false;
    const limit = partLimitBeforeRegistration(c.files);
    if (limit?.refuse) for (const f of c.files) refused.push({ path: f.path, reason: limit.sentence });
    else if (limit) warnings.push({ path: limit.path, reason: limit.sentence });
    return !limit?.refuse;
  });
  const bytes = fresh.reduce((n, c) => n + c.files.reduce((m, f) => m + f.size, 0), 0);
  if (json) {
    const view = (c: (typeof captures)[number]) => ({
      label: c.label,
      captureDateTime: c.request.captureDateTime,
      files: c.files.map((f) => ({ path: f.path, size: f.size })),
      warnings: c.warnings,
    });
    process.stdout.write(
      `${printableJson({ type: 'dry-run', structure, kind: o.type ?? 'interior', design: o.design ?? null, wouldRegister: fresh.map(view), alreadyQueued: queued.map(view), notUploaded: refused, warnings })}\n`,
    );
    return;
  }
  // The desktop app's wording (shared/registration.ts); the CLI knows ids, not the names Settings gives them.
  const placement = { structure, design: o.design, type: o.type ?? 'interior' } as const;
  const where = describeRegistration(
    fresh.map(() => placement),
    (p) => placementName(`structure ${p.structure}`, p.design && `design ${p.design}`),
  );
  const fileCount = fresh.reduce((n, c) => n + c.files.length, 0);
  process.stdout.write(
    `Would register ${printable(where)}: ${fileCount} file${fileCount === 1 ? '' : 's'}, ${formatBytes(bytes)}.\n`,
  );
  for (const c of fresh) {
    process.stdout.write(`  ${printable(c.label)}  ${c.files.length} file(s)  ${c.request.captureDateTime}\n`);
    // The app's words for the capture (shared/capture-warnings.ts), as its registration table shows them.
    for (const w of c.warnings) process.stdout.write(`    warning: ${printable(w)}\n`);
  }
  if (queued.length) process.stdout.write(`Already in the queue, not added again: ${queued.length} capture(s)\n`);
  const reasons = new Map<string, string[]>();
  for (const r of refused) reasons.set(r.reason, [...(reasons.get(r.reason) ?? []), r.path]);
  if (refused.length) process.stdout.write(`${printable(describeSkipped(refused.map((r) => basename(r.path))))}:\n`);
  for (const [reason, paths] of reasons) process.stdout.write(`  ${paths.length} × ${printable(reason)}\n`);
  for (const w of warnings) process.stdout.write(`warning: ${printable(w.path)}: ${printable(w.reason)}\n`);
  process.stdout.write('Nothing was queued or sent (--dry-run).\n');
}

/** What `drain` was told: keep going through outages (`wait`), for at most `maxWaitMs`. */
export interface DrainFlags {
  wait?: boolean;
  maxWait?: number;
}

/** `drain`: uploads, shows progress, prints the summary; resolves with the exit status (see `drainExitCode`). */
export async function drain(s: Session, json: boolean | undefined, flags: DrainFlags = {}): Promise<number> {
  const mode = json ? 'json' : process.stdout.isTTY ? 'tty' : 'lines';
  const stop = attachDisplay((l) => s.uploader.engine.on(l), mode, process.stdout);
  // A signal stops the engine (withSession: parts stored so far are kept, files go back to
  // pending), and withSession says what is left and exits with 128 + the signal's number. Nobody
  // reading the output any more stops it the same way, quietly, with 141.
  let pipeClosed = false;
  const offPipe = onOutputClosed(() => {
    pipeClosed = true;
    void s.uploader.engine.stop();
  });
  const wait = flags.wait || flags.maxWait !== undefined;
  // Stopped before it began (a signal while `run` added): nothing is started.
  const summary = s.stop.signal
    ? s.uploader.engine.summary()
    : await s.uploader.engine.drain({
        wait,
        deadline: flags.maxWait !== undefined ? Date.now() + flags.maxWait : undefined,
      });
  offPipe();
  stop();
  if (pipeClosed) return EXIT.pipeClosed; // nobody reads the output any more: as a shell's SIGPIPE
  if (json) {
    const file = (f: { fileName: string; id: number; error: string | null }) => ({
      file: f.fileName,
      id: f.id,
      error: f.error,
    });
    process.stdout.write(
      `${printableJson({
        type: 'summary',
        exitCode: drainExitCode(summary),
        completed: summary.completed.length,
        failed: summary.failed.map(file),
        waiting: summary.waiting.map((f) => ({
          ...file(f),
          retryAt: f.nextAttemptAt === null ? null : new Date(f.nextAttemptAt).toISOString(),
        })),
        paused: summary.paused.map(file),
        cancelled: summary.cancelled.map(file),
        notRegistered: summary.queued.map((c) => ({ capture: c.id, label: c.label, error: c.error })),
        needsAttention: summary.needsAttention.map((c) => ({
          capture: c.id,
          label: c.label,
          state: c.state,
          error: c.error,
        })),
        blocked: summary.blocked,
        fatal: summary.fatal,
        cardRemoved: summary.cardRemoved ?? null,
      })}\n`,
    );
  } else for (const line of summaryLines(summary)) process.stdout.write(`${line}\n`);
  return s.stop.signal ? SIGNAL_EXIT[s.stop.signal] : drainExitCode(summary);
}

/**
 * Calls `fn` once when stdout's reader goes away (EPIPE: `drain --json | head -n 2`; EIO: the
 * terminal hung up, whose SIGHUP follows); later writes are dropped instead of crashing. Returns
 * the function that stops listening.
 */
function onOutputClosed(fn: () => void): () => void {
  const onError = (err: NodeJS.ErrnoException) => {
    if (err.code !== 'EPIPE' && err.code !== 'EIO') throw err;
    process.stdout.write = (() => true) as typeof process.stdout.write;
    fn();
  };
  process.stdout.on('error', onError);
  return () => process.stdout.off('error', onError);
}

/**
 * The files `retry` was given, each checked before any is touched: there is such a file, and it is
 * failed, cancelled, paused or waiting for a retry time. Throws Error naming the first id that is
 * unknown or has nothing to retry (never a silent exit 0).
 */
export function retryable(queue: UploadQueue, ids: number[]): number[] {
  for (const id of ids) {
    const f = queue.file(id);
    if (!f)
      throw new Error(`There is no file ${id} in the queue (see capture-uploader status); nothing was re-queued.`);
    if (f.replacedBy !== null)
      throw new Error(
        `File ${id} was replaced by capture ${f.replacedBy} (its recording changed and was added again); nothing was re-queued.`,
      );
    if (!f.uploadId || !['failed', 'cancelled', 'paused', 'pending'].includes(f.state)) {
      throw new Error(
        `File ${id} is ${f.state === 'waiting' ? 'waiting for its capture to be registered' : f.state}: there is nothing to retry; nothing was re-queued.`,
      );
    }
  }
  return ids;
}

/** With no files, the demo makes a dual-lens recording of its own: two lens files of random bytes. */
export function sampleRecording(dir: string): string[] {
  mkdirSync(dir, { recursive: true });
  const stamp = new Date().toISOString().replace(/[-:]/g, '').replace('T', '_').slice(0, 15);
  return [
    [`VID_${stamp}_00_001.insv`, 12 * 1024 * 1024 + 12345],
    [`VID_${stamp}_10_001.insv`, 7 * 1024 * 1024 + 678],
  ].map(([name, size]) => {
    const path = join(dir, name as string);
    writeFileSync(path, randomBytes(size as number));
    return path;
  });
}

/**
 * Opens a session for one command, sets the exit status it returns, and always closes the session.
 * A stop signal (`stop`, watched from the command's start) stops the engine at once, giving
 * answers already on their way STOP_GRACE_MS (a registration sent, a part sent in full): what is
 * in flight is committed, or marked for the in-doubt rules; the command's own steps stop between
 * two (nothing new is sent); then one line on stderr says what is left (stoppedLine) and the exit
 * status is 128 + the signal's number. A stop before the queue was opened opens nothing.
 */
export async function withSession(
  g: GlobalOptions,
  fn: (s: Session) => Promise<number | void>,
  stop: StopWatch = watchStopSignals(),
): Promise<void> {
  if (stop.signal) {
    process.stderr.write(`Stopped by ${stop.signal} before the queue was opened; nothing was changed.\n`);
    process.exitCode = SIGNAL_EXIT[stop.signal];
    stop.end();
    return;
  }
  // The support log (main/support/log-file.ts) is opened once the data dir is known: the
  // session's messages and engine events from then on go to it too.
  const support: { log?: SupportLog } = {};
  const stderr = makeLog(g.json);
  const log: Logger = {
    info: (m) => {
      support.log?.message('info', m);
      stderr.info(m);
    },
    warn: (m) => {
      support.log?.message('warn', m);
      stderr.warn(m);
    },
  };
  let s: Session;
  try {
    s = await openSession(g, log, stop);
  } catch (err) {
    stop.off();
    throw err;
  }
  support.log = new SupportLog({ dir: cliLogDir(s.dataDir), source: 'cli', secrets: () => s.secrets });
  const offSupport = s.uploader.engine.on((e) => support.log?.event(e));
  let stopping: Promise<void> | undefined;
  stop.onStop(() => {
    stopping = s.uploader.engine.stop({ sentGraceMs: STOP_GRACE_MS }).catch(() => undefined);
  });
  // What is left, taken before the queue closes, for a signal that comes while it closes.
  let left: DrainSummary | undefined;
  // Said on stderr and kept in the support log: after a hangup nobody reads the terminal.
  const sayStopped = (signal: StopSignal, summary: DrainSummary) => {
    const line = stoppedLine(signal, summary);
    support.log?.message('warn', line);
    process.stderr.write(`${line}\n`);
  };
  try {
    // A damaged queue was moved aside: carrying on as if nothing happened would let a script
    // re-add files whose captures the old queue had registered, so stop with 2.
    if (s.uploader.setAside) {
      process.stderr.write(`capture-uploader: ${printable(setAsideMessage(s.uploader.setAside))}\n`);
      process.exitCode = 2;
      return;
    }
    let code: number | void = undefined;
    try {
      if (!stop.signal) code = await fn(s);
    } catch (err) {
      // What the stop itself ended (an intake or a copy aborted) is said below, not as an error.
      if (!stop.signal) throw err;
    }
    if (stop.signal) {
      await stopping;
      sayStopped(stop.signal, s.uploader.engine.summary());
      code = SIGNAL_EXIT[stop.signal];
    }
    process.exitCode = code ?? 0;
    left = s.uploader.engine.summary();
  } finally {
    const before = stop.signal;
    await closeSession(s);
    stop.off();
    // Stopped while the queue closed: the command had done its work; it is said so, with its status.
    if (!before && stop.signal && left) {
      sayStopped(stop.signal, left);
      process.exitCode = SIGNAL_EXIT[stop.signal];
    }
    offSupport();
    stop.end();
  }
}
