// npm run bench:md5 [-- --quick] [--runs N]: the part MD5 by the SIMD kernel and by node:crypto in
// a worker thread, over the same bytes in one run (scripts/bench/md5.ts,
// docs/decisions/0022-one-md5-module.md); 1 GiB each way, 256 MiB with --quick; default 2 runs.
import { parseArgs } from 'node:util';
import { printFigures } from './bench/figures.js';
import { md5Figures } from './bench/md5.js';

const { values: flags } = parseArgs({
  options: { quick: { type: 'boolean', default: false }, runs: { type: 'string', default: '2' } },
});
printFigures(await md5Figures(Number(flags.runs), flags.quick ? 256 : 1024));
