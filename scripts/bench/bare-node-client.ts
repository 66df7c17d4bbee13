// The least a Node client can spend to send a file through presigned URLs with the ETag check the
// uploader makes (§4.6), with the uploader's own four-lane MD5 (main/hash/local-md5.ts): no
// queue, no retries, no watchdog, no sign-in, no start-up beyond Node's own. bareNodePuts
// (bare-node.ts) bundles it with esbuild and runs `node <bundle> JOB.json`; JOB is
// { path, size, partSize, concurrency, parts: [{ partNumber, url }] }. Each part is read in 1 MiB
// chunks into slots of the kernel's memory, each chunk queued for the MD5 and written whole to a
// node:http PUT; storage's ETag must equal the MD5. Prints one JSON line:
// { parts: [{ partNumber, etag, size }], cpuSeconds } (user + system, every thread, from the start).
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { open } from 'node:fs/promises';
import type { IncomingMessage } from 'node:http';
import { request } from 'node:http';
import { PartMd5, giveSlot, isSlot, takeSlot } from '../../main/hash/local-md5.js';

interface Job {
  path: string;
  size: number;
  partSize: number;
  concurrency: number;
  parts: { partNumber: number; url: string }[];
}

const CHUNK = 1024 * 1024;
const job = JSON.parse(readFileSync(process.argv[2]!, 'utf8')) as Job;
const file = await open(job.path, 'r');

/** A chunk's buffer goes back once it is both written and hashed. */
function lend(): { buffer: Buffer; release(): void } {
  const buffer = takeSlot() ?? Buffer.allocUnsafeSlow(CHUNK);
  let holds = 2;
  return { buffer, release: () => void (--holds === 0 && isSlot(buffer) && giveSlot(buffer)) };
}

async function putPart({ partNumber, url }: Job['parts'][number]) {
  const start = (partNumber - 1) * job.partSize;
  const size = Math.min(job.partSize, job.size - start);
  const md5 = new PartMd5();
  const req = request(url, { method: 'PUT', headers: { 'content-length': size } });
  const answered = once(req, 'response') as Promise<[IncomingMessage]>;
  for (let at = 0; at < size; ) {
    const { buffer, release } = lend();
    const { bytesRead } = await file.read(buffer, 0, Math.min(CHUNK, size - at), start + at);
    if (bytesRead === 0) throw new Error(`${job.path}: ended at byte ${start + at}`);
    const chunk = buffer.subarray(0, bytesRead);
    md5.update(chunk, release);
    // The next chunk is read once the socket has taken this one (one chunk on the wire a part).
    await new Promise<void>((resolve, reject) =>
      req.write(chunk, (err) => {
        release();
        if (err) reject(err);
        else resolve();
      }),
    );
    at += bytesRead;
  }
  req.end();
  const [res] = await answered;
  res.resume();
  await once(res, 'end');
  md5.settle();
  const etag = String(res.headers.etag);
  if (res.statusCode !== 200) throw new Error(`PUT part ${partNumber}: ${res.statusCode}`);
  if (etag.replaceAll('"', '') !== md5.digestHex()) throw new Error(`part ${partNumber}: the ETag is not the MD5 sent`);
  return { partNumber, etag, size };
}

const queue = [...job.parts];
const done: { partNumber: number; etag: string; size: number }[] = [];
await Promise.all(
  Array.from({ length: job.concurrency }, async () => {
    for (let p = queue.shift(); p; p = queue.shift()) done.push(await putPart(p));
  }),
);
await file.close();
const used = process.resourceUsage();
process.stdout.write(`${JSON.stringify({ parts: done, cpuSeconds: (used.userCPUTime + used.systemCPUTime) / 1e6 })}\n`);
