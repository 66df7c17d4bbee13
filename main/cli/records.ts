import { mkdirSync, mkdtempSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { categorySizing, stageWork, workPhrase } from '../../shared/asset-measure.js';
import { causeFirst } from '../../shared/causes.js';
import { categoryMeasure, stageTotals } from '../../shared/asset-stages.js';
import { HttpStatusError, reasonOf } from '../api/errors.js';
import type { ProgressRecordsConfig } from '../api/progress-records.js';
import { ProgressRecordsClient, ProgressSignInError, explain } from '../api/progress-records.js';
import { startLocalService } from '../service/local-service.js';
import { OfficeRecords, isUnreachable } from '../office/office.js';
import { RecordsStore } from '../office/records-store.js';
import type { OutboxItemView } from '../../shared/ipc.js';
import { printable, printableJson } from './printable.js';

// `capture-uploader progress …` and `assets …`: the office side, progress-records-interface.md.
// Loaded only when one of these commands runs.

/** The flags these commands read (see index.ts), each falling back to its environment variable. */
export interface RecordsFlags {
  progressUrl?: string;
  apiKey?: string;
  projectId?: string;
  email?: string;
  password?: string;
  json?: boolean;
  demo?: boolean;
  /** Folder of records.db, the outbox of entries recorded while the service could not be reached (default: the queue's folder). */
  dataDir?: string;
}

/**
 * A records command's failure that a person must act on: the account or API key refused (§7
 * 401, or the sign-in of §4 refused). Exit status 1, as the README's "Exit status" says of
 * credentials refused; `exitCode` is read by index.ts.
 */
export class PersonNeededError extends Error {
  override readonly name = 'PersonNeededError';
  readonly exitCode = 1;
}

/** Whether `err` is the service refusing the account or API key (see PersonNeededError). */
const credentialsRefused = (err: unknown) =>
  err instanceof ProgressSignInError || (err instanceof HttpStatusError && err.status === 401);

/** A client, the outbox over it, and with --demo the local service it talks to. */
interface RecordsSession {
  client: ProgressRecordsClient;
  structures: { id: string; name: string }[];
  /** Where records.db lives (for what the command says). */
  dataDir: string;
  /** Opened on first use: of the reads, only `progress list` creates records.db, to keep what it read. */
  office(): OfficeRecords;
  close(): Promise<void>;
}

/**
 * The session's outbox: records.db in `dataDir`, its entries kept under the same scope as the
 * desktop app's (service address and project), so either may send them.
 */
function outboxOf(
  dataDir: string,
  client: ProgressRecordsClient,
  scope: string,
): { office(): OfficeRecords; close(): void } {
  let office: OfficeRecords | undefined;
  return {
    office() {
      if (!office) {
        mkdirSync(dataDir, { recursive: true });
        office = new OfficeRecords(
          RecordsStore.open(join(dataDir, 'records.db')),
          () => ({ client, scope }),
          undefined,
          'cli',
        );
      }
      return office;
    },
    close: () => office?.close(),
  };
}

async function openRecords(g: RecordsFlags): Promise<RecordsSession> {
  if (g.demo) {
    const dataDir = mkdtempSync(join(tmpdir(), 'capture-uploader-demo-'));
    const service = await startLocalService(join(dataDir, 'local-service'));
    const { info } = service;
    const client = new ProgressRecordsClient({
      baseUrl: info.progressBaseUrl,
      apiKey: info.apiKey,
      projectId: info.projectId,
      ...info.account,
    });
    const outbox = outboxOf(dataDir, client, `local:${info.projectId}`);
    return {
      client,
      structures: info.namedStructures.map((s) => ({ id: s.id, name: s.name })),
      dataDir,
      office: outbox.office,
      close: async () => {
        outbox.close();
        await service.close();
      },
    };
  }
  const pick = (flag: string | undefined, env: string, name: string) => {
    const v = flag ?? process.env[env];
    if (!v) throw new Error(`${name} is required: set ${env} or give ${name}`);
    return v;
  };
  const config: ProgressRecordsConfig = {
    baseUrl: pick(g.progressUrl, 'CAPTURE_PROGRESS_URL', '--progress-url').replace(/\/+$/, ''),
    apiKey: pick(g.apiKey, 'CAPTURE_API_KEY', '--api-key'),
    projectId: pick(g.projectId, 'CAPTURE_PROJECT_ID', '--project-id'),
    // A flag given on the command line wins over the environment, as for every other setting.
    email: g.email ?? process.env.CAPTURE_EMAIL ?? '',
    password: g.password ?? process.env.CAPTURE_PASSWORD ?? '',
  };
  const client = new ProgressRecordsClient(config);
  const dataDir = resolve(g.dataDir ?? process.env.CAPTURE_DATA_DIR ?? join(homedir(), '.capture-uploader'));
  const outbox = outboxOf(dataDir, client, `${config.baseUrl} ${config.projectId}`);
  return { client, structures: [], dataDir, office: outbox.office, close: async () => outbox.close() };
}

/**
 * Runs one records command, turning the service's errors into one readable line: credentials
 * refused as PersonNeededError (exit 1), any other as Error (exit 2). Answers what `fn` answers.
 */
async function run<T>(g: RecordsFlags, fn: (s: RecordsSession) => Promise<T>): Promise<T> {
  const s = await openRecords(g);
  try {
    return await fn(s);
  } catch (err) {
    const message = explain(err, 'cli') ?? reasonOf(err);
    if (credentialsRefused(err)) throw new PersonNeededError(message, { cause: err });
    throw new Error(message);
  } finally {
    await s.close();
  }
}

// Every line is made printable here: names and details come from the service.
const out = (text: string): void => void process.stdout.write(`${text.split('\n').map(printable).join('\n')}\n`);

/**
 * The exit status of a read the progress service could not answer (no answer, or a 5xx): 4, as the
 * README's "Exit status" says. What was printed is the copy kept in records.db, said so on
 * stderr, or nothing when none is kept. Never 2, which says the command was used wrongly.
 */
export const READ_FROM_COPY = 4;

/**
 * Why the progress service could not be reached, cause first in the one wording of
 * docs/outage-words.md ("network down — No answer from the service: …"); a 5xx is the progress
 * service failing, not the capture service that wording would name. `reason` is main/api/errors.ts reasonOf's.
 */
function whyAway(reason: string): string {
  return /HTTP 5\d\d/.test(reason) ? `the progress service failed — ${reason}` : causeFirst(reason);
}

/** An ISO 8601 time as this computer's local date and time, `2026-11-27 17:40`: a copy's age is read with its date. */
function localStamp(iso: string): string {
  const d = new Date(iso);
  const two = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${two(d.getMonth() + 1)}-${two(d.getDate())} ${two(d.getHours())}:${two(d.getMinutes())}`;
}

/**
 * `progress list [--date YYYY-MM-DD]`: the project's entries, by date, kept in records.db as the
 * desktop app keeps them (OfficeRecords.readProgress; the same scope, so a `--data-dir` of the
 * app's data folder reads the app's copy). When the service cannot be reached (no answer, 5xx), the
 * copy kept is listed and a line on stderr says so, with when it was read and why; with no copy
 * kept, that line says so and nothing is listed. Answers 0, or READ_FROM_COPY (4) in both those
 * cases. A refusal (4xx) throws with the service's words.
 */
export function progressList(g: RecordsFlags, date: string | undefined): Promise<0 | typeof READ_FROM_COPY> {
  return run(g, async (s) => {
    const where = join(s.dataDir, 'records.db');
    let snap: Awaited<ReturnType<OfficeRecords['readProgress']>>;
    try {
      snap = await s.office().readProgress(date);
    } catch (err) {
      if (!isUnreachable(err)) throw err;
      process.stderr.write(
        `${printable(`No connection to the progress service (${whyAway(reasonOf(err))}), and no copy of its entries is kept in ${where} yet: run \`capture-uploader progress list\` again once the service answers.`)}\n`,
      );
      if (g.json)
        out(printableJson({ type: 'progress', entries: [], offline: true, asOf: null, offlineReason: reasonOf(err) }));
      return READ_FROM_COPY;
    }
    const { value: entries, asOf, offline, offlineReason } = snap;
    if (offline)
      process.stderr.write(
        `${printable(`No connection to the progress service: showing the copy kept in ${where}, as read ${localStamp(asOf)} (${whyAway(offlineReason ?? '')}).`)}\n`,
      );
    if (g.json) out(printableJson({ type: 'progress', entries, offline, asOf, offlineReason }));
    else if (entries.length === 0) out(date ? `No progress entries on ${date}.` : 'No progress entries yet.');
    else for (const e of entries) out(`${e.date}  ${e.status.padEnd(12)} ${e.id}  ${printable(e.details)}`);
    return offline ? READ_FROM_COPY : 0;
  });
}

/** `progress show ID`: one entry. */
export function progressShow(g: RecordsFlags, id: string): Promise<void> {
  return run(g, async ({ client }) => {
    const e = await client.getProgress(id);
    if (g.json) return out(printableJson({ type: 'progress-entry', entry: e }));
    out(`id       ${e.id}\ndate     ${e.date}\nstatus   ${e.status}\ndetails  ${printable(e.details)}`);
  });
}

/**
 * The exit statuses of the progress commands, as the README's "Exit status" says for every
 * command: 0 all done, 1 a person is needed (an entry the service refused), 3 work is left that
 * goes on by itself (entries waiting for the service). Errors still throw (exit 2).
 */
export type ProgressExit = 0 | 1 | 3;

/** "refused 2026-11-23 In Progress: … (why)" / "waiting …": one outbox entry as the CLI says it, with its id for `progress fix|drop`. */
const outboxLine = (w: OutboxItemView) =>
  `${w.state === 'refused' ? 'refused' : 'waiting'} ${w.id}  ${w.date} ${w.status}: ${printable(w.details)}${w.error ? ` (${w.error})` : ''}`;

/**
 * `progress add --date --status --details`: records an entry once (OfficeRecords.createProgress:
 * older entries waiting go first; a lost answer is looked up before any resend). Answers 0 when
 * it was recorded; 3 when the service cannot be reached (no answer, 5xx) and the entry waits in
 * records.db's outbox, which `progress send` (or the desktop app) sends later: nothing is lost.
 * A refusal (4xx) throws with the service's words, and nothing waits.
 */
export function progressAdd(
  g: RecordsFlags,
  entry: { date: string; status: 'In Progress' | 'Completed'; details: string },
): Promise<ProgressExit> {
  return run(g, async (s) => {
    const { entry: e, queued } = await s.office().createProgress(entry);
    if (g.json) out(printableJson(e ? { type: 'progress-entry', entry: e } : { type: 'progress-queued', queued }));
    else if (e) out(`recorded ${e.id}: ${e.date} ${e.status}`);
    else
      out(
        `queued: the progress service cannot be reached; the entry waits in ${join(s.dataDir, 'records.db')} and is sent by \`capture-uploader progress send\``,
      );
    return e ? 0 : 3;
  });
}

/**
 * `progress send`: sends the entries waiting in the outbox, oldest first; says what was recorded
 * and what still waits or was refused (with the id `progress fix|drop` take). Answers 1 when an
 * entry is refused or the service refuses the account or API key (a person must act), else 3
 * when entries still wait for the service, else 0.
 */
export function progressSend(g: RecordsFlags): Promise<ProgressExit> {
  return run(g, async (s) => {
    const office = s.office();
    let personNeeded = false;
    // Each entry's failure is kept on it (refused, or waiting with why): the list below says them.
    const sent = await office.sendOutbox().catch((err: unknown) => {
      personNeeded = credentialsRefused(err);
      return [];
    });
    const outbox = s.office().outboxNow();
    if (g.json) out(printableJson({ type: 'progress-sent', sent, waiting: outbox }));
    else {
      for (const e of sent) out(`recorded ${e.id}: ${e.date} ${e.status}`);
      for (const w of outbox) out(outboxLine(w));
      if (sent.length === 0 && outbox.length === 0) out('Nothing waits to be sent.');
      else if (outbox.some((w) => w.state === 'refused'))
        out(
          'Correct a refused entry with `capture-uploader progress fix ID --details …`, or give it up with `capture-uploader progress drop ID`.',
        );
      else if (outbox.length > 0)
        out(
          `The entries waiting stay in ${join(s.dataDir, 'records.db')}; nothing is lost. Run \`capture-uploader progress send\` again later.`,
        );
    }
    return personNeeded || outbox.some((w) => w.state === 'refused') ? 1 : outbox.length > 0 ? 3 : 0;
  });
}

/**
 * `progress fix ID [--date] [--status] [--details]`: corrects an entry of the outbox (refused, or
 * waiting) and sends it (OfficeRecords.revise; a waiting entry sent before is looked up first).
 * Fields not given keep their value. Answers 0 when it was recorded, 1 when refused again, 3 when
 * it waits for the service. Throws when ID is not in the outbox.
 */
export function progressFix(
  g: RecordsFlags,
  id: number,
  change: { date?: string; status?: 'In Progress' | 'Completed'; details?: string },
): Promise<ProgressExit> {
  return run(g, async (s) => {
    const office = s.office();
    const item = office.outboxNow().find((w) => w.id === id);
    if (!item)
      throw new Error(
        `No entry ${id} waits to be sent; \`capture-uploader progress send\` lists those that do, with their ids.`,
      );
    const r = await office.revise(id, {
      date: change.date ?? item.date,
      status: change.status ?? item.status,
      details: change.details ?? item.details,
    });
    if (g.json) out(printableJson({ type: 'progress-fixed', entry: r.entry, item: r.item }));
    else if (r.entry) out(`recorded ${r.entry.id}: ${r.entry.date} ${r.entry.status}`);
    else if (r.item) out(outboxLine(r.item));
    return r.entry ? 0 : r.item?.state === 'refused' ? 1 : 3;
  });
}

/** `progress drop ID`: gives up an entry of the outbox (refused or waiting). Throws when ID is not in the outbox. */
export function progressDrop(g: RecordsFlags, id: number): Promise<ProgressExit> {
  return run(g, async (s): Promise<ProgressExit> => {
    if (!(await s.office().discard(id)))
      throw new Error(
        `No entry ${id} waits to be sent; \`capture-uploader progress send\` lists those that do, with their ids.`,
      );
    out(g.json ? printableJson({ type: 'progress-dropped', id }) : `dropped ${id}: it will not be sent`);
    return 0;
  });
}

/** `assets categories`: the project's categories with their stages in sequence. */
export function assetCategories(g: RecordsFlags): Promise<void> {
  return run(g, async ({ client, structures }) => {
    const categories = await client.categories();
    if (g.json)
      return out(printableJson({ type: 'asset-categories', categories, ...(structures.length ? { structures } : {}) }));
    for (const c of categories) {
      out(`${c.name}  (${c._id}, ${c.uom})`);
      for (const s of [...c.stages].sort((a, b) => a.sequence - b.sequence))
        out(`  ${s.sequence}. ${s.name}  ${s.color}`);
    }
    for (const s of structures) out(`structure ${s.id}  ${s.name}`);
  });
}

/** `assets list --structure ID --category NAME_OR_ID`: each asset's reached stage, then the per-stage totals of the legend. */
export function assetList(g: RecordsFlags, structure: string, category: string): Promise<void> {
  return run(g, async ({ client }) => {
    const categories = await client.categories();
    const cat = categories.find((c) => c._id === category || c.id === category || c.name === category);
    if (!cat)
      throw new Error(
        `No category "${category}" in this project; the categories are: ${categories.map((c) => c.name).join(', ')}`,
      );
    const assets = await client.assets(structure, category);
    // Sized by shape in the category's unit, each stage in its own (progress-records-interface.md §2, shared/asset-measure.ts).
    const dims = { uom: cat.uom, height: cat.height ?? null };
    const sizing = categorySizing(dims, assets);
    const totals = stageTotals(cat.stages, assets, sizing.size);
    const measure = categoryMeasure(cat.uom, cat.height);
    const stages = [...cat.stages].sort((a, b) => a.sequence - b.sequence);
    const work = stages.map((s) => ({ stage: s.name, uom: s.uom ?? null, ...stageWork(s, assets, dims) }));
    const { size: _size, ...sized } = sizing;
    if (g.json)
      return out(
        printableJson({
          type: 'assets',
          category: cat.name,
          uom: cat.uom,
          measure,
          sizing: sized,
          assets,
          totals,
          stageWork: work,
        }),
      );
    out(`${assets.length} asset(s) of ${cat.name} in structure ${structure}; ${sizing.note}`);
    // The screen's legend, in the same words: each asset counts once, at its latest stage.
    out('By the latest stage each asset has reached:');
    for (const t of totals) {
      out(
        `  ${(t.stage?.name ?? 'not started').padEnd(24)} ${String(t.assets).padStart(5)} asset(s)  ${t.length.toFixed(1).padStart(10)} ${sizing.unit}  ${(t.share * 100).toFixed(1).padStart(5)}%`,
      );
    }
    const untracked = assets.filter((a) => a.doNotTrack).length;
    if (untracked) out(`  (${untracked} asset(s) marked do-not-track are not counted)`);
    out('Per-stage totals (the work done in each stage by all tracked assets, each in its own unit):');
    for (const w of work)
      out(
        `  ${w.stage.padEnd(24)} ${!w.uom ? 'no unit given' : w.measured === 0 ? `in ${w.uom}: not derived from the drawing` : workPhrase(w, w.uom, 'en-GB')}`,
      );
  });
}
