import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { describe, expect, it } from 'vitest';
import { filesUnder } from './main/testing/source-tree.js';

// The rule docs/decisions/README.md states: a record is numbered (NNNN-subject.md, never
// renumbered), opens with its status and has the sections Context, Decision and Consequences; the
// README lists every record; and whatever the tree cites under docs/decisions/ exists, so that a
// comment's "why" can always be read.

const ROOT = dirname(new URL(import.meta.url).pathname);
const DECISIONS = 'docs/decisions';
const DIRS = ['main', 'renderer', 'shared', 'preload', 'e2e', 'scripts', '.ci', 'docs', 'assets'];
const SKIP = new Set(['node_modules', 'dist', 'test-results', 'playwright-report', 'out', 'release']);
const SOURCE = /\.(ts|tsx|mts|mjs|js|cjs|json|yml|yaml|md|sh|css|html)$|^run$/;

/** A record's file name: four digits, then its subject in lower-case words joined by hyphens. */
export const RECORD_NAME = /^(\d{4})-[a-z0-9]+(?:-[a-z0-9]+)*\.md$/;
/** The status line: `Status: Accepted` or `Status: Superseded by NNNN` (the record that replaced it). */
const STATUS = /^Status: (?:Accepted\b|Superseded by (\d{4})\b)/m;
const SECTIONS = ['Context', 'Decision', 'Consequences'];

/**
 * What is wrong with one record, as sentences naming `name` (empty when nothing is): its name not
 * numbered, no status line (or one superseded by a record that is not in `numbers` or not later),
 * or one of the three sections missing or out of order.
 */
export function recordProblems(name: string, text: string, numbers: ReadonlySet<string>): string[] {
  const number = RECORD_NAME.exec(name)?.[1];
  if (!number) return [`${name}: not named NNNN-subject.md`];
  const out: string[] = [];
  const status = STATUS.exec(text);
  if (!status) out.push(`${name}: no "Status: Accepted" or "Status: Superseded by NNNN" line`);
  else if (status[1] && (!numbers.has(status[1]) || status[1] <= number))
    out.push(`${name}: superseded by ${status[1]}, which is no later record`);
  const at = SECTIONS.map((s) => text.search(new RegExp(`^## ${s}\\s*$`, 'm')));
  SECTIONS.forEach((s, i) => {
    if (at[i] === -1) out.push(`${name}: no "## ${s}" section`);
  });
  if (at.every((n) => n !== -1) && !(at[0]! < at[1]! && at[1]! < at[2]!))
    out.push(`${name}: sections not in the order ${SECTIONS.join(', ')}`);
  return out;
}

/**
 * The record paths `text` (the file `file`, relative to the checkout) cites, each relative to the
 * checkout: `docs/decisions/x.md` anywhere (also split after the slash across a comment's lines),
 * a Markdown link into a `decisions/` folder, and, inside docs/decisions itself, a bare `x.md`
 * (the interface files, which live beside the repository, and the docs one folder up excepted).
 */
export function citedRecords(file: string, text: string, docs: ReadonlySet<string> = new Set()): string[] {
  const out = new Set<string>();
  for (const m of text.matchAll(/docs\/decisions\/(?:\r?\n[\s*/#]*)?([\w.-]+\.md)\b/g)) out.add(`${DECISIONS}/${m[1]}`);
  const here = dirname(file);
  if (file.endsWith('.md')) {
    for (const m of text.matchAll(/\]\(([^)\s#]+\.md)(?:#[^)\s]*)?\)/g)) {
      const target = normalize(join(here, m[1]!)).split('\\').join('/');
      if (m[1]!.includes('decisions/') || here === DECISIONS) out.add(target);
    }
  }
  if (here === DECISIONS) {
    for (const m of text.matchAll(/(?<![\w./-])([\w-]+\.md)\b/g)) {
      if (!m[1]!.endsWith('-interface.md') && !docs.has(m[1]!)) out.add(`${DECISIONS}/${m[1]}`);
    }
  }
  return [...out].sort();
}

const records = (): string[] =>
  readdirSync(join(ROOT, DECISIONS))
    .filter((n) => n.endsWith('.md') && n !== 'README.md')
    .sort();

describe('docs/decisions', () => {
  it('numbers every record, each with its status and the sections Context, Decision and Consequences', () => {
    const names = records();
    expect(names.length).toBeGreaterThan(30);
    const numbers = new Set(names.flatMap((n) => RECORD_NAME.exec(n)?.[1] ?? []));
    const problems = names.flatMap((n) => recordProblems(n, readFileSync(join(ROOT, DECISIONS, n), 'utf8'), numbers));
    expect(problems).toEqual([]);
    // Numbered in turn from 0001, one record a number: a number is never given twice or skipped.
    expect([...numbers]).toEqual(names.map((_, i) => String(i + 1).padStart(4, '0')));
  });

  it('lists every record in the README, by number, and nothing that is not one', () => {
    const readme = readFileSync(join(ROOT, DECISIONS, 'README.md'), 'utf8');
    const listed = [...readme.matchAll(/^\| (\d{4}) \| \[([\w.-]+\.md)\]\(\2\) \| \S/gm)];
    expect(listed.map((m) => m[2])).toEqual(records());
    expect(listed.every((m) => m[2]!.startsWith(`${m[1]}-`))).toBe(true);
  });

  it('finds every docs/decisions/ path the tree cites', () => {
    const docs = new Set(readdirSync(join(ROOT, 'docs')).filter((n) => n.endsWith('.md')));
    const files = [
      ...DIRS.flatMap((d) => filesUnder(ROOT, d, SKIP, (name) => SOURCE.test(name))),
      // This file's own examples are not citations.
      ...readdirSync(ROOT).filter(
        (n) => SOURCE.test(n) && !['package-lock.json', 'docs-decisions.test.ts'].includes(n),
      ),
    ];
    expect(files.length).toBeGreaterThan(300);
    const missing = files.flatMap((f) =>
      citedRecords(f, readFileSync(join(ROOT, f), 'utf8'), docs)
        .filter((p) => !existsSync(join(ROOT, p)))
        .map((p) => `${f}: ${p}`),
    );
    expect(missing).toEqual([]);
  });

  it('tells a record that breaks the rule, and a citation of each kind (the check itself)', () => {
    const whole = '# T\n\nStatus: Accepted\n\n## Context\n\nc\n\n## Decision\n\nd\n\n## Consequences\n\n- e\n';
    const numbers = new Set(['0001', '0002']);
    expect(recordProblems('0001-a.md', whole, numbers)).toEqual([]);
    expect(recordProblems('0001-a.md', whole.replace('Accepted', 'Superseded by 0002'), numbers)).toEqual([]);
    expect(recordProblems('regspeed-a.md', whole, numbers)).toEqual(['regspeed-a.md: not named NNNN-subject.md']);
    expect(recordProblems('0002-a.md', whole.replace('Status: Accepted\n', ''), numbers)).toHaveLength(1);
    expect(recordProblems('0002-a.md', whole.replace('Accepted', 'Superseded by 0001'), numbers)).toHaveLength(1);
    expect(recordProblems('0001-a.md', whole.replace('## Consequences', '## Outcome'), numbers)).toEqual([
      '0001-a.md: no "## Consequences" section',
    ]);
    expect(citedRecords('main/x.ts', '// why: docs/decisions/0001-a.md, and docs/decisions/\n * b-c.md')).toEqual([
      'docs/decisions/0001-a.md',
      'docs/decisions/b-c.md',
    ]);
    expect(citedRecords('docs/engine.md', 'see [a](decisions/a.md#why) and [b](cli.md)')).toEqual([
      'docs/decisions/a.md',
    ]);
    expect(
      citedRecords(
        'docs/decisions/0002-b.md',
        'as (0001-a.md) says, and [x](../cli.md); §4 of capture-upload-interface.md; [cli.md](../cli.md)',
        new Set(['cli.md']),
      ),
    ).toEqual(['docs/cli.md', 'docs/decisions/0001-a.md']);
  });
});
