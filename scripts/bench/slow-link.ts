// `npm run bench -- --only slow-link --runs 1`: one whole 5 MiB part sent under the
// client's lowest bandwidth limit, 8 KiB/s (about 11 minutes a run), by the built capture-uploader,
// against the local service with storage unthrottled. Prints the drain's time from process start,
// the bytes storage received, the parts sent again (a false "No progress for 30 s" aborts a part
// and sends it again) and whether the stored object is byte-identical.
import { GetObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { LocalService } from '../../e2e/service/index.js';
import type { Figure } from './figures.js';
import { MiB, makeFile, uploaderDrain } from './flow.js';

const LIMIT = 8 * 1024;
const SIZE = 5 * MiB;

const sha256 = (b: Buffer | Uint8Array) => createHash('sha256').update(b).digest('hex');

/** The slow-link figures from `runs` runs (a new queue each), with `svc` and files under `work`. Throws when a drain exits other than 0. */
export async function slowLinkFigures(svc: LocalService, work: string, runs: number): Promise<Figure[]> {
  const file = join(work, 'VID_20261122_070000_00_slow.insv');
  await makeFile(file, SIZE);
  const digest = sha256(readFileSync(file));
  const seconds: number[] = [];
  const received: number[] = [];
  const resent: number[] = [];
  const identical: number[] = [];
  const { endpoint, region, accessKeyId, secretAccessKey } = svc.info.s3;
  const s3 = new S3Client({
    endpoint,
    region,
    forcePathStyle: true,
    credentials: { accessKeyId, secretAccessKey },
    maxAttempts: 1,
  });
  for (let run = 0; run < runs; run++) {
    const bytesBefore = svc.storage.bytesReceived;
    const putsBefore = svc.storage.received.filter((r) => r.operation === 'UploadPart').length;
    const drain = await uploaderDrain(svc, join(work, `queue-slow-${run}`), file, ['--bandwidth', '8k']);
    seconds.push(drain.seconds);
    received.push(svc.storage.bytesReceived - bytesBefore);
    resent.push(svc.storage.received.filter((r) => r.operation === 'UploadPart').length - putsBefore - 1);
    const upload = Object.values(svc.store.state.uploads)
      .filter((u) => u.size === SIZE)
      .at(-1)!;
    const res = await s3.send(new GetObjectCommand({ Bucket: svc.info.s3.bucket, Key: upload.key }));
    identical.push(sha256(await res.Body!.transformToByteArray()) === digest ? 1 : 0);
  }
  s3.destroy();
  return [
    {
      name: '5 MiB part at 8 KiB/s: time',
      values: seconds,
      unit: 's',
      better: 'lower',
      digits: 0,
      note: `from process start; ${SIZE / LIMIT} s is the limit's own time`,
    },
    {
      name: '5 MiB part at 8 KiB/s: rate / limit',
      values: seconds.map((s) => SIZE / s / LIMIT),
      unit: '',
      better: 'higher',
      digits: 3,
      note: 'from process start, sign-in included',
    },
    {
      name: '5 MiB part at 8 KiB/s: bytes storage received',
      values: received,
      unit: 'B',
      better: 'lower',
      limit: SIZE,
      digits: 0,
      note: `the part is ${SIZE} B`,
    },
    { name: '5 MiB part at 8 KiB/s: parts sent again', values: resent, unit: '', better: 'lower', limit: 0, digits: 0 },
    {
      name: '5 MiB part at 8 KiB/s: object byte-identical',
      values: identical,
      unit: '',
      better: 'higher',
      limit: 1,
      digits: 0,
      note: '1: SHA-256 equal',
    },
  ];
}
