// Loaded with `node --import` by scripts/measure.ts: at exit, writes this process's own getrusage
// (CPU µs, peak RSS KiB) to CAPTURE_RUSAGE_FILE, the one exact account of what a run cost.
import { writeFileSync } from 'node:fs';
import process from 'node:process';

const file = process.env.CAPTURE_RUSAGE_FILE;
if (file) process.on('exit', () => writeFileSync(file, JSON.stringify(process.resourceUsage())));
