import { createHash } from 'node:crypto';
import { hostname } from 'node:os';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';

/** One file of an ASC MHL hash list: its path relative to the copied folder ('/' separators), size in bytes, mtime in ms, XXH64 (16 hex digits; none when the card's file could not be read). */
export interface MhlEntry {
  path: string;
  size: number;
  mtimeMs: number;
  xxh64?: string;
  /** ISO 8601: when the hash was computed. */
  hashedAt: string;
  verified: boolean;
}

/** What writes an ASC MHL: the tool's name and version (creatorinfo `tool`). */
export interface MhlTool {
  name: string;
  version: string;
}

// XML 1.0 cannot hold these at all, not even as character references: a path holding one cannot be listed.
const NOT_XML =
  // eslint-disable-next-line no-control-regex -- matching the control characters is the point
  /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/u;
const NOT_XML_ALL = new RegExp(NOT_XML.source, 'gu');
/** Text escaped for XML content and attributes; CR, LF and TAB as references, so a parser gives them back unchanged. */
const esc = (s: string) =>
  s
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/\r/g, '&#13;')
    .replace(/\n/g, '&#10;')
    .replace(/\t/g, '&#9;');
/** ISO 8601 with a +00:00 zone and whole seconds, as the ASC MHL examples write dates. */
const isoSeconds = (ms: number) => new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', '+00:00');

/**
 * The ASC MHL v2.0 XML (urn:ASC:MHL:v2.0, main/offload/schema/ASCMHL.xsd) of a card's copy:
 * creatorinfo, processinfo with process `transfer` and ascmhl's default ignore patterns, and per
 * verified copy a `hash` with its `path` (size, lastmodificationdate) and its `xxh64` (action
 * `original`: the first hash of the file in this history).
 * A file whose copy did not verify is not listed: its copy was removed, a manifest lists only what
 * is in its folder (ASC MHL v1.0 §5.2), and `failed` is reserved for a later check that no longer
 * matches a recorded hash (§5.6.4), so `ascmhl verify` would report it missing forever. Such files,
 * and any whose name XML cannot hold, are named with their card XXH64 in creatorinfo `comment`.
 */
export function mhlXml(entries: readonly MhlEntry[], createdAt: string, tool: MhlTool): string {
  const listed = entries.filter((e) => e.verified && e.xxh64 && !NOT_XML.test(e.path));
  const left = entries.filter((e) => !listed.includes(e));
  const hashes = listed.map(
    (e) => `    <hash>
      <path size="${e.size}" lastmodificationdate="${isoSeconds(e.mtimeMs)}">${esc(e.path)}</path>
      <xxh64 action="original" hashdate="${isoSeconds(Date.parse(e.hashedAt))}">${e.xxh64!}</xxh64>
    </hash>`,
  );
  const comment = left.length
    ? `\n    <comment>${esc(
        `Not in this copy (${left.length} of ${entries.length} files): ` +
          left
            .map(
              (e) =>
                `${e.path.replace(NOT_XML_ALL, '\uFFFD')} (${e.xxh64 ? `XXH64 on the card ${e.xxh64}` : 'not readable on the card'}; ${e.verified ? 'its name cannot be written in XML' : 'its copy failed verification'})`,
            )
            .join('; '),
      )}</comment>`
    : '';
  return `<?xml version="1.0" encoding="UTF-8"?>
<hashlist version="2.0" xmlns="urn:ASC:MHL:v2.0">
  <creatorinfo>
    <creationdate>${isoSeconds(Date.parse(createdAt))}</creationdate>
    <hostname>${esc(hostname())}</hostname>
    <tool version="${esc(tool.version)}">${esc(tool.name)}</tool>${comment}
  </creatorinfo>
  <processinfo>
    <process>transfer</process>
    <ignore>
      <pattern>.DS_Store</pattern>
      <pattern>ascmhl</pattern>
      <pattern>ascmhl/</pattern>
    </ignore>
  </processinfo>
${hashes.length ? `  <hashes>\n${hashes.join('\n')}\n  </hashes>\n` : ''}</hashlist>
`;
}

const BASE58 = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';

/** The C4 id (SMPTE ST 2114) of some bytes: "c4" and the SHA-512 in base 58, 90 characters; the chain file names each MHL by it. */
export function c4Id(bytes: Uint8Array): string {
  let n = BigInt(`0x${createHash('sha512').update(bytes).digest('hex')}`);
  let out = '';
  while (n > 0n) {
    out = BASE58[Number(n % 58n)]! + out;
    n /= 58n;
  }
  return `c4${out.padStart(88, '1')}`;
}

/**
 * Writes the ASC MHL of a copied card into `<folder>/ascmhl/`: the manifest
 * `0001_<folder's name>_<YYYY-MM-DD_HHMMSS>Z.mhl` (ASC MHL v1.0 §6.3: the folder it covers, and the
 * UTC time the offload started) and the chain file `ascmhl_chain.xml` (urn:ASC:MHL:DIRECTORY:v2.0)
 * naming it with its C4 id, as `ascmhl` reads them. Times are ISO 8601. Answers the manifest's path.
 * Throws the file system's errors.
 */
export async function writeMhl(
  folder: string,
  entries: readonly MhlEntry[],
  times: { startedAt: string; createdAt: string },
  tool: MhlTool,
): Promise<string> {
  const dir = join(folder, 'ascmhl');
  await mkdir(dir, { recursive: true });
  const stamp = new Date(times.startedAt).toISOString().slice(0, 19).replace('T', '_').replace(/:/g, '');
  const fileName = `0001_${basename(folder)}_${stamp}Z.mhl`;
  await writeFile(join(dir, fileName), mhlXml(entries, times.createdAt, tool));
  const chain = `<?xml version="1.0" encoding="UTF-8"?>
<ascmhldirectory xmlns="urn:ASC:MHL:DIRECTORY:v2.0">
  <hashlist sequencenr="1">
    <path>${esc(fileName)}</path>
    <c4>${c4Id(await readFile(join(dir, fileName)))}</c4>
  </hashlist>
</ascmhldirectory>
`;
  await writeFile(join(dir, 'ascmhl_chain.xml'), chain);
  return join(dir, fileName);
}
