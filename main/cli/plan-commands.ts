import type { Command } from 'commander';

// `capture-uploader plan show|set|clear`: the capture plan (shared/capture-plan.ts), JSON in and
// out, kept in the queue's database (main/queue/plans.ts). Apart from index.ts like the office's
// commands; plan-run.js (the queue, the media readers) is loaded only when one of these runs.

/**
 * Adds `plan show`, `plan set [FILE]` and `plan clear` to `program`. `show` reads the queue
 * read-only (works while the app or a drain runs); `set` and `clear` hold the queue's lock. Errors
 * are thrown to index.ts's handler, which prints them and exits 2; nothing is changed then.
 */
export function planCommands(program: Command): void {
  const run = async () => ({
    r: await import('./plan-run.js'),
    g: program.opts<{ dataDir?: string; json?: boolean }>(),
  });
  const plan = program
    .command('plan')
    .description(
      'the capture plan: per camera and day, the walks in order with their structure, design and type; a card that matches it is placed by itself (JSON in and out)',
    );
  plan
    .command('show')
    .description(
      'print the plan as JSON: { autoRegister, days: [{ camera, day, walks: [{ structure, design, type }] }], updatedAt }',
    )
    .action(async () => {
      const { r, g } = await run();
      r.planShow(g.dataDir, g.json);
    });
  plan
    .command('set')
    .description(
      'replace the plan with FILE (JSON as plan show prints it; "-" or none: standard input); camera null is any camera, day a date (YYYY-MM-DD), a weekday (monday…sunday) or weekdays',
    )
    .argument('[file]', 'the plan as JSON, or - for standard input', '-')
    .action(async (file: string) => {
      const { r, g } = await run();
      r.planWrite(g.dataDir, r.readPlanFile(file), g.json);
    });
  plan
    .command('clear')
    .description('empty the plan: no card is placed by it any more')
    .action(async () => {
      const { r, g } = await run();
      r.planWrite(g.dataDir, { autoRegister: false, days: [] }, g.json);
    });
}
