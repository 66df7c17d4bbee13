import type { Command } from 'commander';
import { Option } from 'commander';

// The office's commands (progress-records-interface.md), apart from the capture commands in
// index.ts so that neither file grows past what one reads at once. Like index.ts, records.js (got,
// zod, records.db) is loaded only when one of these runs.

/**
 * Adds `progress list|show|add|send` (§ progress entries) and `assets categories|list` (§ asset
 * categories, assets) to `program`. Each action reads the global options (--records-url and the
 * rest, see records.ts RecordsFlags) from `program` when it runs; errors are thrown to index.ts's
 * handler, which prints them without secrets and exits 2.
 */
export function officeCommands(program: Command): void {
  const records = async () => ({ r: await import('./records.js'), g: program.opts() as import('./records.js').RecordsFlags });
  const progress = program.command('progress').description('progress entries of the project (progress-records-interface.md)');
  progress
    .command('list')
    .description('list the entries, by date')
    .option('--date <YYYY-MM-DD>', 'only this date')
    .action(async (o: { date?: string }) => {
      const { r, g } = await records();
      await r.progressList(g, o.date);
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
    .description('record an entry (sent once; a lost answer is checked before sending again; kept and sent later when the service cannot be reached)')
    .requiredOption('--date <YYYY-MM-DD>', 'the day the progress was made')
    .addOption(new Option('--status <status>', 'the entry status').choices(['In Progress', 'Completed']).makeOptionMandatory())
    .requiredOption('--details <text>', 'what was done')
    .action(async (o: { date: string; status: 'In Progress' | 'Completed'; details: string }) => {
      if (!/^\d{4}-\d{2}-\d{2}$/.test(o.date) || Number.isNaN(Date.parse(o.date))) throw new Error(`--date ${o.date} is not a date in YYYY-MM-DD form`);
      const { r, g } = await records();
      await r.progressAdd(g, o);
    });
  progress
    .command('send')
    .description('send the entries recorded while the service could not be reached (kept in records.db)')
    .action(async () => {
      const { r, g } = await records();
      await r.progressSend(g);
    });
  const assets = program.command('assets').description('external assets of a structure and their stage progress');
  assets
    .command('categories')
    .description('the project\'s asset categories and their stages')
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
