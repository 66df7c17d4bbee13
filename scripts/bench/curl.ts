// The true ceiling: the same parts as concurrent presigned PUTs by curl, a C client
// (libcurl), so the uploader's rate is held against what the machine and the storage allow, not
// against another Node client.
import { execFile } from 'node:child_process';
import { createReadStream, createWriteStream, mkdirSync, rmSync } from 'node:fs';
import { once } from 'node:events';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { LocalService } from '../../e2e/service/index.js';
import { CONCURRENCY, gateway, registerForPuts } from './flow.js';

const CURL = '/usr/bin/curl';

/**
 * Registers `path` (`size` bytes) as one capture (§4.4), presigns every part (§4.5), then PUTs the
 * parts with one curl process (`--parallel --parallel-max CONCURRENCY`, §4.6: no headers but the
 * length) and reports them (§4.7). The parts are cut into files under `work` before the clock
 * runs (curl uploads whole files); they are deleted afterwards. Returns wall seconds from
 * registration to the completion's answer (the cutting left out) and curl's CPU seconds (user +
 * system, from bash's `times`). Throws when a PUT does not answer 200.
 */
export async function curlPuts(
  svc: LocalService,
  work: string,
  path: string,
  size: number,
): Promise<{ seconds: number; cpuSeconds: number }> {
  const { token, uploadId, partSize, parts, started } = await registerForPuts(svc, 'curl.insv', size);
  let t = performance.now();
  let seconds = (t - started) / 1000;
  const dir = join(work, 'curl-parts');
  mkdirSync(dir, { recursive: true });
  try {
    for (const p of parts) {
      const start = (p.partNumber - 1) * partSize;
      await pipeline(
        createReadStream(path, { start, end: Math.min(size, start + partSize) - 1 }),
        createWriteStream(join(dir, String(p.partNumber))),
      );
    }
    const args = [
      '-sS',
      '--parallel',
      '--parallel-max',
      String(CONCURRENCY),
      '-H',
      'Expect:',
      '-w',
      '%{http_code} %header{etag} %{url_effective}\\n',
    ];
    for (const p of parts) args.push('-o', '/dev/null', '-T', join(dir, String(p.partNumber)), p.url);
    t = performance.now();
    // bash's `times` prints its children's user and system time: curl's CPU.
    const child = execFile('/bin/bash', ['-c', `${CURL} "$@"; times`, 'bash', ...args], {
      maxBuffer: 16 * 1024 * 1024,
    });
    let out = '';
    child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
    const [code] = (await once(child, 'exit')) as [number];
    const lines = out.trim().split('\n');
    const times = lines.pop()!.match(/(\d+)m([\d.]+)s (\d+)m([\d.]+)s/);
    lines.pop(); // the shell's own times
    if (code !== 0 || !times) throw new Error(`curl exited ${code}`);
    // One line a part, in completion order: matched to its part by the presigned URL (S3's partNumber).
    const byUrl = new Map(parts.map((p) => [p.url, p.partNumber]));
    const done = lines.map((line) => {
      const [status, etag, url] = line.split(' ');
      if (status !== '200') throw new Error(`curl PUT part: ${status}`);
      const partNumber = byUrl.get(url!) ?? Number(new URL(url!).searchParams.get('partNumber'));
      return { partNumber, etag: etag!, size: Math.min(partSize, size - (partNumber - 1) * partSize) };
    });
    if (done.length !== parts.length) throw new Error(`curl answered ${done.length} of ${parts.length} parts`);
    done.sort((a, b) => a.partNumber - b.partNumber);
    await gateway(svc, token, 'POST', `/upload-service/uploads/${uploadId}/parts/complete-batch`, { parts: done });
    seconds += (performance.now() - t) / 1000;
    const cpuSeconds = Number(times[1]) * 60 + Number(times[2]) + Number(times[3]) * 60 + Number(times[4]);
    return { seconds, cpuSeconds };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
