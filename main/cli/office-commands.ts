import type { Command } from 'commander';
import { Option } from 'commander';

// The office's commands (progress-records-interface.md), apart from the capture commands in
// index.ts so that neither file grows past what one reads at once. Like index.ts, records.js (got,
// zod, records.db) is loaded only when one of these runs.

/**
 * Adds `progress list|show|add|send|fix|drop` (§ progress entries) and `assets categories|list` (§ asset
 * categories, assets) to `program`. Each action reads the global options (--records-url and the
 * rest, see records.ts RecordsFlags) from `program` when it runs; errors are thrown to index.ts's
 * handler, which prints them without secrets and exits 2. The progress commands that send set the
 * exit status the README gives: 0 done, 1 an entry refused, 3 entries waiting for the service;
 * `progress list` 4 when it answered from the copy kept (the service could not be reached).
 */
export function officeCommands(program: Command): void {
  const records = async () => ({
    r: await import('./records.js'),
    g: program.opts() as import('./records.js').RecordsFlags,
  });
  const progress = program
    .command('progress')
    .description('progress entries of the project (progress-records-interface.md)');
  progress
    .command('list')
    .description(
      'list the entries, by date; when the service cannot be reached, the copy kept in records.db, said on stderr (exit 4)',
    )
    .option('--date <YYYY-MM-DD>', 'only this date')
    .action(async (o: { date?: string }) => {
      checkEntry(o);
      const { r, g } = await records();
      process.exitCode = await r.progressList(g, o.date);
    });
  progress
    .command('show')
    .argument('<id>')
    .description('show one entry')
    .action(async (id: string) => {
      const { r, g } = await records();
      await r.progressShow(g, id);
    });
  progress
    .command('add')
    .description(
      'record an entry (sent once; a lost answer is checked before sending again; kept and sent later when the service cannot be reached)',
    )
    .requiredOption('--date <YYYY-MM-DD>', 'the day the progress was made')
    .addOption(
      new Option('--status <status>', 'the entry status').choices(['In Progress', 'Completed']).makeOptionMandatory(),
    )
    .requiredOption('--details <text>', 'what was done')
    .action(async (o: { date: string; status: 'In Progress' | 'Completed'; details: string }) => {
      checkEntry(o);
      const { r, g } = await records();
      process.exitCode = await r.progressAdd(g, o);
    });
  progress
    .command('send')
    .description(
      'send the entries recorded while the service could not be reached (kept in records.db); exit 1 if one is refused, 3 if some still wait',
    )
    .action(async () => {
      const { r, g } = await records();
      process.exitCode = await r.progressSend(g);
    });
  progress
    .command('fix')
    .argument('<id>', 'the outbox entry, as `progress send` lists it')
    .description('correct an entry that was refused or still waits, and send it again')
    .option('--date <YYYY-MM-DD>', 'the day the progress was made')
    .addOption(new Option('--status <status>', 'the entry status').choices(['In Progress', 'Completed']))
    .option('--details <text>', 'what was done')
    .action(async (id: string, o: { date?: string; status?: 'In Progress' | 'Completed'; details?: string }) => {
      checkEntry(o);
      const { r, g } = await records();
      process.exitCode = await r.progressFix(g, outboxId(id), o);
    });
  progress
    .command('drop')
    .argument('<id>', 'the outbox entry, as `progress send` lists it')
    .description('give up an entry that was refused or still waits: it is not sent')
    .action(async (id: string) => {
      const { r, g } = await records();
      process.exitCode = await r.progressDrop(g, outboxId(id));
    });
  const assets = program.command('assets').description('external assets of a structure and their stage progress');
  assets
    .command('categories')
    .description("the project's asset categories and their stages")
    .action(async () => {
      const { r, g } = await records();
      await r.assetCategories(g);
    });
  assets
    .command('list')
    .description('the assets of a structure in a category, with per-stage totals')
    .requiredOption('--structure <id>', 'structure id')
    .requiredOption('--category <nameOrId>', 'category name or id')
    .action(async (o: { structure: string; category: string }) => {
      const { r, g } = await records();
      await r.assetList(g, o.structure, o.category);
    });
}

/** Throws, naming the option and the fix, when a given --date is not YYYY-MM-DD or --details says nothing. */
function checkEntry(o: { date?: string; details?: string }): void {
  if (o.date !== undefined && (!/^\d{4}-\d{2}-\d{2}$/.test(o.date) || Number.isNaN(Date.parse(o.date))))
    throw new Error(`--date ${o.date} is not a date in YYYY-MM-DD form, such as 2026-11-23.`);
  if (o.details !== undefined && o.details.trim() === '')
    throw new Error('--details is empty: say what was done, where (structure, level, gridlines).');
}

/** An outbox id given on the command line, as a number; throws naming it when it is not one. */
function outboxId(id: string): number {
  if (!/^\d+$/.test(id))
    throw new Error(`${id} is not an outbox entry id; \`capture-uploader progress send\` lists them.`);
  return Number(id);
}
