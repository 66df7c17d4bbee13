// npx tsx scripts/profile-summary.ts FILE.cpuprofile [N]: where a V8 CPU profile (node --cpu-prof)
// spent its time, by self time: the top N functions (default 25) with their file, and the totals
// per package or source folder, so a profile reads as a table in a terminal or the README.
import { readFileSync } from 'node:fs';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
}
interface Profile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

/** Where a frame's code lives: a package name, a Node internal module, our bundle, or V8 itself. */
function origin(url: string): string {
  if (!url) return '(V8 / native)';
  if (url.startsWith('node:')) return url;
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pkg) return pkg[1]!;
  return url.replace(/^file:\/\/.*?\/(dist|scripts|main|e2e)\//, '$1/');
}

const [file, top = '25'] = process.argv.slice(2);
if (!file) throw new Error('usage: profile-summary.ts FILE.cpuprofile [N]');
const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
// Self time per node: each sample's delta is charged to the node it landed on.
const self = new Map<number, number>();
profile.samples.forEach((id, i) => self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)));
const totalUs = profile.endTime - profile.startTime;
const fns = new Map<string, number>();
const origins = new Map<string, number>();
for (const [id, us] of self) {
  const { functionName, url, lineNumber } = byId.get(id)!.callFrame;
  const name = `${functionName || '(anonymous)'}  ${origin(url)}${url ? `:${lineNumber + 1}` : ''}`;
  fns.set(name, (fns.get(name) ?? 0) + us);
  origins.set(origin(url), (origins.get(origin(url)) ?? 0) + us);
}
const ms = (us: number) =>
  `${(us / 1000).toFixed(0).padStart(7)} ms ${((100 * us) / totalUs).toFixed(1).padStart(5)} %`;
console.log(`${file}: ${(totalUs / 1e6).toFixed(2)} s wall, ${profile.samples.length} samples`);
console.log('\nself time by function');
for (const [name, us] of [...fns].sort((a, b) => b[1] - a[1]).slice(0, Number(top))) console.log(`${ms(us)}  ${name}`);
console.log('\nself time by origin');
for (const [name, us] of [...origins].sort((a, b) => b[1] - a[1]).slice(0, 15)) console.log(`${ms(us)}  ${name}`);
