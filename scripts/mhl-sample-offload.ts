/**
 * Offloads a generated card with the app's own offload (main/offload/offload.ts) into a folder, for
 * scripts/check-mhl-ascmhl.sh to check with the ASC's reference implementation. The card's name and
 * one file's name need XML escaping, one folder and file are not ASCII, and one recording's copy
 * fails verification on every attempt (a disk that flips a byte), so the MHL covers all of those.
 *
 * Usage: tsx scripts/mhl-sample-offload.ts <empty folder>. Prints one JSON line:
 * { destination, mhl, failed: [paths relative to destination], copies: [paths relative to destination] }.
 * Exits 1 when the offload did not go as planned (not exactly the one file failed).
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, join, relative, resolve } from 'node:path';
import { writeFakeCard } from '../main/card/fake-card.js';
import { offloadCard } from '../main/offload/offload.js';

const dir = resolve(process.argv[2] ?? '');
if (!process.argv[2]) {
  process.stderr.write('Usage: tsx scripts/mhl-sample-offload.ts <empty folder>\n');
  process.exit(2);
}
const card = writeFakeCard(join(dir, 'card', 'Site A&B <north> "2"'), { recordings: 3, bytes: 3 * 1024 * 1024 + 11 });
writeFileSync(join(card.root, 'DCIM', 'Camera01', `Walk & 'east' <B> "1".mp4`), 'a name XML escapes\n');
mkdirSync(join(card.root, 'DCIM', 'Bauabschnitt_Ä'), { recursive: true });
writeFileSync(join(card.root, 'DCIM', 'Bauabschnitt_Ä', 'Überbau_Straße_東京.mp4'), 'a name that is not ASCII\n');
const broken = card.recordings[1]!;
const r = await offloadCard(card.root, {
  library: join(dir, 'library'),
  afterWrite: async (partial) => {
    if (basename(partial).includes(basename(broken))) {
      const b = readFileSync(partial);
      b[5] = b[5]! ^ 0xff;
      writeFileSync(partial, b);
    }
  },
});
const failed = r.files.filter((f) => !f.verified);
if (failed.length !== 1 || failed[0]!.source !== broken) {
  process.stderr.write(
    `The sample offload did not fail exactly ${broken}: ${JSON.stringify(failed.map((f) => f.source))}\n`,
  );
  process.exit(1);
}
const rel = (p: string) => relative(r.destination, p);
process.stdout.write(
  `${JSON.stringify({ destination: r.destination, mhl: r.mhlPath, failed: failed.map((f) => rel(f.copy)), copies: r.files.filter((f) => f.verified).map((f) => rel(f.copy)) })}\n`,
);
