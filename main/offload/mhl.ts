import { createHash } from 'node:crypto';
import { hostname } from 'node:os';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/** One file of an ASC MHL hash list: its path relative to the copied folder ('/' separators), size in bytes, mtime in ms, XXH64. */
export interface MhlEntry {
  path: string;
  size: number;
  mtimeMs: number;
  xxh64: string;
  /** ISO 8601: when the hash was computed. */
  hashedAt: string;
  verified: boolean;
}

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
/** ISO 8601 with a +00:00 zone and whole seconds, as the ASC MHL examples write dates. */
const isoSeconds = (ms: number) => new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', '+00:00');

/**
 * The ASC MHL v2.0 XML (urn:ASC:MHL:v2.0) of a card's copy: creatorinfo, processinfo with
 * process `transfer`, and per file a `hash` with its `path` (size, lastmodificationdate) and
 * its `xxh64` (action `original`; `failed` for a file whose copy did not verify).
 */
export function mhlXml(entries: readonly MhlEntry[], createdAt: string, tool: { name: string; version: string }): string {
  const hashes = entries.map(
    (e) => `    <hash>
      <path size="${e.size}" lastmodificationdate="${isoSeconds(e.mtimeMs)}">${esc(e.path)}</path>
      <xxh64 action="${e.verified ? 'original' : 'failed'}" hashdate="${isoSeconds(Date.parse(e.hashedAt))}">${e.xxh64}</xxh64>
    </hash>`,
  );
  return `<?xml version="1.0" encoding="UTF-8"?>
<hashlist version="2.0" xmlns="urn:ASC:MHL:v2.0">
  <creatorinfo>
    <creationdate>${isoSeconds(Date.parse(createdAt))}</creationdate>
    <hostname>${esc(hostname())}</hostname>
    <tool version="${esc(tool.version)}">${esc(tool.name)}</tool>
  </creatorinfo>
  <processinfo>
    <process>transfer</process>
    <ignore>
      <pattern>.DS_Store</pattern>
      <pattern>ascmhl</pattern>
      <pattern>ascmhl/</pattern>
    </ignore>
  </processinfo>
  <hashes>
${hashes.join('\n')}
  </hashes>
</hashlist>
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
 * Writes the ASC MHL of a copied card into `<folder>/ascmhl/`: `0001_<name>_<YYYY-MM-DD_HHMMSS>Z.mhl`
 * and the chain file `ascmhl_chain.xml` (urn:ASC:MHL:DIRECTORY:v2.0) naming it with its C4 id, as
 * `ascmhl verify` and the offload tools expect. Answers the MHL file's path. Throws on write errors.
 */
export async function writeMhl(folder: string, name: string, entries: readonly MhlEntry[], createdAt: string, tool: { name: string; version: string }): Promise<string> {
  const dir = join(folder, 'ascmhl');
  await mkdir(dir, { recursive: true });
  const stamp = createdAt.slice(0, 19).replace('T', '_').replace(/:/g, '');
  const fileName = `0001_${name}_${stamp}Z.mhl`;
  const xml = mhlXml(entries, createdAt, tool);
  await writeFile(join(dir, fileName), xml);
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
