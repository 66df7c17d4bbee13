// The floor of a Node client's CPU: bare-node-client.ts sends the file with only what the ETag
// check needs (read, the uploader's four-lane MD5, PUT), so the uploader's CPU can be held against
// what Node itself costs on this machine, beside curl's (docs/performance.md, "Client CPU per GiB").
import { execFile } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { promisify } from 'node:util';
import type { LocalService } from '../../e2e/service/index.js';
import { CONCURRENCY, gateway, registerForPuts } from './flow.js';

const SOURCE = fileURLToPath(new URL('./bare-node-client.ts', import.meta.url));

/**
 * Registers `path` (`size` bytes) as one capture (§4.4), presigns every part (§4.5), then PUTs the
 * parts `CONCURRENCY` at a time from a bare Node process (§4.6: node:http, the uploader's four-lane
 * MD5 of each part checked against storage's ETag) and reports them (§4.7). The client is bundled
 * by esbuild (one file, as the CLI is) and the job, with its presigned URLs, written under `work`;
 * both are deleted afterwards. Returns the wall seconds from registration
 * to the completion's answer and the Node process's CPU seconds (user + system, every thread,
 * Node's own start included). Throws when a PUT does not answer 200 or an ETag is not the MD5 sent.
 */
export async function bareNodePuts(
  svc: LocalService,
  work: string,
  path: string,
  size: number,
): Promise<{ seconds: number; cpuSeconds: number }> {
  const { token, uploadId, partSize, parts, started } = await registerForPuts(svc, 'bare-node.insv', size);
  const job = join(work, 'bare-node-job.json');
  const client = join(work, 'bare-node-client.mjs');
  writeFileSync(job, JSON.stringify({ path, size, partSize, concurrency: CONCURRENCY, parts }));
  try {
    await build({
      entryPoints: [SOURCE],
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: 'node20',
      outfile: client,
      logLevel: 'warning',
    });
    const { stdout } = await promisify(execFile)(process.execPath, [client, job], { maxBuffer: 16 * 1024 * 1024 });
    const sent = JSON.parse(stdout) as {
      parts: { partNumber: number; etag: string; size: number }[];
      cpuSeconds: number;
    };
    sent.parts.sort((a, b) => a.partNumber - b.partNumber);
    await gateway(svc, token, 'POST', `/upload-service/uploads/${uploadId}/parts/complete-batch`, {
      parts: sent.parts,
    });
    return { seconds: (performance.now() - started) / 1000, cpuSeconds: sent.cpuSeconds };
  } finally {
    rmSync(job, { force: true });
    rmSync(client, { force: true });
  }
}
