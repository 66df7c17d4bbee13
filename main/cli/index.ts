#!/usr/bin/env -S node --max-semi-space-size=1
// The young generation is held to 1 MiB per semi-space (V8's default grows it to 16 MiB): a
// drain allocates little that lives, and the default's 30 MiB of heap it never needed was a third
// of the uploader's peak RSS (≤ 100 MB uploading 4 GiB). V8 reads the flag only at
// start, hence the bin line (`env -S`: Linux coreutils, macOS, npm's Windows shims).
import { Argument, Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import type { DrainFlags, GlobalOptions } from './commands.js';
import { duration, rowId } from './arguments.js';
import { addSettingFlags, cliSettings, settingSource } from './setting-flags.js';
import { APP_VERSION } from '../../shared/version.js';
import { officeCommands } from './office-commands.js';
import { planCommands } from './plan-commands.js';
import { printable } from './printable.js';
import { setTimeLocale } from '../../shared/night-summary.js';
import { cliLocale } from './locale.js';
import { EXIT, worstExit } from './exit-status.js';
import { watchStopSignals } from './stop-signals.js';

// What a command needs is loaded when it runs (`commands.js`: the queue, engine, got and zod;
// `status.js`: only the queue), so `--help` and `status` start fast with 10,000 files queued.

// The AWS SDK serves only the local test service here and is pinned; its notice that future
// versions will need Node 22 is not for the people running this command.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

// Times follow the system's locale, 24-hour ISO when none is set (main/cli/locale.ts).
setTimeLocale(cliLocale());

// The settings' flags come from the settings table (shared/settings-table.ts), in its order.
const program = addSettingFlags(
  new Command('capture-uploader')
    .version(APP_VERSION, '--version', 'print the version and exit')
    .description(
      'Registers Insta360 captures with the capture gateway and uploads them in parts through presigned URLs.',
    ),
)
  .option('--json', 'one JSON object per line instead of text')
  .option('--demo', 'start the local test service in this process and use it')
  .showHelpAfterError()
  // Usage errors exit 2 as the README promises (commander's own exit is 1): commander throws a
  // CommanderError instead of exiting, and the catch at the end decides. Subcommands made after
  // this line inherit it.
  .exitOverride();

// `status | head -1`: the reader went away. Nobody reads the rest, so stop quietly with 141, as a
// shell's SIGPIPE would, instead of an EPIPE stack trace. `drain` listens itself (commands.ts
// onOutputClosed) to stop the engine cleanly first; then this one leaves it to drain.
process.stdout.on('error', (err: NodeJS.ErrnoException) => {
  // EIO: the terminal hung up (SIGHUP), which stop-signals.ts listens for itself.
  if (err.code !== 'EPIPE' && err.code !== 'EIO') throw err;
  if (process.stdout.listenerCount('error') > 1) return;
  process.exit(141);
});

const PLAN_FLAG = '--plan';
const PLAN_HELP =
  'place each site walk where the capture plan says (capture-uploader plan show), as the app does; a card that does not match it is not queued';

/** `--plan` places by the plan: the placement flags would contradict it. Throws Error naming them. */
function placedByPlanOnly(o: { structure?: string; design?: string; type?: string; capturedAt?: string }): void {
  const given = (['structure', 'design', 'type', 'capturedAt'] as const).filter((k) => o[k] !== undefined);
  if (given.length)
    throw new Error(
      `--plan places each walk where the plan says: leave out ${given.map((k) => `--${k.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`).join(', ')}`,
    );
}

// Nobody reads stderr any more (a closed pipe, a terminal that hung up): what it would say is in
// the support log too, and the command goes on to its clean end instead of crashing.
process.stderr.on('error', (err: NodeJS.ErrnoException) => {
  if (err.code !== 'EPIPE' && err.code !== 'EIO') throw err;
});

const captureOptions = (cmd: Command) =>
  cmd
    .option('--structure <id>', 'structure id of the captures')
    .addOption(new Option('--type <type>', 'interior or exterior').choices(['interior', 'exterior']))
    .option('--design <id>', 'design id')
    .option('--captured-at <iso>', 'capture time, ISO 8601 with zone (default: from the files)');

/**
 * The global options: the settings in force (flag, else variable, else default: setting-flags.ts
 * cliSettings), and `--bandwidth` parsed into a timetable (one entry for a single rate). Throws
 * Error naming the flag or variable.
 */
async function globals(): Promise<GlobalOptions> {
  const g = program.opts<Omit<GlobalOptions, 'bandwidth' | 'settings'>>();
  const settings = cliSettings(g);
  if (settings.bandwidth === '') return { ...g, settings, bandwidth: undefined };
  const { parseBandwidth } = await import('../../shared/bandwidth.js');
  try {
    return { ...g, settings, bandwidth: parseBandwidth(settings.bandwidth) };
  } catch (err) {
    throw new Error(`${settingSource('bandwidth', g) ?? '--bandwidth'}: ${(err as Error).message}`);
  }
}

/**
 * Runs `fn` with a session of the queue and engine (loaded now). The stop signals are watched
 * from here on, before anything is loaded (commands.ts withSession says what a stop does).
 */
async function withSession(
  fn: (
    c: typeof import('./commands.js'),
    s: import('./commands.js').Session,
    g: GlobalOptions,
  ) => Promise<number | void>,
): Promise<void> {
  const stop = watchStopSignals();
  let c: typeof import('./commands.js');
  let g: GlobalOptions;
  try {
    c = await import('./commands.js');
    g = await globals();
  } catch (err) {
    stop.off();
    throw err;
  }
  await c.withSession(g, (s) => fn(c, s, g), stop);
}

captureOptions(
  program.command('add').description('group files into captures, queue and register them').argument('<files...>'),
)
  .option('--dry-run', 'show what would be registered where, and what would not be uploaded; queue and send nothing')
  .option('--verbose', 'list every file not queued, not only how many for each reason')
  .option(PLAN_FLAG, PLAN_HELP)
  .action((files: string[], o) =>
    withSession(async (c, s, g) => {
      if (o.plan) {
        placedByPlanOnly(o);
        return (await import('./plan-run.js')).addByPlan(c, s, files, o, g.json);
      }
      if (!o.type && !g.demo) throw new Error('--type is required: interior or exterior');
      if (o.dryRun) await c.previewAdd(s, files, o, g.json);
      else return c.addFiles(s, files, o, g.json);
    }),
  );

captureOptions(
  program
    .command('import')
    .description(
      'copy a card to the library folder with verification (XXH64, read back), say when it is safe to remove; with --structure and --type also queue the copies as add does',
    )
    .argument('<card>', "the card's root, DCIM, or a camera folder"),
)
  .option(
    '--library <dir>',
    'folder the copies go to (CAPTURE_LIBRARY; default "Capture Uploader" in your Videos folder)',
  )
  .option(
    '--copy-again',
    'copy every recording, even those already copied and verified in the library (by default a card put back copies only what is new)',
  )
  .option(
    '--recordings-only',
    'copy only the recordings, leaving previews (LRV), thumbnails (THM) and MISC/ on the card (by default the whole card is copied and verified, so it may be formatted)',
  )
  .option(
    '--eject',
    "once the card is safe to remove, eject it (udisksctl on Linux, diskutil on macOS, the shell's Eject on Windows); exit 1 when it could not be",
  )
  .option(PLAN_FLAG, PLAN_HELP)
  .option('--dry-run', 'with --plan: show where the plan places the card; copy, queue and send nothing')
  .action(async (card: string, o: import('./import-card.js').ImportFlags & { plan?: boolean; dryRun?: boolean }) => {
    if (o.plan) {
      placedByPlanOnly(o);
      const { importByPlan } = await import('./plan-run.js');
      if (o.dryRun) process.exitCode = await importByPlan(card, o, await globals());
      else await withSession((c, s, g) => importByPlan(card, o, g, { c, s }));
      return;
    }
    if (o.dryRun) throw new Error('--dry-run goes with --plan for import: it shows where the plan places the card');
    // Placed copies are queued in a session (credentials needed); copies alone only touch the queue file.
    if (o.structure !== undefined)
      return withSession(async (c, s, g) => (await import('./import-card.js')).runImport(card, o, g, { c, s }, s.stop));
    const stop = watchStopSignals();
    try {
      const g = await globals();
      const { runImport } = await import('./import-card.js');
      process.exitCode = await runImport(card, o, g, undefined, stop);
    } finally {
      stop.end();
    }
  });

program
  .command('cards')
  .description('list the Insta360 cards mounted now (a volume holding DCIM/Camera*), to give to import')
  .action(async () => (await import('./import-card.js')).printCards(program.opts<GlobalOptions>().json));

program
  .command('drain')
  .description('upload until nothing more can be sent now; exit 0 only when every file completed')
  .option('--wait', 'keep going through outages on the retry schedule until every file is completed or needs a person')
  .option('--max-wait <duration>', 'with --wait, stop after this long (e.g. 8h, 45m, 90s); implies --wait', duration)
  .addHelpText(
    'after',
    `
Exit status (the same for every command; see the README):
  0    every file in the queue completed
  1    a file failed or a capture needs a person (refused, registration unknown), files are paused or
       cancelled or wait for a card pulled out, or the service refuses the credentials (fix the settings)
  2    usage errors, bad settings, or a local fault (full disk, read-only or damaged queue: a damaged
       queue is moved aside and named, with how many captures it held); nothing more was sent
  3    work is left that goes on by itself: files waiting for a scheduled retry, captures not yet
       registered (run drain again, or drain --wait)
  129, 130, 143  stopped by SIGHUP (a closed terminal), SIGINT (Ctrl-C), SIGTERM: parts stored so far are
       kept, answers already on their way get 5 s, one line says what is left; a second signal stops at once
  141  the output pipe was closed (e.g. piped into head); stopped the same way`,
  )
  .option(
    '--keep-copies <days>',
    'days the library keeps an imported copy after its capture completed (CAPTURE_KEEP_COPIES_DAYS; default 7)',
    (v) => {
      const n = Number(v);
      if (!Number.isFinite(n) || n < 0) throw new InvalidArgumentError('a number of days, 0 or more');
      return n;
    },
  )
  .action((o: DrainFlags & { keepCopies?: number }) =>
    withSession(async (c, s, g) => {
      const code = await c.drain(s, g.json, o);
      // Copies made by `import` whose captures completed long enough ago are removed.
      const { sweepLibrary } = await import('./import-card.js');
      await sweepLibrary(s.uploader.queue.db, o.keepCopies, g.json);
      return code;
    }),
  );

program
  .command('status')
  .description(
    'list captures and files with their state and percentage (needs no credentials; works while a drain runs)',
  )
  .action(async () => {
    const g = program.opts<GlobalOptions>();
    const { printStatus } = await import('./status.js');
    printStatus(g.dataDir, g.json);
  });

program
  .command('log')
  .description("what happened to each capture and file, oldest first: the night's story (reads only, like status)")
  .option('--since <time>', 'from this ISO 8601 time, or this long ago (12h, 2d)', '24h')
  .option('--limit <n>', 'at most this many entries (the newest)', (v) => Number(v), 10_000)
  .option(
    '--summary',
    'the morning summary instead: started, finished, how much, slowest hour, longest outage, what needs you',
  )
  .action(async (o: { since: string; limit: number; summary?: boolean }) => {
    const g = program.opts<GlobalOptions>();
    const { printLog } = await import('./log.js');
    printLog(g.dataDir, { since: o.since, limit: o.limit, json: g.json, summary: o.summary });
  });

program
  .command('report')
  .description(
    "save one zip for support: the support log, the queue's status and summary, versions and the settings without secrets (needs no credentials)",
  )
  .option('--out <file>', 'where to write it (default capture-uploader-report-DATE-TIME.zip here)')
  .action(async (o: { out?: string }) => {
    const { runReport } = await import('./report-command.js');
    runReport(program.opts(), o.out);
  });

program
  .command('retry')
  .description('re-queue failed or cancelled files (all when none named); they resume from the parts already stored')
  .argument('[fileIds...]')
  .action((ids: string[]) =>
    withSession(async (c, s) => {
      // With no ids: every failed or cancelled file that has an upload to resume (engine.resume skips the others).
      const files = ids.length
        ? c.retryable(s.uploader.queue, ids.map(rowId('file')))
        : s.uploader.queue
            .files(['failed', 'cancelled'])
            .filter((f) => f.uploadId)
            .map((f) => f.id);
      for (const id of files) s.uploader.engine.resume(id);
      process.stdout.write(`${files.length} file(s) queued again\n`);
    }),
  );

program
  .command('resolve')
  .description('decide a capture whose registration is unknown: register it again, or drop it')
  .argument('<captureId>', 'the capture number shown by status')
  .addOption(new Option('--register-again', 'send add-capture again').conflicts('drop'))
  .addOption(new Option('--drop', 'remove it from the queue'))
  .action((id: string, o: { registerAgain?: boolean; drop?: boolean }) =>
    withSession(async (_c, s) => {
      if (!o.registerAgain && !o.drop) throw new Error('say --register-again or --drop');
      const row = rowId('capture')(id);
      if (!s.uploader.queue.capture(row))
        throw new Error(`There is no capture ${row} in the queue (see capture-uploader status)`);
      if (o.drop) {
        const c = s.uploader.queue.capture(row)!;
        if (!['registration_unknown', 'rejected', 'failed', 'queued'].includes(c.state))
          throw new Error(`Capture ${row} is not waiting for a decision (it is ${c.state})`);
        await s.uploader.engine.removeCapture(row); // awaited: the session closes next
      } else s.uploader.engine.resolveRegistration(row, 'register-again');
    }),
  );

program
  .command('remove')
  .description(
    "remove captures or files from this computer's queue (nothing changes at the platform), even while they upload",
  )
  .addArgument(new Argument('<kind>', 'what the numbers are').choices(['capture', 'file']))
  .argument('<ids...>', 'capture or file numbers shown by status')
  .action((kind: 'capture' | 'file', ids: string[]) =>
    withSession(async (_c, s) => {
      const rows = ids.map(rowId(kind));
      // Every id is checked before any is removed: an unknown one changes nothing.
      for (const id of rows) {
        const row = kind === 'capture' ? s.uploader.queue.capture(id) : s.uploader.queue.file(id);
        if (!row)
          throw new Error(`There is no ${kind} ${id} in the queue (see capture-uploader status); nothing was removed.`);
      }
      for (const id of rows) {
        if (kind === 'capture') await s.uploader.engine.removeCapture(id);
        else await s.uploader.engine.removeFile(id);
        process.stdout.write(`removed ${kind} ${id} from this computer's queue; nothing changed at the platform\n`);
      }
    }),
  );

program
  .command('front')
  .description(
    'move a capture to the front of the queue: its registration and files go first (the last one moved first); --back puts it back in its place by age',
  )
  .argument('<captureId>', 'the capture number shown by status')
  .option('--back', 'back to its place by age')
  .action((id: string, o: { back?: boolean }) =>
    withSession(async (_c, s) => {
      const row = rowId('capture')(id);
      await s.uploader.engine.moveCapture(row, !o.back);
      process.stdout.write(
        `capture ${row} ${o.back ? 'is back in its place in the queue' : 'is at the front of the queue'}\n`,
      );
    }),
  );

program
  .command('cancel')
  .description('cancel files: nothing more of them is sent (retry re-queues them)')
  .argument('<fileIds...>')
  .action((ids: string[]) =>
    withSession(async (_c, s) => {
      const files = ids.map(rowId('file'));
      const unknown = files.find((id) => !s.uploader.queue.file(id));
      if (unknown !== undefined)
        throw new Error(
          `There is no file ${unknown} in the queue (see capture-uploader status); nothing was cancelled.`,
        );
      for (const id of files) s.uploader.engine.cancel(id);
    }),
  );

captureOptions(
  program.command('run').description('add the files (a sample recording when none), then drain').argument('[files...]'),
).action((files: string[], o) =>
  withSession(async (c, s, g) => {
    const paths = files.length ? files : c.sampleRecording(`${s.dataDir}/sample`);
    const added = await c.addFiles(s, paths, o, g.json);
    // The queue cannot be written: registering stopped at once, and a drain would stop the same way.
    // Stopped by a signal: no drain starts (withSession says what is left).
    if (added === EXIT.fault || s.stop.signal) return added;
    // Nothing queued, or a capture refused, still says 1 after a drain that had nothing left to do;
    // a capture not registered yet (3) is the drain's to decide, since it registers first.
    return worstExit(added === EXIT.later ? EXIT.done : added, await c.drain(s, g.json));
  }),
);

officeCommands(program);
planCommands(program);

program.parseAsync().catch(async (err: unknown) => {
  // Commander printed its own message (and the help) already; --help and --version exit 0.
  if (err instanceof CommanderError) {
    process.exitCode = err.exitCode === 0 ? 0 : 2;
    return;
  }
  const { plainFault } = await import('./local-faults.js');
  process.stderr.write(`capture-uploader: ${printable(plainFault(err, program.opts<GlobalOptions>().dataDir))}\n`);
  // A person must act (the progress commands' credentials refused: records.ts PersonNeededError): 1.
  process.exitCode = err instanceof Error && 'exitCode' in err && err.exitCode === 1 ? 1 : 2;
});
