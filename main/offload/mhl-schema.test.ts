import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeFakeCard } from '../card/fake-card.js';
import type { OffloadResult } from './offload.js';
import { mhlXml } from './mhl.js';
import { offloadCard } from './offload.js';

// The ASC's own XML Schemas for ASC MHL v2.0 (vendored unchanged, see schema/README.md), checked
// with libxml2's validator: what CI can prove about the files without the ASC's Python tool.
const schemas = fileURLToPath(new URL('./schema/', import.meta.url));
const MANIFEST_XSD = join(schemas, 'ASCMHL.xsd');
// The chain's schema imports the manifest's by URL; the combined one imports both by local path
// first (as ascmhl's own xsd-schema-check does), so with --nonet nothing is fetched.
const CHAIN_XSD = join(schemas, 'ASCMHLDirectory__combined.xsd');

/** Runs `xmllint --schema` on a file: its exit code and what it printed. Throws (never skips) when xmllint is missing. */
function xmllint(xsd: string, file: string): { status: number; out: string } {
  const r = spawnSync('xmllint', ['--noout', '--nonet', '--schema', xsd, file], { encoding: 'utf8' });
  if (r.error && (r.error as NodeJS.ErrnoException).code === 'ENOENT') {
    throw new Error(
      'xmllint not found: the ASC MHL schema test needs it. Install libxml2-utils (apt-get install libxml2-utils), as .ci/run does.',
    );
  }
  return { status: r.status ?? -1, out: `${r.stdout}${r.stderr}` };
}

const work = mkdtempSync(join(tmpdir(), 'mhl-schema-test-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

// A card whose name and files need XML escaping and are not ASCII, and one file whose copy never verifies.
const CARD = 'Site A&B <north> "2"';
const ESCAPED_NAME = `Walk & 'east' <B> "1".mp4`;
const NON_ASCII_NAME = 'Überbau_Straße_東京.mp4';
// A name Linux allows and XML 1.0 cannot hold in any form (U+0001).
const NOT_XML_NAME = 'Walk\u0001odd.mp4';
let r: OffloadResult;
let broken: string;

beforeAll(async () => {
  const card = writeFakeCard(join(work, CARD), { recordings: 2 });
  const dir = join(card.root, 'DCIM', 'Camera01');
  writeFileSync(join(dir, ESCAPED_NAME), 'escaped name\n');
  writeFileSync(join(dir, NOT_XML_NAME), 'not XML\n');
  mkdirSync(join(card.root, 'DCIM', 'Bauabschnitt_Ä'), { recursive: true });
  writeFileSync(join(card.root, 'DCIM', 'Bauabschnitt_Ä', NON_ASCII_NAME), 'non-ASCII name\n');
  broken = card.recordings[1]!;
  r = await offloadCard(card.root, {
    library: join(work, 'library'),
    // A disk that flips a byte of one file on every copy: it fails verification twice.
    afterWrite: async (partial, dest) => {
      if (basename(dest) === basename(broken)) {
        const b = readFileSync(partial);
        b[3] = b[3]! ^ 0xff;
        writeFileSync(partial, b);
      }
    },
  });
});

describe('the ASC MHL an offload writes, against the ASC MHL v2.0 XML Schemas', () => {
  it('the manifest validates against ASCMHL.xsd, with the escaped and non-ASCII names, and names what it cannot list', () => {
    expect(r.verified).toBe(false);
    expect(r.files).toHaveLength(7);
    expect(r.files.filter((f) => !f.verified).map((f) => f.source)).toEqual([broken]);
    const v = xmllint(MANIFEST_XSD, r.mhlPath!);
    expect(v.out).toContain('validates');
    expect(v.status).toBe(0);
    const mhl = readFileSync(r.mhlPath!, 'utf8');
    expect(mhl).toContain(`>DCIM/Camera01/Walk &amp; 'east' &lt;B&gt; &quot;1&quot;.mp4</path>`);
    expect(mhl).toContain(`>DCIM/Bauabschnitt_Ä/${NON_ASCII_NAME}</path>`);
    // Listed: every verified copy XML can name. The failed copy was removed, so it is not listed
    // (ascmhl would report it missing for ever); it and the unnameable file are named in the comment.
    expect(mhl.match(/<hash>/g)).toHaveLength(5);
    expect(mhl).not.toContain('action="failed"');
    const b = r.files.find((f) => f.source === broken)!;
    const odd = r.files.find((f) => f.source.endsWith(NOT_XML_NAME))!;
    expect(mhl).toContain(
      `<comment>Not in this copy (2 of 7 files): DCIM/Camera01/${basename(broken)} (XXH64 on the card ${b.xxh64}; its copy failed verification); ` +
        `DCIM/Camera01/Walk\uFFFDodd.mp4 (XXH64 on the card ${odd.xxh64}; its name cannot be written in XML)</comment>`,
    );
  });

  it('the chain file validates against ASCMHLDirectory.xsd and names the manifest, named after the folder it covers', () => {
    const chainPath = join(r.destination, 'ascmhl', 'ascmhl_chain.xml');
    const v = xmllint(CHAIN_XSD, chainPath);
    expect(v.out).toContain('validates');
    expect(v.status).toBe(0);
    // ASC MHL §6.3: <numbering>_<foldername>_<date>_<time>Z.mhl, the folder being the one the manifest covers.
    const name = basename(r.mhlPath!);
    expect(name.startsWith(`0001_${basename(r.destination)}_`)).toBe(true);
    expect(name).toMatch(/_\d{4}-\d{2}-\d{2}_\d{6}Z\.mhl$/);
    // Beside them only the transfer report, which ASC MHL tools do not read (not a .mhl).
    expect(readdirSync(join(r.destination, 'ascmhl')).sort()).toEqual(
      [name, 'ascmhl_chain.xml', name.replace(/\.mhl$/, '_transfer-report.html')].sort(),
    );
    const escaped = name.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
    expect(readFileSync(chainPath, 'utf8')).toContain(`<path>${escaped}</path>`);
  });

  it('a card none of whose copies verified gives a manifest without an empty hashes element, which the schema refuses', () => {
    const none = join(work, 'none.mhl');
    const at = '2026-11-25T10:00:00.000Z';
    writeFileSync(
      none,
      mhlXml(
        [
          {
            path: 'DCIM/Camera01/a.insv',
            size: 4,
            mtimeMs: Date.parse(at),
            xxh64: '0123456789abcdef',
            hashedAt: at,
            verified: false,
          },
        ],
        at,
        { name: 'capture-uploader', version: '1' },
      ),
    );
    const v = xmllint(MANIFEST_XSD, none);
    expect(v.out).toContain('validates');
    expect(v.status).toBe(0);
    expect(readFileSync(none, 'utf8')).toContain(
      '<comment>Not in this copy (1 of 1 files): DCIM/Camera01/a.insv (XXH64 on the card 0123456789abcdef; its copy failed verification)</comment>',
    );
  });

  it('the schema check is not a formality: a manifest with an action the schema lacks is refused', () => {
    const bad = join(work, 'bad.mhl');
    writeFileSync(bad, readFileSync(r.mhlPath!, 'utf8').replace('action="original"', 'action="copied"'));
    const v = xmllint(MANIFEST_XSD, bad);
    expect(v.status).not.toBe(0);
    expect(v.out).toContain('fails to validate');
  });
});
