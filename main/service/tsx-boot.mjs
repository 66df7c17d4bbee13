// Runs a worker thread from its TypeScript source (tests, `tsx`; the offload's part-MD5 workers,
// main/hash/pool.ts): registers tsx's loader in this thread, then loads the entry its
// starter named. Node 20 does not apply `--import tsx` given in a Worker's execArgv before the
// entry loads, hence this bootstrap. (The upload service is a process, started with `--import tsx`
// by main/service-host/spawn.ts.)
import { workerData } from 'node:worker_threads';
import { register } from 'tsx/esm/api';

register();
await import(workerData.entry);
