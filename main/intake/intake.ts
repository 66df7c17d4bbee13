import { lstat, open, realpath } from 'node:fs/promises';
import { DateTime } from 'luxon';
import { basename, resolve } from 'node:path';
import { captureLabel } from '../../shared/capture-label.js';
import { captureFilesViolation, contentTypeOf, mediaKindOf } from '../../shared/capture-rules.js';
import type { WarnedProposal } from '../../shared/capture-warnings.js';
import { NO_TRAILER, proposalWarnings } from '../../shared/capture-warnings.js';
import type { CandidateFile, ProposedCapture } from '../../shared/grouping.js';
import { groupIntoCaptures, isMediaName, noRecordingsIn } from '../../shared/grouping.js';
import type { CaptureRequest } from '../api/gateway.js';
import type { FileFacts } from './file-identity.js';
import { contentFingerprint, fileFacts } from './file-identity.js';
import { listTree } from '../card/walk.js';
import type { NewFile } from '../queue/queue.js';

/** What a person chose for the captures being added. `capturedAt` is ISO 8601 with a zone. */
export interface IntakeChoices {
  project: string;
  structure: string;
  design?: string;
  type: 'interior' | 'exterior';
  /** Overrides the capture time read from the files. */
  capturedAt?: string;
  /** §2 Capture.mode; the interface gives `360 Video`. */
  mode?: string;
}

/** Optional per-file facts read from the media (see main/media), used to fill the capture. */
export interface MediaFacts {
  /** ISO 8601 with zone. */
  createdAt?: string;
  frameRate?: number;
  cameraModel?: string;
  serialNumber?: string;
  /** Seconds, from the container: a capture much shorter than the others of its card is said. */
  durationSeconds?: number;
}

/**
 * A capture ready to be queued: its label, the add-capture request, the files behind it, and what a
 * person should know of it (shared/capture-warnings.ts proposalWarnings over the captures given
 * together, as the app's inspection says them: a missing trailer, a lone lens, much shorter).
 */
export interface PreparedCapture {
  label: string;
  request: CaptureRequest;
  files: NewFile[];
  warnings: string[];
}

/** A path that will not be queued, and why (the reason names what to do). */
export interface RefusedPath {
  path: string;
  reason: string;
}

const ISO_WITH_ZONE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})$/;

/**
 * Turns dropped paths (files or folders, walked to any depth) into captures ready to queue, applying
 * every rule of capture-upload-interface.md §7–§8 before anything is sent. Files are only
 * stat'ed and opened read-only to prove they can be read; nothing is ever written to them.
 *
 * The capture time is `capturedAt` when given, else recordedTime's: the camera's clock as the
 * Insta360 file name gives it, in this machine's zone, whichever convention the MP4 header follows;
 * the header's time alone only for a name without one; the file's modification time last.
 * `warnings` names files queued all the same whose media looks odd (no MP4 header, no Insta360
 * trailer, a header time that is neither the name's wall time nor it in UTC); each capture's own
 * `warnings` are the app's for it among the captures given (with `readFacts` only: they need the
 * media). Aborting `signal` stops it between two files or two captures and rejects with the
 * signal's reason. Throws Error when `capturedAt` is not ISO 8601 with a zone.
 */
export async function prepareCaptures(
  paths: readonly string[],
  choices: IntakeChoices,
  readFacts?: (path: string) => Promise<MediaFacts>,
  signal?: AbortSignal,
): Promise<{ captures: PreparedCapture[]; refused: RefusedPath[]; warnings: RefusedPath[] }> {
  if (
    choices.capturedAt !== undefined &&
    !(ISO_WITH_ZONE.test(choices.capturedAt) && !Number.isNaN(Date.parse(choices.capturedAt)))
  ) {
    throw new Error(
      `--captured-at ${choices.capturedAt} is not an ISO 8601 time with a zone, e.g. 2026-11-20T15:04:05+01:00`,
    );
  }
  const { groups, refused } = await inspectPaths(paths, signal);
  const prepared: PreparedCapture[] = [];
  const warnings: RefusedPath[] = [];
  // What proposalWarnings reads of each capture prepared, in the same order.
  const proposals: WarnedProposal[] = [];
  for (const group of groups) {
    signal?.throwIfAborted();
    const violation = captureFilesViolation(group.files.map((f) => f.name));
    if (violation) {
      for (const f of group.files) refused.push({ path: f.path, reason: violation });
      continue;
    }
    let files: NewFile[];
    try {
      files = await Promise.all(
        group.files.map(async (f) => ({
          path: f.path,
          fileName: f.name,
          contentType: contentTypeOf(mediaKindOf(f.name)!),
          size: f.size,
          mtimeMs: f.mtimeMs,
          dev: f.dev,
          ino: f.ino,
          ctimeNs: f.ctimeNs,
          fingerprint: await contentFingerprint(f.path, f.size),
        })),
      );
    } catch (err) {
      for (const f of group.files)
        refused.push({ path: f.path, reason: cannotRead((err as NodeJS.ErrnoException).code ?? 'error') });
      continue;
    }
    const first = group.files[0]!;
    let facts: MediaFacts = {};
    let mediaError: string | undefined;
    if (readFacts) {
      // Odd media is uploaded as it is, with a word: the platform may still make sense of it.
      try {
        facts = await readFacts(first.path);
        if (mediaKindOf(first.name) === 'insv' && !facts.cameraModel) {
          warnings.push({ path: first.path, reason: NO_TRAILER });
        }
      } catch (err) {
        mediaError = (err as Error).message;
        warnings.push({
          path: first.path,
          reason:
            'No readable MP4 header (moov box): the file may be truncated or not a video. Uploaded as it is; check it plays.',
        });
      }
    }
    // The camera's clock as its file name gives it, whichever convention the header follows.
    const recorded = recordedTime(group, facts.createdAt);
    if (recorded.note) warnings.push({ path: first.path, reason: recorded.note });
    const captureDateTime = choices.capturedAt ?? recorded.iso;
    const request: CaptureRequest = {
      project: choices.project,
      structure: choices.structure,
      captureDateTime,
      type: choices.type,
      mode: choices.mode ?? '360 Video',
      sourceType: 'bot',
      ...(choices.design ? { design: choices.design } : {}),
      ...(facts.serialNumber ? { deviceId: facts.serialNumber } : {}),
      metaDetails: {
        type: choices.type,
        videoType: '360',
        startTime: captureDateTime,
        ...(facts.frameRate ? { frameRate: facts.frameRate } : {}),
        ...(facts.cameraModel ? { cameraName: facts.cameraModel } : {}),
        ...(facts.serialNumber ? { deviceID: facts.serialNumber } : {}),
      },
      files: files.map((f, i) => ({
        frameIndex: i + 1,
        fileName: f.fileName,
        contentType: f.contentType,
        size: f.size,
      })),
    };
    // Named by the time the platform gets (a shift or correction included), not the camera's clock.
    prepared.push({
      label: captureLabel({ capturedAt: captureDateTime, fileNames: files.map((f) => f.fileName) }),
      request,
      files,
      warnings: [],
    });
    proposals.push({
      kind: group.kind,
      files: group.files,
      media: {
        durationSeconds: facts.durationSeconds,
        camera: { model: facts.cameraModel },
        ...(mediaError !== undefined ? { error: mediaError } : {}),
      },
    });
  }
  // The app's own words for them (its inspection says the same of the same card); without the
  // media read, nothing can be said.
  if (readFacts) proposalWarnings(proposals).forEach((w, i) => (prepared[i]!.warnings = w));
  return { captures: prepared, refused, warnings };
}

/** A file found by inspectPaths: its resolved absolute path, name, and what stat says (FileFacts). */
type InspectedFile = CandidateFile & FileFacts;

/** A group of files from inspectPaths: the grouping's capture, with each file's stat facts. */
export type InspectedGroup = Omit<ProposedCapture, 'files'> & { files: InspectedFile[] };

/**
 * Expands dropped paths (folders walked to any depth, main/card/walk.ts), proves each file can be read (opened read-only
 * and closed) and groups them into captures (shared/grouping.ts). Paths are made absolute and
 * resolved (symbolic links followed once): one file reached by two paths in one drop is kept once,
 * and links that loop or lead nowhere are listed with the reason. Returns the groups and every
 * path that will not be uploaded, with its reason. Aborting `signal` stops it between two files
 * and rejects with the signal's reason.
 */
export async function inspectPaths(
  paths: readonly string[],
  signal?: AbortSignal,
): Promise<{ groups: InspectedGroup[]; refused: RefusedPath[] }> {
  const refused: RefusedPath[] = [];
  const candidates: InspectedFile[] = [];
  for (const p of await expand(paths, refused, signal)) {
    // Stopped between files: an inspection writes nothing, so nothing is left half-done.
    signal?.throwIfAborted();
    const problem = await unreadable(p.path);
    if (problem) refused.push({ path: p.path, reason: problem });
    else candidates.push(p);
  }
  const { captures, setAside } = groupIntoCaptures(candidates);
  for (const s of setAside) refused.push({ path: s.file.path, reason: s.reason });
  return { groups: captures as InspectedGroup[], refused };
}

/**
 * The capture time to suggest without media metadata: the Insta360 name's local time, else the
 * file's modification time (ISO 8601 UTC). In the hour a clock change repeats (autumn), the
 * name's wall time happens twice: the pass nearest the file's modification time (written as the
 * recording ended) is taken, so two recordings an hour apart keep their order.
 */
export function suggestedTime(group: InspectedGroup): string {
  const mtime = group.files[0]!.mtimeMs;
  if (!group.recordedAt) return new Date(mtime).toISOString();
  const candidates = passesOfWallTime(group.recordedAt);
  const best = candidates.reduce((a, b) => (Math.abs(b - mtime) < Math.abs(a - mtime) ? b : a));
  return new Date(best).toISOString();
}

/**
 * The groups of one drop that hold the same recording as an earlier group of it (the same content,
 * at another path: a card folder copied twice onto the card, two `.mp4` files that are copies):
 * index → the index of the earliest such group. Registering both would refuse the second after the
 * confirmation (the queue keeps one recording once, by content fingerprint), so the table says it
 * before. Only files whose size another group's file shares are read (contentFingerprint: the
 * first and last MiB), so a card of distinct recordings reads nothing. A file that cannot be read
 * is taken as distinct. Aborting `signal` stops it between two files.
 */
export async function duplicatesWithin(
  groups: readonly Pick<InspectedGroup, 'files'>[],
  signal?: AbortSignal,
): Promise<Map<number, number>> {
  const groupsOfSize = new Map<number, Set<number>>();
  groups.forEach((g, i) => {
    for (const f of g.files) groupsOfSize.set(f.size, (groupsOfSize.get(f.size) ?? new Set()).add(i));
  });
  const firstWith = new Map<string, number>();
  const found = new Map<number, number>();
  for (const [i, g] of groups.entries()) {
    for (const f of g.files) {
      if ((groupsOfSize.get(f.size)?.size ?? 0) < 2) continue;
      signal?.throwIfAborted();
      const print = await contentFingerprint(f.path, f.size).catch(() => undefined);
      if (print === undefined) continue;
      const earlier = firstWith.get(print);
      if (earlier === undefined) firstWith.set(print, i);
      else if (earlier !== i && !found.has(i)) found.set(i, earlier);
    }
  }
  return found;
}

/**
 * How far apart (ms) the MP4 header's time and the file name's may be and still be read as the
 * same moment: a camera writes the two from one clock, a second or two apart at most.
 */
const HEADER_TOLERANCE_MS = 2_000;

/** A recording's time as recordedTime decides it: ISO 8601 UTC, where it came from, and a sentence when the header disagrees. */
export interface RecordedTime {
  iso: string;
  /** `name`: the file name's wall time (the header agreeing, or absent); `header`: the header alone (no time in the name); `mtime`: neither. */
  source: 'name' | 'header' | 'mtime';
  /** Said in the registration table when the header's time is neither the name's wall time nor it in UTC: the name's time is used. */
  note?: string;
}

/** `YYYY-MM-DD HH:MM:SS` of an instant read as UTC: a header's digits as the camera wrote them. */
const digitsOf = (ms: number) => new Date(ms).toISOString().slice(0, 19).replace('T', ' ');

/**
 * The recorded time of a group: the camera's clock as its Insta360 file name gives it
 * (`recordedAt`, a wall time), in this computer's zone, whichever convention the MP4 header's
 * creation time (`headerIso`, read as UTC as QuickTime defines it) follows:
 * - a header whose digits equal the name's wall time (within HEADER_TOLERANCE_MS) is the camera's
 *   wall time (many cameras write local time there): the name's time, in the pass of a repeated
 *   hour nearest the file's modification time (suggestedTime);
 * - a header that, read as UTC, lands on the name's wall time in this zone is UTC: that pass of
 *   the name's time (the header tells the two passes of a repeated autumn hour apart);
 * - a header that is neither: the name's time, with a `note` naming both;
 * - a name without a time: the header's instant alone, else the file's modification time.
 */
export function recordedTime(group: Pick<InspectedGroup, 'recordedAt' | 'files'>, headerIso?: string): RecordedTime {
  const header = headerIso ? Date.parse(headerIso) : NaN;
  const wall = group.recordedAt;
  if (!wall) {
    if (Number.isFinite(header)) return { iso: new Date(header).toISOString(), source: 'header' };
    return { iso: new Date(group.files[0]!.mtimeMs).toISOString(), source: 'mtime' };
  }
  const byName = { iso: suggestedTime(group as InspectedGroup), source: 'name' as const };
  if (!Number.isFinite(header)) return byName;
  // The header holds the camera's wall time: the same digits as the name.
  if (Math.abs(header - Date.parse(`${wall}Z`)) <= HEADER_TOLERANCE_MS) return byName;
  // The header is UTC: it is one of the instants this zone's clock reads the name's time at.
  const pass = passesOfWallTime(wall).find((p) => Math.abs(header - p) <= HEADER_TOLERANCE_MS);
  if (pass !== undefined) return { iso: new Date(pass).toISOString(), source: 'name' };
  return {
    ...byName,
    note:
      `The MP4 header's time (${digitsOf(header)}) is neither the file name's time (${wall.replace('T', ' ')}) ` +
      `nor that time in UTC: the file name's time (the camera's clock) is used. Check the camera's clock and time zone.`,
  };
}

/**
 * The instants (ms since 1970) at which this computer's clock reads the local wall time `wall`
 * (`YYYY-MM-DDTHH:MM:SS`): one, or two in the hour a clock change repeats, by the zone's own
 * rules (Luxon); a wall time a clock change skips gives the instant Luxon moves it to.
 */
export function passesOfWallTime(wall: string): number[] {
  const dt = DateTime.fromISO(wall);
  if (!dt.isValid) return [new Date(wall).getTime()];
  return dt
    .getPossibleOffsets()
    .map((p) => p.toMillis())
    .sort((a, b) => a - b);
}

async function expand(
  paths: readonly string[],
  refused: RefusedPath[],
  signal?: AbortSignal,
): Promise<InspectedFile[]> {
  const out: InspectedFile[] = [];
  const seen = new Map<string, string>(); // dev:ino → the path it was first found at
  // `shownAs` is the path as found, for the message; `path` the one read (a link's own: read through it).
  const add = (path: string, name: string, facts: FileFacts, shownAs: string) => {
    const key = `${facts.dev}:${facts.ino}`;
    const first = seen.get(key);
    if (first !== undefined) {
      if (shownAs !== first)
        refused.push({ path: shownAs, reason: `The same file as ${first} (another path to it); it is added once.` });
      return;
    }
    seen.set(key, path);
    out.push({ path, name, ...facts });
  };
  for (const given of paths) {
    signal?.throwIfAborted();
    const path = resolve(given);
    const found = await follow(path);
    if ('reason' in found) {
      refused.push({ path, reason: found.reason });
      continue;
    }
    if (found.isDirectory) {
      // Walked to any depth: a card's root, DCIM, a camera folder or a folder of cards.
      const { files, unlistable } = await listTree(found.real, signal);
      for (const u of unlistable) {
        // One folder that cannot be listed is named with the reason; the rest is still added.
        const why = cannotRead(u.code).replace(/^Cannot/, 'cannot');
        refused.push(
          u.path === found.real
            ? { path, reason: `A folder that ${why}` }
            : { path: u.path, reason: `A sub-folder that ${why} What it holds is not added.` },
        );
      }
      if (unlistable.some((u) => u.path === found.real)) continue;
      let media = 0;
      for (const at of files) {
        signal?.throwIfAborted();
        const child = await follow(at);
        if ('reason' in child) refused.push({ path: at, reason: child.reason });
        else if (child.isFile) {
          // A link keeps its own name (an Insta360 name carries the pairing and the time, as the
          // AWS CLI keeps a link's name) and is read through; its target's facts say what it holds.
          if (isMediaName(basename(at))) media++;
          add(at, basename(at), child.facts, at);
        }
      }
      // A folder with nothing to upload says so, rather than giving nothing at all.
      if (media === 0) refused.push({ path, reason: noRecordingsIn(path) });
    } else if (found.isFile) {
      add(path, basename(path), found.facts, path);
    } else {
      refused.push({ path, reason: 'Not a regular file.' });
    }
  }
  return out;
}

/**
 * A path resolved to what it names: a symbolic link is followed (once: realpath resolves the
 * chain), a loop or a link to nothing is explained; only regular files and folders are taken.
 */
async function follow(
  path: string,
): Promise<{ real: string; isFile: boolean; isDirectory: boolean; facts: FileFacts } | { reason: string }> {
  let link = false;
  try {
    link = (await lstat(path)).isSymbolicLink();
    const real = await realpath(path);
    const facts = await fileFacts(real);
    const kind = await lstat(real);
    return { real, isFile: kind.isFile(), isDirectory: kind.isDirectory(), facts };
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? 'error';
    if (code === 'ELOOP')
      return {
        reason:
          'A symbolic link that loops back on itself: it leads to no file. Remove the link or point it at the recording.',
      };
    if (link && code === 'ENOENT')
      return {
        reason:
          'A symbolic link to something that no longer exists. Reconnect the drive it pointed to, or remove the link.',
      };
    return { reason: cannotRead(code) };
  }
}

/** Why a path cannot be read, and what to do, by its errno code. */
function cannotRead(code: string): string {
  return code === 'EACCES' || code === 'EPERM'
    ? `Cannot be read (${code}): this user has no permission to read it; copy it somewhere readable.`
    : `Cannot be read (${code}): check the path and that the card or drive is still connected.`;
}

/** Opens the file read-only and closes it again; answers why it cannot be read, if it cannot. */
async function unreadable(path: string): Promise<string | undefined> {
  try {
    const fh = await open(path, 'r');
    await fh.close();
    return undefined;
  } catch (err) {
    return cannotRead((err as NodeJS.ErrnoException).code ?? 'error');
  }
}
