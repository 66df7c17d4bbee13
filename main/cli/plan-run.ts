import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { PlanMatch, PlanView, PlanWalk, PlannedPlace } from '../../shared/capture-plan.js';
import { capturePlan, EMPTY_PLAN, matchPlan, placementOfWalk } from '../../shared/capture-plan.js';
import { captureFilesViolation, isVideo, mediaKindOf } from '../../shared/capture-rules.js';
import { localTime } from '../../shared/night-summary.js';
import { describeRegistration, placementName } from '../../shared/registration.js';
import { duplicatesWithin, inspectPaths, recordedTime } from '../intake/intake.js';
import { readMediaFacts } from '../media/metadata.js';
import { openQueueDatabase } from '../queue/db.js';
import { lockQueue } from '../queue/lock.js';
import { readPlan, writePlan } from '../queue/plans.js';
import type { UploadQueue } from '../queue/queue.js';
import { withQueueFileReadOnly } from '../queue/reader.js';
import { setAsideMessage } from './local-faults.js';
import { printable, printableJson } from './printable.js';
import { cliDataDir } from './support-paths.js';

// `capture-uploader plan show|set|clear` (the capture plan, JSON in and out) and the placement by
// the plan of `add --plan` and `import --plan` (shared/capture-plan.ts matchPlan, as the desktop
// app matches a card). Loaded only when one of them runs.

/** The plan in the queue at `dataDir` (read-only, without the lock: works while the app or a drain runs); an empty plan when there is no queue yet. */
export function loadPlan(dataDir: string | undefined): PlanView {
  const file = join(cliDataDir(dataDir), 'queue.db');
  if (!existsSync(file)) return { ...EMPTY_PLAN, updatedAt: null };
  return withQueueFileReadOnly(file, (q) => readPlan(q.db));
}

/** `plan show`: the plan as JSON (`{ autoRegister, days, updatedAt }`), one line with --json, indented otherwise. */
export function planShow(dataDir: string | undefined, json: boolean | undefined): void {
  const plan = loadPlan(dataDir);
  process.stdout.write(`${printableJson(plan, undefined, json ? undefined : 2)}\n`);
}

/**
 * Reads a plan from `source` (a file, or `-` for standard input) and checks it
 * (shared/capture-plan.ts capturePlan). Throws Error naming the source, each field at fault and
 * the fix; nothing is written then.
 */
export function readPlanFile(source: string, text = source === '-' ? readFileSync(0, 'utf8') : undefined) {
  const shown = source === '-' ? 'the plan on standard input' : source;
  let raw: string;
  try {
    raw = text ?? readFileSync(source, 'utf8');
  } catch (err) {
    throw new Error(`${shown} cannot be read (${(err as NodeJS.ErrnoException).code ?? 'error'}): check the path.`);
  }
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch (err) {
    throw new Error(
      `${shown} is not JSON (${(err as Error).message}): write the plan as {"autoRegister": false, "days": [{"camera": "IAEAN00000XXXX", "day": "monday", "walks": [{"structure": "ID", "design": "ID", "type": "interior"}]}]}; see capture-uploader plan show.`,
    );
  }
  const parsed = capturePlan.safeParse(value);
  if (!parsed.success)
    throw new Error(
      `${shown} is not a capture plan: ${parsed.error.issues.map((i) => `${i.path.join('.') || 'the plan'}: ${i.message}`).join('; ')}. Nothing was changed.`,
    );
  return parsed.data;
}

/**
 * `plan set FILE` and `plan clear`: replaces the whole plan in the queue at `dataDir`, holding the
 * queue's lock (one writer: while the app or a drain holds the queue this stops with "in use"; the
 * app's Plan panel writes it then), and prints it as stored. Throws Error for a damaged queue
 * (moved aside and named) or a queue in use.
 */
export function planWrite(dataDir: string | undefined, plan: ReturnType<typeof readPlanFile>, json?: boolean): void {
  const dir = cliDataDir(dataDir);
  const usedBefore = existsSync(join(dir, 'queue.lock'));
  const unlock = lockQueue(dir);
  try {
    const { db, setAside, damage } = openQueueDatabase(join(dir, 'queue.db'), undefined, { usedBefore });
    try {
      if (setAside)
        throw new Error(
          `The upload queue was damaged (${damage}); it was moved to ${setAside} and a new, empty queue was started. ${setAsideMessage(setAside)}`,
        );
      const view = writePlan(db, plan);
      process.stdout.write(`${printableJson(view, undefined, json ? undefined : 2)}\n`);
    } finally {
      db.close();
    }
  } finally {
    unlock();
  }
}

/** One recording of what `add --plan` or `import --plan` was given, with its time, camera and where the plan puts it. */
export interface PlanPlaced {
  key: string;
  label: string;
  paths: string[];
  /** Recorded time, ISO 8601 (main/intake/intake.ts recordedTime). */
  at: string;
  camera?: string;
  place?: PlannedPlace;
}

/** What the plan makes of a card: every recording that can be registered, with its place or none, and the match's sentences. */
export interface PlanPlacement {
  recordings: PlanPlaced[];
  match: PlanMatch;
}

/** A plan walk as the CLI names it: by ids, as `add --dry-run` does ("structure s1 · design d1 (interior)"). */
export const idsOf = (w: PlanWalk) =>
  `${placementName(`structure ${w.structure}`, w.design && `design ${w.design}`)} (${w.type})`;

/**
 * Reads `paths` as `add` does (main/intake: grouped, read-only, each recording's time as the file
 * name gives it, its camera's serial number from the Insta360 trailer) and matches the recordings
 * that would be registered to `plan`: not those refused by the capture rules, a second copy of one
 * of them (duplicatesWithin), nor one the queue holds already (`queue`, when given).
 */
export async function placeByPlan(
  paths: readonly string[],
  plan: Pick<PlanView, 'days'>,
  queue?: UploadQueue,
): Promise<PlanPlacement> {
  const { groups } = await inspectPaths(paths);
  const dupes = await duplicatesWithin(groups);
  const recordings: PlanPlaced[] = [];
  for (const [i, g] of groups.entries()) {
    if (captureFilesViolation(g.files.map((f) => f.name)) || dupes.has(i)) continue;
    if (queue && g.files.some((f) => queue.findQueuedFile(f))) continue;
    const video = g.files.find((f) => isVideo(mediaKindOf(f.name)))!;
    const facts = await readMediaFacts(video.path).catch(() => ({}) as Awaited<ReturnType<typeof readMediaFacts>>);
    recordings.push({
      key: g.key,
      label: g.label,
      paths: g.files.map((f) => f.path),
      at: recordedTime(g, facts.createdAt).iso,
      camera: facts.serialNumber,
    });
  }
  const match = matchPlan(
    recordings.map((r) => ({ key: r.key, at: Date.parse(r.at), camera: r.camera })),
    plan,
    { nameOf: idsOf },
  );
  for (const r of recordings) r.place = match.placements.get(r.key);
  return { recordings, match };
}

/** The recordings a plan placed, grouped by their walk of the plan (in the walks' order), for `add` to queue one walk at a time. */
export function byWalk(p: PlanPlacement): { walk: PlanWalk; number: number; recordings: PlanPlaced[] }[] {
  const groups = new Map<string, { walk: PlanWalk; number: number; recordings: PlanPlaced[] }>();
  for (const r of p.recordings) {
    if (!r.place) continue;
    const k = `${r.place.day.camera ?? ''}\u0000${r.place.day.day}\u0000${r.place.planWalk}`;
    if (!groups.has(k)) groups.set(k, { walk: r.place.walk, number: r.place.planWalk, recordings: [] });
    groups.get(k)!.recordings.push(r);
  }
  return [...groups.values()];
}

/**
 * Prints what the plan makes of a card: with `json` one object `{ type: 'plan-placement', complete,
 * matched, problems, recordings: [{ label, captureDateTime, camera, files, structure, design, type,
 * planWalk }] }`; otherwise the sentence `add --dry-run` gives, one line per walk with its times
 * and place, and each sentence of what could not be placed.
 */
export function printPlacement(p: PlanPlacement, json: boolean | undefined): void {
  if (json) {
    process.stdout.write(
      `${printableJson({
        type: 'plan-placement',
        complete: p.match.complete,
        matched: p.match.matched,
        problems: p.match.problems,
        recordings: p.recordings.map((r) => ({
          label: r.label,
          captureDateTime: r.at,
          camera: r.camera ?? null,
          files: r.paths,
          ...(r.place ? { ...placementOfWalk(r.place.walk), planWalk: r.place.planWalk } : { structure: null }),
        })),
      })}\n`,
    );
    return;
  }
  const placed = p.recordings.filter((r) => r.place);
  if (placed.length)
    process.stdout.write(
      `By the capture plan${p.match.matched.length ? ` (${p.match.matched.map(printable).join('; ')})` : ''}: ${printable(
        describeRegistration(
          placed.map((r) => placementOfWalk(r.place!.walk)),
          (w) => placementName(`structure ${w.structure}`, w.design && `design ${w.design}`),
        ),
      )}.\n`,
    );
  for (const w of byWalk(p)) {
    const times = w.recordings.map((r) => Date.parse(r.at));
    const span = `${localTime(Math.min(...times), { now: Math.min(...times) })}–${localTime(Math.max(...times), { now: Math.max(...times) })}`;
    process.stdout.write(
      `  walk ${w.number} of the plan (${span}): ${w.recordings.length} capture${w.recordings.length === 1 ? '' : 's'} → ${printable(idsOf(w.walk))}\n`,
    );
  }
  for (const problem of p.match.problems) process.stdout.write(`${printable(problem)}\n`);
}

/** The sentence when a card does not match its plan: nothing of it is queued, and what to do. */
export const NOT_MATCHED =
  'Nothing was queued: the card does not match the capture plan (see above). Place it with --structure and --type, or change the plan (capture-uploader plan set).';

/** The exit status of several `add`s: 2 (a local fault) before 1 (a person must act) before 3 (work left that goes on by itself) before 0. */
export const worstExit = (codes: readonly number[]) => [2, 1, 3].find((c) => codes.includes(c)) ?? 0;

/** The plan of the session's queue, or Error saying how to write one when it is empty. */
function planOrSay(plan: PlanView): PlanView {
  if (plan.days.length === 0)
    throw new Error(
      'The capture plan is empty: write one with `capture-uploader plan set FILE` (docs/cli.md), or place the captures with --structure and --type.',
    );
  return plan;
}

/**
 * `add --plan FILES`: each walk placed where the capture plan of the session's queue says, as the
 * desktop app places a card, printed first (printPlacement). A card that matches its plan whole is
 * queued one walk at a time as `add` queues it (commands.ts addFiles); one that does not is not
 * queued at all (it waits for the person: NOT_MATCHED, exit 1). With `dryRun` nothing is queued,
 * and the status says whether it matched (0) or not (1). Throws Error when the plan is empty.
 */
export async function addByPlan(
  c: typeof import('./commands.js'),
  s: import('./commands.js').Session,
  files: string[],
  o: { dryRun?: boolean; verbose?: boolean },
  json: boolean | undefined,
): Promise<number> {
  const plan = planOrSay(readPlan(s.uploader.queue.db));
  const placement = await placeByPlan(files, plan, s.uploader.queue);
  printPlacement(placement, json);
  if (o.dryRun) {
    if (!json) process.stdout.write('Nothing was queued or sent (--dry-run).\n');
    return placement.match.complete ? 0 : 1;
  }
  if (!placement.match.complete) {
    process.stderr.write(`${NOT_MATCHED}\n`);
    return 1;
  }
  const codes: number[] = [];
  for (const w of byWalk(placement))
    codes.push(
      await c.addFiles(
        s,
        w.recordings.flatMap((r) => r.paths),
        { ...placementOfWalk(w.walk), verbose: o.verbose },
        json,
      ),
    );
  return worstExit(codes);
}

/**
 * `import --plan CARD`: the card's placement by the plan is found and printed before anything is
 * copied; with `dryRun` that is all (nothing copied, queued or sent; 0 when it matches, 1 when
 * not). Otherwise the card is copied with verification as `import` copies it, and, when it matches
 * its plan whole, each recording's verified copies are queued in its walk's place as soon as they
 * verify; a card that does not match is copied and nothing of it queued (exit 1). Without
 * `session` only a dry run is possible. Throws Error when the plan is empty.
 */
export async function importByPlan(
  card: string,
  o: import('./import-card.js').ImportFlags & { dryRun?: boolean },
  g: { dataDir?: string; json?: boolean },
  session?: { c: typeof import('./commands.js'); s: import('./commands.js').Session },
): Promise<number> {
  const { importCard, queueCopies, waitingForPlacement, ejectImported } = await import('./import-card.js');
  const plan = planOrSay(session ? readPlan(session.s.uploader.queue.db) : loadPlan(g.dataDir));
  const placement = await placeByPlan([card], plan, session?.s.uploader.queue);
  printPlacement(placement, g.json);
  if (o.dryRun || !session) {
    if (!g.json) process.stdout.write('Nothing was copied, queued or sent (--dry-run).\n');
    return placement.match.complete ? 0 : 1;
  }
  const bySource = new Map(placement.recordings.flatMap((r) => r.paths.map((p) => [p, r.place] as const)));
  const codes: number[] = [];
  const { result } = await importCard(card, {
    library: o.library,
    dataDir: session.s.dataDir,
    json: g.json,
    // A stop signal stops the copy within a chunk, as import without the plan (stop-signals.ts).
    signal: session.s.stop.aborted,
    copyAgain: o.copyAgain,
    recordingsOnly: o.recordingsOnly,
    ...(placement.match.complete
      ? {
          onRecording: async (files) => {
            const place = files.map((f) => bySource.get(f.source)).find(Boolean);
            if (place && files.every((f) => f.verified))
              codes.push(await queueCopies(session.c, session.s, files, placementOfWalk(place.walk), g.json));
          },
        }
      : {}),
  });
  // Stopped by a signal: what the copy verified waits in the library for the next import or add.
  if (session.s.stop.signal) return 0;
  if (!placement.match.complete) {
    process.stderr.write(`${NOT_MATCHED}\n`);
    if (result.verified && !g.json) waitingForPlacement(result);
    return 1;
  }
  if (!result.verified) return 1;
  const ejected = o.eject ? await ejectImported(result, g.json) : 0;
  return worstExit([...codes, ejected]);
}
