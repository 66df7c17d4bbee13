// The support report's read of the queue on a thread of its own (report-queue.ts
// readReportQueueOffThread): one request in `workerData`, one answer, then the thread ends. Built
// as its own entry (report-queue-worker.js beside the app's bundle, package.json build:main); from
// source through main/service/tsx-boot.mjs.
import { parentPort, workerData } from 'node:worker_threads';
import type { ReportQueueRequest } from './report-queue.js';
import { readReportQueue } from './report-queue.js';

parentPort!.postMessage(readReportQueue((workerData as { request: ReportQueueRequest }).request));
