// Runs the service worker from its TypeScript source (tests, `tsx`): registers tsx's loader in this
// thread, then loads the entry the host named. Node 20 does not apply `--import tsx` given in a
// Worker's execArgv before the entry loads, hence this bootstrap. The app's bundle loads
// dist/main/electron/service-worker.js directly.
import { workerData } from 'node:worker_threads';
import { register } from 'tsx/esm/api';

register();
await import(workerData.entry);
