import { open, readdir, stat } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { captureFilesViolation, contentTypeOf, mediaKindOf } from '../shared/capture-rules.js';
import type { CandidateFile, ProposedCapture } from '../shared/grouping.js';
import { groupIntoCaptures } from '../shared/grouping.js';
import type { CaptureRequest } from './api/gateway.js';
import type { NewFile } from './queue/queue.js';

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
}

/** A capture ready to be queued: its label, the add-capture request and the files behind it. */
export interface PreparedCapture {
  label: string;
  request: CaptureRequest;
  files: NewFile[];
}

/** A path that will not be queued, and why (the reason names what to do). */
export interface RefusedPath {
  path: string;
  reason: string;
}

const ISO_WITH_ZONE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})$/;

/**
 * Turns dropped paths (files or folders, one level deep) into captures ready to queue, applying
 * every rule of capture-upload-interface.md §7–§8 before anything is sent. Files are only
 * stat'ed and opened read-only to prove they can be read; nothing is ever written to them.
 *
 * The capture time is, in order: `capturedAt`, the media's own creation time (`readFacts`), the
 * date-time in an Insta360 file name (local time of this machine), the file's modification time.
 * Throws Error when `capturedAt` is not ISO 8601 with a zone.
 */
export async function prepareCaptures(
  paths: readonly string[],
  choices: IntakeChoices,
  readFacts?: (path: string) => Promise<MediaFacts>,
): Promise<{ captures: PreparedCapture[]; refused: RefusedPath[] }> {
  if (choices.capturedAt !== undefined && !(ISO_WITH_ZONE.test(choices.capturedAt) && !Number.isNaN(Date.parse(choices.capturedAt)))) {
    throw new Error(`--captured-at ${choices.capturedAt} is not an ISO 8601 time with a zone, e.g. 2026-11-20T15:04:05+01:00`);
  }
  const { groups, refused } = await inspectPaths(paths);
  const prepared: PreparedCapture[] = [];
  for (const group of groups) {
    const violation = captureFilesViolation(group.files.map((f) => f.name));
    if (violation) {
      for (const f of group.files) refused.push({ path: f.path, reason: violation });
      continue;
    }
    const files: NewFile[] = group.files.map((f) => ({
      path: f.path,
      fileName: f.name,
      contentType: contentTypeOf(mediaKindOf(f.name)!),
      size: f.size,
      mtimeMs: f.mtimeMs,
    }));
    const facts = readFacts ? await readFacts(group.files[0]!.path).catch(() => ({}) as MediaFacts) : {};
    const captureDateTime = choices.capturedAt ?? facts.createdAt ?? suggestedTime(group);
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
      files: files.map((f, i) => ({ frameIndex: i + 1, fileName: f.fileName, contentType: f.contentType, size: f.size })),
    };
    prepared.push({ label: group.label, request, files });
  }
  return { captures: prepared, refused };
}

/** A group of files from inspectPaths: the grouping's capture, with each file's modification time (ms). */
export type InspectedGroup = Omit<ProposedCapture, 'files'> & { files: (CandidateFile & { mtimeMs: number })[] };

/**
 * Expands dropped paths (folders one level deep), proves each file can be read (opened read-only
 * and closed) and groups them into captures (shared/grouping.ts). Returns the groups and every
 * path that will not be uploaded, with its reason.
 */
export async function inspectPaths(paths: readonly string[]): Promise<{ groups: InspectedGroup[]; refused: RefusedPath[] }> {
  const refused: RefusedPath[] = [];
  const candidates: (CandidateFile & { mtimeMs: number })[] = [];
  for (const p of await expand(paths, refused)) {
    const problem = await unreadable(p.path);
    if (problem) refused.push({ path: p.path, reason: problem });
    else candidates.push(p);
  }
  const { captures, setAside } = groupIntoCaptures(candidates);
  for (const s of setAside) refused.push({ path: s.file.path, reason: s.reason });
  return { groups: captures as InspectedGroup[], refused };
}

/** The capture time to suggest without media metadata: the Insta360 name's local time, else the file's modification time (ISO 8601 UTC). */
export function suggestedTime(group: InspectedGroup): string {
  return group.recordedAt ? new Date(group.recordedAt).toISOString() : new Date(group.files[0]!.mtimeMs).toISOString();
}

async function expand(paths: readonly string[], refused: RefusedPath[]): Promise<(CandidateFile & { mtimeMs: number })[]> {
  const out: (CandidateFile & { mtimeMs: number })[] = [];
  for (const path of paths) {
    let s;
    try {
      s = await stat(path);
    } catch (err) {
      refused.push({ path, reason: `Cannot be read (${(err as NodeJS.ErrnoException).code ?? 'error'}): check the path and that the card or drive is still connected.` });
      continue;
    }
    if (s.isDirectory()) {
      const names = (await readdir(path)).sort();
      for (const name of names) {
        const child = join(path, name);
        const cs = await stat(child).catch(() => undefined);
        if (cs?.isFile()) out.push({ path: child, name, size: cs.size, mtimeMs: cs.mtimeMs });
      }
    } else if (s.isFile()) {
      out.push({ path, name: basename(path), size: s.size, mtimeMs: s.mtimeMs });
    } else {
      refused.push({ path, reason: 'Not a regular file.' });
    }
  }
  return out;
}

/** Opens the file read-only and closes it again; answers why it cannot be read, if it cannot. */
async function unreadable(path: string): Promise<string | undefined> {
  try {
    const fh = await open(path, 'r');
    await fh.close();
    return undefined;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? 'error';
    return code === 'EACCES' || code === 'EPERM'
      ? `Cannot be read (${code}): this user has no permission to read it; copy it somewhere readable.`
      : `Cannot be read (${code}): check the path and that the card or drive is still connected.`;
  }
}
