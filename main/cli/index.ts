#!/usr/bin/env node
import { Command, InvalidArgumentError, Option } from 'commander';
import ms from 'ms';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { GatewayConfig } from '../api/gateway.js';
import type { Logger } from '../engine/engine.js';
import type { Uploader } from '../uploader.js';
import { openUploader } from '../uploader.js';
import type { GatewayFlags } from './config.js';
import { resolveGatewayConfig } from './config.js';
import { attachDisplay, drainExitCode, parseBandwidth, statusLines, summaryLines } from './render.js';

// The AWS SDK serves only the local test service here and is pinned; its notice that future
// versions will need Node 22 is not for the people running this command.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

interface GlobalOptions extends GatewayFlags {
  dataDir?: string;
  concurrency: number;
  bandwidth?: number;
  json?: boolean;
  demo?: boolean;
}

const positiveInt = (v: string) => {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError('a whole number of 1 or more');
  return n;
};
const duration = (v: string) => {
  const n = /^\d+(\.\d+)?$/.test(v) ? Number(v) * 1000 : ms(v as ms.StringValue);
  if (!Number.isFinite(n) || n <= 0) throw new InvalidArgumentError('a duration such as 90s, 45m or 8h (plain numbers are seconds)');
  return n;
};
const bandwidth = (v: string) => {
  try {
    return parseBandwidth(v);
  } catch (err) {
    throw new InvalidArgumentError((err as Error).message);
  }
};

/** A session: the uploader, and the local service when --demo started one. */
interface Session {
  uploader: Uploader;
  demo?: { structures: string[]; close(): Promise<void> };
  dataDir: string;
}

async function openSession(opts: GlobalOptions, log: Logger): Promise<Session> {
  const dataDir = resolve(opts.dataDir ?? process.env.CAPTURE_DATA_DIR ?? (opts.demo ? mkdtempSync(join(tmpdir(), 'capture-uploader-demo-')) : join(homedir(), '.capture-uploader')));
  let gateway: GatewayConfig;
  let demo: Session['demo'];
  if (opts.demo) {
    // The local service runs in this process (e2e/service), so the demo needs no account.
    const { startLocalService } = await import('../../e2e/service/index.js');
    const service = await startLocalService({ dataDir: join(dataDir, 'local-service') });
    const { info } = service;
    gateway = { baseUrl: info.baseUrl, authUrl: info.authUrl, apiKey: info.apiKey, projectId: info.projectId, ...info.account };
    demo = { structures: info.structures, close: () => service.close() };
    log.info(`Local test service at ${info.baseUrl}; queue and storage in ${dataDir}`);
  } else {
    gateway = resolveGatewayConfig(opts);
  }
  const uploader = openUploader({
    dataDir,
    gateway,
    concurrency: opts.concurrency,
    bandwidthBytesPerSecond: opts.bandwidth ?? null,
    log,
  });
  return { uploader, demo, dataDir };
}

async function closeSession(s: Session): Promise<void> {
  await s.uploader.close();
  await s.demo?.close();
}

function makeLog(json: boolean | undefined): Logger {
  // Diagnostics go to stderr so that --json output on stdout stays one JSON object per line.
  return {
    info: (m) => !json && process.stderr.write(`${m}\n`),
    warn: (m) => process.stderr.write(`warning: ${m}\n`),
  };
}

async function addFiles(s: Session, files: string[], o: { structure?: string; type?: 'interior' | 'exterior'; design?: string; capturedAt?: string }, json: boolean | undefined): Promise<void> {
  const structure = o.structure ?? s.demo?.structures[0];
  if (!structure) throw new Error('--structure is required: the id of the structure these captures belong to');
  const { queued, refused } = await s.uploader.add(files, { structure, type: o.type ?? 'interior', design: o.design, capturedAt: o.capturedAt });
  const captures = queued.map((id) => s.uploader.queue.capture(id)!);
  if (json) {
    process.stdout.write(`${JSON.stringify({ type: 'added', captures: captures.map((c) => ({ id: c.id, label: c.label, state: c.state, captureId: c.captureId, error: c.error, files: s.uploader.queue.filesOf(c.id).map((f) => f.fileName) })), refused })}\n`);
    return;
  }
  for (const c of captures) {
    process.stdout.write(`queued capture ${c.id} "${c.label}": ${c.state}${c.error ? ` — ${c.error}` : ''}\n`);
    for (const f of s.uploader.queue.filesOf(c.id)) process.stdout.write(`    ${f.fileName}\n`);
  }
  for (const r of refused) process.stdout.write(`not queued: ${r.path}: ${r.reason}\n`);
}

/** What `drain` was told: keep going through outages (`wait`), for at most `maxWaitMs`. */
interface DrainFlags {
  wait?: boolean;
  maxWait?: number;
}

async function drain(s: Session, json: boolean | undefined, flags: DrainFlags = {}): Promise<number> {
  const mode = json ? 'json' : process.stdout.isTTY ? 'tty' : 'lines';
  const stop = attachDisplay((l) => s.uploader.engine.on(l), mode, process.stdout);
  const onSignal = () => void s.uploader.engine.stop();
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  const wait = flags.wait || flags.maxWait !== undefined;
  const summary = await s.uploader.engine.drain({ wait, deadline: flags.maxWait !== undefined ? Date.now() + flags.maxWait : undefined });
  process.off('SIGINT', onSignal);
  process.off('SIGTERM', onSignal);
  stop();
  if (json) {
    const file = (f: { fileName: string; id: number; error: string | null }) => ({ file: f.fileName, id: f.id, error: f.error });
    process.stdout.write(
      `${JSON.stringify({
        type: 'summary',
        exitCode: drainExitCode(summary),
        completed: summary.completed.length,
        failed: summary.failed.map(file),
        waiting: summary.waiting.map((f) => ({ ...file(f), retryAt: f.nextAttemptAt === null ? null : new Date(f.nextAttemptAt).toISOString() })),
        paused: summary.paused.map(file),
        cancelled: summary.cancelled.map(file),
        notRegistered: summary.queued.map((c) => ({ capture: c.id, label: c.label, error: c.error })),
        needsAttention: summary.needsAttention.map((c) => ({ capture: c.id, label: c.label, state: c.state, error: c.error })),
        blocked: summary.blocked,
      })}\n`,
    );
  } else for (const line of summaryLines(summary)) process.stdout.write(`${line}\n`);
  return drainExitCode(summary);
}

/** With no files, the demo makes a dual-lens recording of its own: two lens files of random bytes. */
function sampleRecording(dir: string): string[] {
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

const program = new Command('capture-uploader')
  .description('Registers Insta360 captures with the capture gateway and uploads them in parts through presigned URLs.')
  .option('--base-url <url>', 'capture gateway {base_url} (CAPTURE_BASE_URL)')
  .option('--auth-url <url>', 'sign-in service {auth_url} (CAPTURE_AUTH_URL)')
  .option('--api-key <key>', 'project API key (CAPTURE_API_KEY; prefer the variable: flags show in process lists)')
  .option('--project-id <id>', 'project id (CAPTURE_PROJECT_ID)')
  .option('--email <email>', 'account email (CAPTURE_EMAIL)')
  .option('--password <password>', 'account password (CAPTURE_PASSWORD; prefer the variable)')
  .option('--data-dir <dir>', 'folder of the upload queue (CAPTURE_DATA_DIR; default ~/.capture-uploader)')
  .option('--concurrency <n>', 'part uploads at once, shared by all files', positiveInt, 4)
  .option('--bandwidth <rate>', 'upload bandwidth limit, e.g. 2M (bytes per second)', bandwidth)
  .option('--json', 'one JSON object per line instead of text')
  .option('--demo', 'start the local test service in this process and use it')
  .showHelpAfterError();

const captureOptions = (cmd: Command) =>
  cmd
    .option('--structure <id>', 'structure id of the captures')
    .addOption(new Option('--type <type>', 'interior or exterior').choices(['interior', 'exterior']))
    .option('--design <id>', 'design id')
    .option('--captured-at <iso>', 'capture time, ISO 8601 with zone (default: from the files)');

async function withSession(fn: (s: Session, g: GlobalOptions) => Promise<number | void>): Promise<void> {
  const g = program.opts<GlobalOptions>();
  const s = await openSession(g, makeLog(g.json));
  try {
    process.exitCode = (await fn(s, g)) ?? 0;
  } finally {
    await closeSession(s);
  }
}

captureOptions(program.command('add').description('group files into captures, queue and register them').argument('<files...>')).action((files: string[], o) =>
  withSession(async (s, g) => {
    if (!o.type && !g.demo) throw new Error('--type is required: interior or exterior');
    await addFiles(s, files, o, g.json);
  }),
);

program
  .command('drain')
  .description('upload until nothing more can be sent now; exit 0 only when every file completed')
  .option('--wait', 'keep going through outages on the retry schedule until every file is completed or needs a person')
  .option('--max-wait <duration>', 'with --wait, stop after this long (e.g. 8h, 45m, 90s); implies --wait', duration)
  .addHelpText(
    'after',
    `
Exit status:
  0  every file in the queue completed
  1  a file failed or a capture needs a person (refused, registration unknown), or files are paused or cancelled
  2  bad arguments or settings (nothing was sent)
  3  work is left that goes on by itself: files waiting for a scheduled retry, captures not yet
     registered (run drain again, or drain --wait), or the service refuses the credentials`,
  )
  .action((o: DrainFlags) => withSession((s, g) => drain(s, g.json, o)));

program
  .command('status')
  .description('list captures and files with their state and percentage')
  .action(() =>
    withSession(async (s, g) => {
      if (g.json) {
        const q = s.uploader.queue;
        const captures = q.captures().map((c) => ({ ...c, files: q.filesOf(c.id).map((f) => ({ ...f, partsDone: q.parts(f.id).filter((p) => p.etag).length })) }));
        process.stdout.write(`${JSON.stringify({ type: 'status', captures })}\n`);
      } else for (const line of statusLines(s.uploader.queue)) process.stdout.write(`${line}\n`);
    }),
  );

program
  .command('retry')
  .description('re-queue failed or cancelled files (all when none named); they resume from the parts already stored')
  .argument('[fileIds...]')
  .action((ids: string[]) =>
    withSession(async (s) => {
      const files = ids.length ? ids.map(Number) : s.uploader.queue.files(['failed', 'cancelled']).map((f) => f.id);
      for (const id of files) s.uploader.engine.resume(id);
    }),
  );

program
  .command('resolve')
  .description('decide a capture whose registration is unknown: register it again, or drop it')
  .argument('<captureId>', 'the capture number shown by status')
  .addOption(new Option('--register-again', 'send add-capture again').conflicts('drop'))
  .addOption(new Option('--drop', 'remove it from the queue'))
  .action((id: string, o: { registerAgain?: boolean; drop?: boolean }) =>
    withSession(async (s) => {
      if (!o.registerAgain && !o.drop) throw new Error('say --register-again or --drop');
      s.uploader.engine.resolveRegistration(Number(id), o.drop ? 'drop' : 'register-again');
    }),
  );

captureOptions(program.command('run').description('add the files (a sample recording when none), then drain').argument('[files...]')).action((files: string[], o) =>
  withSession(async (s, g) => {
    const paths = files.length ? files : sampleRecording(join(s.dataDir, 'sample'));
    await addFiles(s, paths, o, g.json);
    return drain(s, g.json);
  }),
);

program.parseAsync().catch((err: unknown) => {
  process.stderr.write(`capture-uploader: ${(err as Error).message}\n`);
  process.exitCode = 2;
});
