/**
 * The mutation check (docs/testing.md, "The mutation check"): does each branch of the retry,
 * transition and cancel code have a test that fails without it? For every mutant (a condition
 * negated, a statement deleted, an operator flipped) of the chosen regions, the file is rewritten
 * in place, the tests that cover it run (`vitest run <files>`), and the original is put back.
 * A mutant is *killed* when the tests fail (or time out), *survived* when they pass.
 *
 * Run on demand, never by `npm test` (minutes of CPU): `npm run mutate`, or
 * `npm run mutate -- --target transitions --max 10` (`--lines 35,42`: only those lines' mutants; `--list`
 * prints the mutants without running them). Prints one line a mutant and a summary, and
 * writes the result to `test-results/mutate.json`. Exits 0 (a report, not a gate), 2 when the
 * unmutated tests already fail.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** A region of product code to mutate and the test files that should notice. */
interface Target {
  name: string;
  file: string;
  /** First and last line of the region, found by the first line matching each (whole file when absent). */
  from?: RegExp;
  to?: RegExp;
  tests: string[];
  /** Only the tests whose names match (vitest's `-t`), where a file's other tests take minutes and say nothing of the region. */
  names?: string;
}

const TARGETS: Target[] = [
  {
    name: 'retry-schedule',
    file: 'main/engine/scheduling/retry-schedule.ts',
    tests: ['main/engine/scheduling/retry-schedule.test.ts', 'main/engine/scheduling/scheduler.test.ts'],
  },
  {
    // The scheduler's end of a task: cancelled, refused, card pulled, device retry, transient retry, failed.
    name: 'scheduler-settle',
    file: 'main/engine/scheduling/scheduler.ts',
    from: /^ {2}private settle\(/,
    to: /^function fromGateway/,
    // The engine's pause, cancel, hold, card and gateway-outage tests end tasks by each of those ways;
    // unit tests only (some 30 s a mutant on a loaded machine): the end-to-end tests take minutes each.
    tests: [
      'main/engine/scheduling/scheduler.test.ts',
      'main/engine/scheduling/retry-owner.test.ts',
      'main/engine/progress/transitions.test.ts',
      'main/engine/engine.test.ts',
      'main/engine/scheduling/hold.test.ts',
      'main/engine/parts/card-read-error.test.ts',
      'main/engine/outages/silent-gateway.test.ts',
    ],
  },
  {
    name: 'transitions',
    file: 'main/engine/progress/transitions.ts',
    tests: ['main/engine/progress/transitions.test.ts', 'main/engine/scheduling/scheduler.test.ts'],
  },
  {
    // A call's end in the service process: stopped by its cancel, or answered.
    name: 'worker-answer',
    file: 'main/service/worker.ts',
    from: /^async function answer\(/,
    to: /^\/\*\* The reason a cancelled call/,
    tests: ['main/service-host/host.test.ts'],
  },
  {
    // The host's `cancel` of a call under way.
    name: 'worker-cancel',
    file: 'main/service/worker.ts',
    from: /^ {4}case 'cancel': \{/,
    to: /^ {4}case 'reply':/,
    tests: ['main/service-host/host.test.ts'],
  },
  {
    // The host's restart of a service process that died (docs/service-process.md): counted, told
    // once, started again with the window told to read the queue anew; given up after a few a minute.
    name: 'service-restart',
    file: 'main/service-host/host.ts',
    from: /^ {2}private async restart\(/,
    to: /^ {2}private onMessage\(/,
    tests: ['main/service-host/host.test.ts'],
    names: 'restart|dies before|closes',
  },
  {
    // Where the host hears a service process end (or gives up on a hung one): its calls answered,
    // and the restart asked for.
    name: 'service-exit',
    file: 'main/service-host/host.ts',
    from: /^ {6}const end = \(/,
    to: /^ {6}const watch = new Heartbeat\(/,
    tests: ['main/service-host/host.test.ts'],
    names: 'restart|dies before|closes|SIGSTOP',
  },
  {
    // The host's watch on the service process (docs/decisions/0035-service-heartbeat.md): what is a hang and what is not.
    name: 'service-heartbeat',
    file: 'main/service-host/heartbeat.ts',
    from: /^export class Heartbeat/,
    tests: ['main/service-host/heartbeat.test.ts'],
  },
];

/** One mutant: the line changed (1-based), what it became, and how. */
interface Mutant {
  target: string;
  line: number;
  kind: string;
  before: string;
  after: string;
}

const FLIPS: [string, string][] = [
  [' === ', ' !== '],
  [' !== ', ' === '],
  [' <= ', ' < '],
  [' >= ', ' > '],
  [' < ', ' <= '],
  [' > ', ' >= '],
  [' && ', ' || '],
  [' || ', ' && '],
  ['Math.min(', 'Math.max('],
  ['Math.max(', 'Math.min('],
  [' + ', ' - '],
  [' - ', ' + '],
  [' * ', ' / '],
  ['return true', 'return false'],
  ['return false', 'return true'],
];

/** The text inside the parentheses that open at `open` (index of '('), or undefined when they do not close on the line. */
function balanced(line: string, open: number): string | undefined {
  let depth = 0;
  for (let i = open; i < line.length; i++) {
    if (line[i] === '(') depth++;
    else if (line[i] === ')' && --depth === 0) return line.slice(open + 1, i);
  }
  return undefined;
}

const isCode = (t: string) => t !== '' && !t.startsWith('//') && !t.startsWith('*') && !t.startsWith('/*');

/** The mutants of one target's region, in line order. */
function mutantsOf(target: Target, lines: string[]): Mutant[] {
  const start = target.from ? lines.findIndex((l) => target.from!.test(l)) : 0;
  const end = target.to ? lines.findIndex((l, i) => i > start && target.to!.test(l)) : lines.length;
  if (start < 0 || end < 0) throw new Error(`${target.name}: region not found in ${target.file}`);
  const out: Mutant[] = [];
  const add = (i: number, kind: string, after: string) =>
    out.push({ target: target.name, line: i + 1, kind, before: lines[i]!, after });
  for (let i = start; i < end; i++) {
    const line = lines[i]!;
    const t = line.trim();
    if (!isCode(t)) continue;
    // A string, template or regular expression line is left alone: flips there change text, not logic.
    const code = line.replace(/'[^']*'|`[^`]*`/g, (s) => ' '.repeat(s.length));
    const ifAt = code.search(/\bif \(/);
    if (ifAt >= 0) {
      const cond = balanced(line, ifAt + 3);
      if (cond !== undefined) add(i, 'negate condition', line.replace(`if (${cond})`, `if (!(${cond}))`));
    }
    // A whole statement on one line, after a statement boundary: deleted.
    const prev = lines
      .slice(0, i)
      .reverse()
      .find((l) => isCode(l.trim()))
      ?.trim();
    const wholeStatement =
      t.endsWith(';') &&
      balanced(`(${t})`, 0) === t &&
      (prev === undefined || /[;{}]$/.test(prev) || /^case .*:$/.test(prev)) &&
      !/^(const|let|var|import|export|type|interface) /.test(t) &&
      // A member of a type (`name(arg: T): R;`, `name?: T;`): deleting it changes no behaviour.
      !/^[\w$]+\??(\([^)]*\))?\??: [^=]+;$/.test(t);
    if (wholeStatement) add(i, 'delete statement', line.replace(/\S.*$/, '/* deleted */'));
    for (const [from, to] of FLIPS) {
      const at = code.indexOf(from);
      if (at >= 0) add(i, `${from.trim()} → ${to.trim()}`, line.slice(0, at) + to + line.slice(at + from.length));
    }
  }
  return out;
}

/** Runs the target's tests; true when they pass. */
function testsPass(tests: string[], timeoutMs: number, names?: string): boolean {
  const r = spawnSync('npx', ['vitest', 'run', '--bail', '1', ...(names ? ['-t', names] : []), ...tests], {
    cwd: ROOT,
    stdio: 'ignore',
    timeout: timeoutMs,
    env: { ...process.env, CI: '1' },
  });
  return r.status === 0;
}

function main(): number {
  const args = process.argv.slice(2);
  const only = args.includes('--target') ? args[args.indexOf('--target') + 1] : undefined;
  const max = args.includes('--max') ? Number(args[args.indexOf('--max') + 1]) : Infinity;
  // `--lines 262,288`: only the mutants of these lines (a survivor checked again after its test was added).
  const onlyLines = args.includes('--lines')
    ? new Set(args[args.indexOf('--lines') + 1]!.split(',').map(Number))
    : undefined;
  const pick = (ms: Mutant[]) => ms.filter((m) => !onlyLines || onlyLines.has(m.line)).slice(0, max);
  const timeoutMs = 180_000;
  const targets = TARGETS.filter((t) => !only || t.name === only);
  if (args.includes('--list')) {
    for (const t of targets)
      for (const m of pick(mutantsOf(t, readFileSync(join(ROOT, t.file), 'utf8').split('\n'))))
        console.log(`${t.file}:${m.line} ${m.kind}: ${m.after.trim()}`);
    return 0;
  }
  const results: (Mutant & { killed: boolean })[] = [];
  for (const target of targets) {
    const path = join(ROOT, target.file);
    const original = readFileSync(path, 'utf8');
    if (!testsPass(target.tests, timeoutMs, target.names)) {
      console.error(`${target.name}: the tests fail without any mutant; fix them first (${target.tests.join(' ')})`);
      return 2;
    }
    const restore = () => writeFileSync(path, original);
    process.once('SIGINT', () => {
      restore();
      process.exit(130);
    });
    const mutants = pick(mutantsOf(target, original.split('\n')));
    console.log(`${target.name}: ${mutants.length} mutants of ${target.file}, tests ${target.tests.join(' ')}`);
    try {
      for (const m of mutants) {
        const lines = original.split('\n');
        lines[m.line - 1] = m.after;
        writeFileSync(path, lines.join('\n'));
        const killed = !testsPass(target.tests, timeoutMs, target.names);
        results.push({ ...m, killed });
        console.log(`  ${killed ? 'killed  ' : 'SURVIVED'} ${target.file}:${m.line} ${m.kind}: ${m.after.trim()}`);
      }
    } finally {
      restore();
    }
  }
  const killed = results.filter((r) => r.killed).length;
  console.log(`\n${killed} of ${results.length} mutants killed, ${results.length - killed} survived.`);
  mkdirSync(join(ROOT, 'test-results'), { recursive: true });
  writeFileSync(
    join(ROOT, 'test-results/mutate.json'),
    JSON.stringify({ at: new Date().toISOString(), results }, null, 2),
  );
  return 0;
}

process.exitCode = main();
