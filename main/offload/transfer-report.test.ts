import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join, relative } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { writeFakeCard } from '../card/fake-card.js';
import { offloadCard } from './offload.js';
import { localIso, transferReportHtml } from './transfer-report.js';

const work = mkdtempSync(join(tmpdir(), 'report-test-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));
const html = (p: string) => readFileSync(p, 'utf8');

describe('the transfer report beside the ASC MHL', () => {
  it('names the card, every file with its size, XXH64 and time, the times with their offset and the result; a name holding <script> stays text', async () => {
    const card = writeFakeCard(join(work, 'X4_CARD'), { recordings: 2 });
    // A recording whose name is markup: the page must show it, never run it.
    const hostile = join(card.root, 'DCIM', 'Camera01', `Walk <script>alert("x")<script> & 'east'.mp4`);
    writeFileSync(hostile, Buffer.alloc(3000, 7));
    const clock = [new Date('2026-11-27T07:15:30Z')];
    const r = await offloadCard(card.root, { library: join(work, 'library'), now: () => clock.at(-1)! });

    expect(r.verified).toBe(true);
    expect(r.reportPath).toBe(r.mhlPath!.replace(/\.mhl$/, '_transfer-report.html'));
    const page = html(r.reportPath!);
    expect(page).toContain('<title>Transfer report: X4_CARD</title>');
    expect(page).toContain('<p class="ok" id="result">Verified: 5 files of 3 recordings (');
    expect(page).toContain(`<dt>ASC MHL</dt><dd>${basename(r.mhlPath!)}</dd>`);
    // ISO 8601 in local time with its offset, as the operator read the clock.
    const started = localIso(r.startedAt);
    expect(started).toMatch(/^2026-11-27T\d{2}:15:30([+-]\d{2}:\d{2}|Z)$/);
    expect(Date.parse(started)).toBe(Date.parse('2026-11-27T07:15:30Z'));
    expect(page).toContain(`<dt>Started</dt><dd><time datetime="${started}">${started}</time></dd>`);
    expect(page).toContain(`<dt>Finished</dt><dd><time datetime="${localIso(r.finishedAt)}">`);
    expect(page).toContain('<dt>Volume id</dt><dd>not known</dd>'); // a folder, not a mounted volume
    for (const f of r.files) {
      const shown = relative(card.root, f.source)
        .replace(/&/g, '&amp;')
        .replace(/</g, '&lt;')
        .replace(/>/g, '&gt;')
        .replace(/"/g, '&quot;')
        .replace(/'/g, '&#39;');
      const row = page.slice(page.indexOf(`<td class="path">${shown}</td>`));
      expect(row.length, f.source).toBeLessThan(page.length);
      expect(row).toMatch(
        new RegExp(
          `^<td class="path">[^\\n]*</td>\\n\\s*<td class="num">[^<]* \\(${f.size.toLocaleString('en-US')} bytes\\)</td>\\n\\s*<td class="hash">${f.xxh64}</td>\\n\\s*<td>2026-11-27T[^<]+</td>\\n\\s*<td>Verified</td>`,
        ),
      );
    }
    // Escaped: no element a browser would run, the name shown as written.
    expect(page).not.toMatch(/<script/i);
    expect(page).toContain('Walk &lt;script&gt;alert(&quot;x&quot;)&lt;script&gt; &amp; &#39;east&#39;.mp4');
    expect(page).toContain(`content="default-src 'none'; style-src 'unsafe-inline'"`);
    expect(page).not.toMatch(/\b(src|href)=/);
    // What was not copied is said too: previews, thumbnails, MISC stay on the card.
    expect(page).toContain(`<h2>Not copied (${card.others.length})</h2>`);
    for (const o of card.others) expect(page).toContain(relative(card.root, o));
  });

  it('a file that failed verification twice makes the result Failed, with the file and why', async () => {
    const card = writeFakeCard(join(work, 'BAD'), { recordings: 1 });
    const broken = basename(card.recordings[1]!);
    const r = await offloadCard(card.root, {
      library: join(work, 'library-bad'),
      afterWrite: async (partial, dest) => {
        if (dest.endsWith(`/${broken}`)) writeFileSync(partial, 'damaged');
      },
    });
    expect(r.verified).toBe(false);
    const page = html(r.reportPath!);
    expect(page).toContain(
      '<p class="bad" id="result">Failed: 1 of 2 files was not verified, even copied twice. Keep the card.</p>',
    );
    const bad = r.files.find((f) => !f.verified)!;
    expect(page).toContain(`<td>Not verified: ${bad.error!}</td>`);
    expect(bad.error).toContain('the copy read back differs from the card');
    expect(page).toContain(`<td class="hash">${bad.xxh64}</td>`);
  });

  it('is built from the report alone: a card of its own volume gives its size and id', () => {
    const page = transferReportHtml({
      card: { root: '/media/ana/X4', label: 'X4', volumeId: '1A2B-3C4D', capacityBytes: 64_000_000_000 },
      destination: '/lib/X4_2026-11-27_081530+0100',
      mhlName: '0001_X4_2026-11-27_081530+0100_2026-11-27_071530Z.mhl',
      startedAt: '2026-11-27T07:15:30.000Z',
      finishedAt: '2026-11-27T07:16:00.000Z',
      files: [],
      recordings: 0,
      skipped: [],
      tool: { name: 'capture-uploader', version: '1.0.0' },
    });
    expect(page).toContain('<dt>Volume id</dt><dd>1A2B-3C4D</dd>');
    expect(page).toContain('<dt>Card size</dt><dd>59.6 GiB (64,000,000,000 bytes)</dd>');
  });
});
