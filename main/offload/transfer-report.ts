import { stat, statfs, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { basename, dirname, join, relative, sep } from 'node:path';
import { DateTime } from 'luxon';
import type { RefusedPath } from '../intake/intake.js';
import { formatBytes } from '../../shared/format.js';
import { volumeIdOf } from '../card/card-root.js';

/** The card an offload copied, as its transfer report names it: label (its folder's name), volume id (null when unknown), capacity in bytes (null when the card is a folder, not a volume of its own). */
export interface ReportCard {
  root: string;
  label: string;
  volumeId: string | null;
  capacityBytes: number | null;
}

/** One file of a transfer report: its path on the card ('/' separators), size in bytes, the card's XXH64 (16 hex digits; none when unreadable), when it was checked (ISO 8601), and why it is not verified. */
interface ReportFile {
  path: string;
  size: number;
  xxh64?: string;
  copiedAt?: string;
  verified: boolean;
  error?: string;
}

/** What a transfer report says: the card, where the copies are, the ASC MHL's name, the times (ISO 8601), the files, those left on the card, and the tool. */
export interface TransferReport {
  card: ReportCard;
  destination: string;
  mhlName: string;
  startedAt: string;
  finishedAt: string;
  files: ReportFile[];
  recordings: number;
  /** How many of `files` are not recordings' files (the rest of a card copied whole: previews, thumbnails, MISC); 0 or absent when only recordings were copied. */
  others?: number;
  skipped: RefusedPath[];
  tool: { name: string; version: string };
}

/** Text escaped for HTML content and attribute values (& < > " '), so a file named `<script>` stays text. */
const esc = (s: string) =>
  s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');

/** An ISO 8601 time in the computer's local time with its offset, to the second ("2026-11-27T08:15:30+01:00"), as the operator read the clock. */
export const localIso = (iso: string) =>
  DateTime.fromISO(iso).toISO({ suppressMilliseconds: true, includeOffset: true }) ?? iso;

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;
const bytes = (n: number) => `${formatBytes(n)} (${n.toLocaleString('en-US')} bytes)`;

/**
 * The card as the report names it: its folder's name, its volume UUID where the system says it
 * (main/card/card-root.ts volumeIdOf), and its capacity (fs.statfs) when `root` is a volume of its
 * own (a different device than its parent folder). Never throws: what cannot be read is null.
 */
export async function describeReportCard(root: string): Promise<ReportCard> {
  let capacityBytes: number | null = null;
  try {
    const [here, parent] = await Promise.all([stat(root), stat(dirname(root))]);
    if (here.dev !== parent.dev || dirname(root) === root) {
      const fs = await statfs(root);
      capacityBytes = fs.blocks * fs.bsize;
    }
  } catch {
    // Gone or unreadable: the report says the size is not known.
  }
  return { root, label: basename(root) || root, volumeId: volumeIdOf(root), capacityBytes };
}

/**
 * The transfer report of an offload as one HTML page: self-contained (its style inline, no
 * script, no link, a Content-Security-Policy forbidding both), every name escaped. It says the
 * card (label, volume id, size), where the copies and the ASC MHL are, when the offload started
 * and ended (ISO 8601 with the local offset), the result (verified, or failed with each file's
 * reason), every file with its size, XXH64 and when it was copied, and the card's files that were
 * not copied, with why.
 */
export function transferReportHtml(r: TransferReport): string {
  const bad = r.files.filter((f) => !f.verified);
  const total = r.files.reduce((n, f) => n + f.size, 0);
  const result =
    bad.length === 0
      ? `Verified: ${plural(r.files.length - (r.others ?? 0), 'file')} of ${plural(r.recordings, 'recording')}${r.others ? ` and ${plural(r.others, 'other file')} (the whole card)` : ''} (${formatBytes(total)}) copied and read back with the card's XXH64.${r.skipped.length ? ` ${plural(r.skipped.length, 'file')} that ${r.skipped.length === 1 ? 'is' : 'are'} not a recording ${r.skipped.length === 1 ? 'was' : 'were'} not copied (below).` : ''}`
      : `Failed: ${bad.length} of ${plural(r.files.length, 'file')} ${bad.length === 1 ? 'was' : 'were'} not verified, even copied twice. Keep the card.`;
  const rows = r.files
    .map(
      (f) => `      <tr class="${f.verified ? 'ok' : 'bad'}">
        <td class="path">${esc(f.path)}</td>
        <td class="num">${esc(bytes(f.size))}</td>
        <td class="hash">${f.xxh64 ? esc(f.xxh64) : 'not readable'}</td>
        <td>${f.copiedAt ? esc(localIso(f.copiedAt)) : ''}</td>
        <td>${f.verified ? 'Verified' : `Not verified: ${esc(f.error ?? 'no reason given')}`}</td>
      </tr>`,
    )
    .join('\n');
  const skipped = r.skipped.length
    ? `  <h2>Not copied (${r.skipped.length})</h2>
  <p>Files on the card that are not recordings stay on the card only.</p>
  <ul>
${r.skipped.map((s) => `    <li><span class="path">${esc(relativeToCard(r.card.root, s.path))}</span>: ${esc(s.reason)}</li>`).join('\n')}
  </ul>
`
    : '';
  return `<!DOCTYPE html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">
  <title>Transfer report: ${esc(r.card.label)}</title>
  <style>
    body { font: 14px/1.4 system-ui, sans-serif; margin: 24px; color: #111; }
    table { border-collapse: collapse; width: 100%; }
    th, td { border: 1px solid #bbb; padding: 3px 6px; text-align: left; vertical-align: top; }
    .num { text-align: right; white-space: nowrap; }
    .hash { font-family: ui-monospace, monospace; }
    .path { overflow-wrap: anywhere; }
    .bad td, p.bad { color: #7a1a0c; }
    p.ok { color: #14532a; }
    dt { font-weight: 600; } dd { margin: 0 0 6px 0; }
  </style>
</head>
<body>
  <h1>Transfer report: ${esc(r.card.label)}</h1>
  <p class="${bad.length === 0 ? 'ok' : 'bad'}" id="result">${esc(result)}</p>
  <dl>
    <dt>Card</dt><dd>${esc(r.card.label)} at ${esc(r.card.root)}</dd>
    <dt>Volume id</dt><dd>${r.card.volumeId ? esc(r.card.volumeId) : 'not known'}</dd>
    <dt>Card size</dt><dd>${r.card.capacityBytes !== null ? esc(bytes(r.card.capacityBytes)) : 'not known (not a volume of its own)'}</dd>
    <dt>Copied to</dt><dd>${esc(r.destination)}</dd>
    <dt>ASC MHL</dt><dd>${esc(r.mhlName)}</dd>
    <dt>Started</dt><dd><time datetime="${esc(localIso(r.startedAt))}">${esc(localIso(r.startedAt))}</time></dd>
    <dt>Finished</dt><dd><time datetime="${esc(localIso(r.finishedAt))}">${esc(localIso(r.finishedAt))}</time></dd>
    <dt>By</dt><dd>${esc(r.tool.name)} ${esc(r.tool.version)} on ${esc(hostname())}</dd>
  </dl>
  <h2>Files (${r.files.length}, ${esc(bytes(total))})</h2>
  <table>
    <thead>
      <tr><th scope="col">Path on the card</th><th scope="col">Size</th><th scope="col">XXH64</th><th scope="col">Copied at</th><th scope="col">Result</th></tr>
    </thead>
    <tbody>
${rows}
    </tbody>
  </table>
${skipped}</body>
</html>
`;
}

/** `path` relative to the card's root with '/' separators; a path elsewhere stays whole. */
export function relativeToCard(root: string, path: string): string {
  const rel = relative(root, path);
  return rel.startsWith('..') || rel === '' ? path : rel.split(sep).join('/');
}

/**
 * Writes the transfer report beside the ASC MHL (`<mhl name without .mhl>_transfer-report.html` in
 * the same `ascmhl/` folder, which ASC MHL tools leave out of the hashes) and answers its path.
 * Throws the file system's errors.
 */
export async function writeTransferReport(mhlPath: string, r: TransferReport): Promise<string> {
  const path = join(dirname(mhlPath), `${basename(mhlPath).replace(/\.mhl$/, '')}_transfer-report.html`);
  await writeFile(path, transferReportHtml(r));
  return path;
}
