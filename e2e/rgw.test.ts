import {
  CreateBucketCommand,
  CreateMultipartUploadCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListPartsCommand,
  S3Client,
} from '@aws-sdk/client-s3';
import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import type { IncomingMessage, Server } from 'node:http';
import { Agent, createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { RgwCluster } from './rgw/rgw.js';
import { missingRgwBinaries, startRgw } from './rgw/rgw.js';
import { SdkObjectStorage } from './service/gateway/object-storage.js';
import type { TestService } from './service/testing.js';
import { startTestService } from './service/testing.js';
import { MiB, sha256 } from '../main/testing/kit.js';
import {
  addExterior,
  cli,
  expectObjectsAreSources,
  queuedResumeCard,
  slowDrain,
  writeContractCard,
} from './s3-contract.js';

// The engine against a production S3 server: Ceph's RADOS Gateway (Debian's Ceph 16.2), a
// single-node cluster started by e2e/rgw/rgw.sh, with the local gateway pointed at it through
// its --s3-* settings. Between the two stands a recording relay that passes every request on
// unchanged (the Host header too, so SigV4 signatures hold) and notes what RGW answered.
const BUCKET = 'site-captures';

// CI must run these: a machine without Ceph fails them there. Elsewhere they may be left out.
const missing = missingRgwBinaries();
const absent = missing.length > 0 && !process.env.CI;
if (absent)
  console.warn(
    `e2e/rgw.test.ts: left out, Ceph is not installed here (missing ${missing.join(', ')}; apt-get install radosgw ceph-mon ceph-osd ceph-common)`,
  );

/** One request RGW got through the relay, and its answer. */
interface Seen {
  method: string;
  /** The S3 operation, told from method and query. */
  op: 'UploadPart' | 'ListParts' | 'CreateMultipartUpload' | 'CompleteMultipartUpload' | 'other';
  key: string;
  uploadId?: string;
  partNumber?: number;
  status?: number;
  /** RGW's body, for answers of 400 and above. */
  errorBody?: string;
}

let work: string;
let rgw: RgwCluster;
let relay: Server;
let relayEndpoint: string;
const seen: Seen[] = [];
/** Requests the relay holds back this many ms before passing them on (first match only). */
const holds: { match: (s: Seen) => boolean; ms: number }[] = [];
let svc: TestService;
let reader: S3Client;

function opOf(method: string, q: URLSearchParams): Seen['op'] {
  if (method === 'PUT' && q.has('partNumber') && q.has('uploadId')) return 'UploadPart';
  if (method === 'GET' && q.has('uploadId')) return 'ListParts';
  if (method === 'POST' && q.has('uploads')) return 'CreateMultipartUpload';
  if (method === 'POST' && q.has('uploadId')) return 'CompleteMultipartUpload';
  return 'other';
}

function startRelay(target: URL): Promise<Server> {
  // A connection of its own per request: a socket the relay reused after RGW closed it would
  // show the client a reset that RGW never sent.
  const agent = new Agent({ keepAlive: false });
  const server = createServer((req: IncomingMessage, res) => {
    const url = new URL(req.url ?? '/', 'http://relay');
    const entry: Seen = {
      method: req.method ?? '',
      op: opOf(req.method ?? '', url.searchParams),
      key: decodeURIComponent(url.pathname.replace(/^\/[^/]+\//, '')),
      ...(url.searchParams.has('uploadId') ? { uploadId: url.searchParams.get('uploadId')! } : {}),
      ...(url.searchParams.has('partNumber') ? { partNumber: Number(url.searchParams.get('partNumber')) } : {}),
    };
    seen.push(entry);
    const forward = () => {
      const up = request(
        { host: target.hostname, port: target.port, method: req.method, path: req.url, headers: req.headers, agent },
        (upRes) => {
          entry.status = upRes.statusCode;
          if ((upRes.statusCode ?? 0) >= 400) {
            entry.errorBody = '';
            upRes.on('data', (d: Buffer) => (entry.errorBody += d.toString()));
          }
          res.writeHead(upRes.statusCode ?? 502, upRes.headers);
          upRes.pipe(res);
          // RGW answers a refused request at its headers and drops the body that follows. The relay
          // drops it too: held back on the way to RGW, that body would stall the client's next
          // request on the same kept-alive connection, which RGW itself would have served.
          upRes.on('end', () => {
            if (req.complete) return;
            req.unpipe(up);
            req.resume();
            up.destroy();
          });
        },
      );
      up.on('error', () => res.destroy());
      // A client gone before its body was whole: RGW must not get the rest either.
      req.on('close', () => !req.complete && up.destroy());
      req.pipe(up);
    };
    const hold = holds.findIndex((h) => h.match(entry));
    if (hold < 0) return forward();
    const { ms } = holds.splice(hold, 1)[0]!;
    setTimeout(forward, ms);
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

beforeAll(async () => {
  if (absent) return;
  if (missing.length)
    throw new Error(
      `Ceph is not installed (missing ${missing.join(', ')}): CI must install radosgw ceph-mon ceph-osd ceph-common (.ci/run)`,
    );
  work = mkdtempSync(join(tmpdir(), 'rgw-test-'));
  rgw = await startRgw(join(work, 'ceph'));
  const keys = { accessKeyId: rgw.accessKeyId, secretAccessKey: rgw.secretAccessKey };
  reader = new S3Client({
    endpoint: rgw.endpoint,
    region: 'us-east-1',
    forcePathStyle: true,
    credentials: keys,
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });
  await reader.send(new CreateBucketCommand({ Bucket: BUCKET }));
  relay = await startRelay(new URL(rgw.endpoint));
  relayEndpoint = `http://127.0.0.1:${(relay.address() as AddressInfo).port}`;
  svc = await startTestService({ s3: { endpoint: relayEndpoint, bucket: BUCKET, region: 'us-east-1', ...keys } });
}, 180_000);
afterEach(async () => {
  holds.length = 0;
  await svc?.admin('PUT', '/settings', { presignExpiresIn: 3600 });
});
afterAll(async () => {
  reader?.destroy();
  await svc?.stop();
  relay?.closeAllConnections();
  await new Promise((resolve) => (relay ? relay.close(resolve) : resolve(undefined)));
  await rgw?.stop();
  if (work) rmSync(work, { recursive: true, force: true });
}, 90_000);

/** The object RGW holds under `key`, read back in full. */
async function stored(key: string): Promise<Buffer> {
  const got = await reader.send(new GetObjectCommand({ Bucket: BUCKET, Key: key }));
  return Buffer.from(await got.Body!.transformToByteArray());
}

describe.skipIf(absent)('the local gateway over Ceph RADOS Gateway (a production S3 server)', () => {
  it('uploads a card through the CLI: each part PUT once, every object RGW holds has its source file’s bytes', async () => {
    const { card, sources } = writeContractCard(work);
    const dataDir = join(work, 'queue');
    await addExterior(svc.info, dataDir, card);
    const from = seen.length;
    const drain = await cli(svc.info, dataDir, ['drain']);
    expect(drain.code, drain.stderr).toBe(0);
    expect(drain.stdout).toContain('3 file(s) completed, 0 failed, 0 paused, 0 waiting to be sent.');

    const uploads = Object.values(svc.store.state.uploads);
    expect(uploads.map((u) => u.fileName).sort()).toEqual([...sources.keys()].sort());
    // Each part went once, and RGW stored it (200).
    const puts = seen.slice(from).filter((s) => s.op === 'UploadPart');
    const expected = uploads.flatMap((u) =>
      Array.from({ length: u.totalParts }, (_, i) => `${u.storageUploadId}#${i + 1} 200`),
    );
    expect(puts.map((s) => `${s.uploadId}#${s.partNumber} ${s.status}`).sort()).toEqual(expected.sort());
    // RGW serves ListParts: the gateway checked the reported ETags against it, not only at completion.
    expect(
      seen
        .slice(from)
        .filter((s) => s.op === 'ListParts')
        .map((s) => s.status),
    ).toContain(200);
    await expectObjectsAreSources(uploads, sources, stored);
    for (const u of uploads) {
      // RGW's multipart ETag: the MD5 of the parts' MD5s, then "-" and the number of parts.
      const head = await reader.send(new HeadObjectCommand({ Bucket: BUCKET, Key: u.key }));
      expect(head.ETag).toMatch(new RegExp(`^"[0-9a-f]{32}-${u.totalParts}"$`));
    }
  });

  it('resumes a drain SIGKILLed with parts stored: ListParts as RGW answers it keeps those parts from going again', async () => {
    const { file, dataDir } = await queuedResumeCard(svc.info, work); // 5 parts
    const upload = Object.values(svc.store.state.uploads).find((u) => u.fileName === basename(file))!;
    const partsStored = () =>
      seen
        .filter((s) => s.op === 'UploadPart' && s.uploadId === upload.storageUploadId && s.status === 200)
        .map((s) => s.partNumber!);

    const { child, done } = slowDrain(svc.info, dataDir);
    const exited = done.then((r) => r.signal);
    for (let i = 0; i < 2400 && partsStored().length < 2; i++) await new Promise((r) => setTimeout(r, 25));
    child.kill('SIGKILL');
    expect(await exited).toBe('SIGKILL');
    // A body cut off by the kill is never stored; let RGW finish any answer on its way.
    await new Promise((r) => setTimeout(r, 1000));
    const before = partsStored();
    expect(before.length).toBeGreaterThanOrEqual(2);
    expect(before.length).toBeLessThan(upload.totalParts);

    const from = seen.length;
    const drain = await cli(svc.info, dataDir, ['drain']);
    expect(drain.code, drain.stdout + drain.stderr).toBe(0);
    expect(drain.stdout).toContain('1 file(s) completed, 0 failed');
    const mine = seen.slice(from).filter((s) => s.uploadId === upload.storageUploadId);
    // The gateway asked RGW for the upload's parts (ListParts) and RGW listed them...
    expect(mine.filter((s) => s.op === 'ListParts').map((s) => s.status)).toContain(200);
    // ...so each missing part went once, and none RGW already held went again.
    const resent = mine.filter((s) => s.op === 'UploadPart').map((s) => `${s.partNumber} ${s.status}`);
    const missingParts = [1, 2, 3, 4, 5].filter((n) => !before.includes(n));
    expect(resent.sort()).toEqual(missingParts.map((n) => `${n} 200`).sort());
    expect(sha256(await stored(upload.key))).toBe(sha256(readFileSync(file)));
  });

  it('presigns again after RGW refuses an expired presigned URL with its own 403 XML, and stores the file whole', async () => {
    const dir = join(work, 'expired-card');
    mkdirSync(dir, { recursive: true });
    const file = join(dir, 'VID_20261125_070000_00_004.insv');
    writeFileSync(file, randomBytes(3 * MiB + 17)); // one part
    const dataDir = join(work, 'expired-queue');
    await addExterior(svc.info, dataDir, dir);
    const upload = Object.values(svc.store.state.uploads).find((u) => u.fileName === basename(file))!;
    // URLs that live 5 s, and the first PUT held on its way for 8 s: it reaches RGW expired, as
    // over a link that stalled between presign and send.
    await svc.admin('PUT', '/settings', { presignExpiresIn: 5 });
    holds.push({ match: (s) => s.op === 'UploadPart' && s.uploadId === upload.storageUploadId, ms: 8000 });

    const from = seen.length;
    const drain = await cli(svc.info, dataDir, ['drain']);
    expect(drain.code, drain.stdout + drain.stderr).toBe(0);
    expect(drain.stdout).toContain('1 file(s) completed, 0 failed');
    const puts = seen.slice(from).filter((s) => s.op === 'UploadPart' && s.uploadId === upload.storageUploadId);
    expect(puts.map((s) => s.status)).toEqual([403, 200]);
    // RGW's own answer, not the built-in storage's: AccessDenied with an empty message (S3 says
    // "Request has expired") and RGW's transaction id.
    expect(puts[0]!.errorBody).toMatch(
      /^<\?xml version="1\.0" encoding="UTF-8"\?><Error><Code>AccessDenied<\/Code><Message><\/Message><RequestId>tx[0-9a-f-]+-default<\/RequestId>/,
    );
    // The refusal is told as RGW's code (its message is empty), without the URL or its signature.
    expect(drain.stderr).toMatch(
      /Part 1 of VID_20261125_070000_00_004\.insv: the presigned URL was refused \(AccessDenied \(HTTP 403 on PUT [^)?]*\)\); presigning again/,
    );
    expect(drain.stdout + drain.stderr).not.toMatch(/X-Amz-Signature|X-Amz-Credential/i);
    expect(sha256(await stored(upload.key))).toBe(sha256(readFileSync(file)));
  });

  it('reads back files of every size around a part boundary whole: SHA-256 and RGW’s ETag of the parts’ MD5s match the source', async () => {
    const dir = join(work, 'sizes-card');
    mkdirSync(dir, { recursive: true });
    const partSize = 5 * MiB;
    // Files whose last part is 1 byte, exactly full, or one byte short of full, and a one-part file.
    const sizes = [1, partSize - 1, partSize, partSize + 1, 2 * partSize, 2 * partSize + 1];
    const files = sizes.map((size, i) => {
      const path = join(dir, `VID_20261126_0${i}0000_00_01${i}.insv`);
      writeFileSync(path, randomBytes(size));
      return path;
    });
    const dataDir = join(work, 'sizes-queue');
    await addExterior(svc.info, dataDir, dir);
    const drain = await cli(svc.info, dataDir, ['drain']);
    expect(drain.code, drain.stdout + drain.stderr).toBe(0);
    expect(drain.stdout).toContain(`${files.length} file(s) completed, 0 failed`);

    const md5 = (b: Buffer) => createHash('md5').update(b).digest();
    for (const file of files) {
      const upload = Object.values(svc.store.state.uploads).find((u) => u.fileName === basename(file))!;
      expect(upload.partSize).toBe(partSize);
      const source = readFileSync(file);
      const bytes = await stored(upload.key);
      expect({ file: basename(file), size: bytes.length, sha256: sha256(bytes) }).toEqual({
        file: basename(file),
        size: source.length,
        sha256: sha256(source),
      });
      const parts = Array.from({ length: Math.max(1, Math.ceil(source.length / partSize)) }, (_, i) =>
        source.subarray(i * partSize, (i + 1) * partSize),
      );
      const etag = `"${createHash('md5')
        .update(Buffer.concat(parts.map(md5)))
        .digest('hex')}-${parts.length}"`;
      const head = await reader.send(new HeadObjectCommand({ Bucket: BUCKET, Key: upload.key }));
      expect({ file: basename(file), etag: head.ETag, length: head.ContentLength }).toEqual({
        file: basename(file),
        etag,
        length: source.length,
      });
    }
  });
});

describe.skipIf(absent)('what RGW checks that s3rver does not (README, "Over another S3 storage")', () => {
  it('verifies signatures and Content-MD5, pages ListParts, and checks ETags and the 5 MiB minimum at completion', async () => {
    const keys = { accessKeyId: rgw.accessKeyId, secretAccessKey: rgw.secretAccessKey };
    // The gateway's own port to storage, straight to RGW.
    const storage = new SdkObjectStorage({ endpoint: rgw.endpoint, bucket: BUCKET, region: 'us-east-1', ...keys });
    try {
      const key = 'checks/parts.bin';
      const uploadId = (await reader.send(new CreateMultipartUploadCommand({ Bucket: BUCKET, Key: key }))).UploadId!;
      const body = randomBytes(1024);
      const xmlCode = async (res: Response) => /<Code>([^<]*)<\/Code>/.exec(await res.text())?.[1];

      // A presigned URL whose signature is off by one digit: SigV4 is verified, not only the key id.
      const url = await storage.presignPart(key, uploadId, 1, 60);
      const forged = url.replace(
        /X-Amz-Signature=([0-9a-f])/,
        (_m, d: string) => `X-Amz-Signature=${d === '0' ? '1' : '0'}`,
      );
      const refused = await fetch(forged, { method: 'PUT', body });
      expect({ status: refused.status, code: await xmlCode(refused) }).toEqual({
        status: 403,
        code: 'SignatureDoesNotMatch',
      });
      // A Content-MD5 that is not the body's.
      const digest = await fetch(url, {
        method: 'PUT',
        body,
        headers: { 'content-md5': createHash('md5').update('other').digest('base64') },
      });
      expect({ status: digest.status, code: await xmlCode(digest) }).toEqual({ status: 400, code: 'BadDigest' });

      const etags: string[] = [];
      for (const n of [1, 2, 3]) {
        const res = await fetch(await storage.presignPart(key, uploadId, n, 60), { method: 'PUT', body });
        expect(res.status).toBe(200);
        etags.push(res.headers.get('etag')!);
      }
      // Part ETags are the quoted MD5 of the part.
      expect(etags).toEqual(Array(3).fill(`"${createHash('md5').update(body).digest('hex')}"`));
      // ListParts in pages: truncated, with the marker to go on from.
      const page = await reader.send(
        new ListPartsCommand({ Bucket: BUCKET, Key: key, UploadId: uploadId, MaxParts: 2 }),
      );
      expect({
        truncated: page.IsTruncated,
        next: page.NextPartNumberMarker,
        parts: page.Parts?.map((p) => p.PartNumber),
      }).toEqual({ truncated: true, next: '2', parts: [1, 2] });
      expect((await storage.listParts(key, uploadId))!.map((p) => [p.partNumber, p.etag, p.size])).toEqual(
        etags.map((e, i) => [i + 1, e, 1024]),
      );

      // Completion checks the size of every part but the last, and each named ETag.
      const complete = (tags: string[]) =>
        storage
          .completeMultipartUpload(
            key,
            uploadId,
            tags.map((etag, i) => ({ partNumber: i + 1, etag })),
          )
          .then(
            () => 'completed',
            (err: { name: string; $metadata?: { httpStatusCode?: number } }) =>
              `${err.$metadata?.httpStatusCode} ${err.name}`,
          );
      expect(await complete(etags)).toBe('400 EntityTooSmall');
      expect(await complete([`"${'0'.repeat(32)}"`])).toBe('400 InvalidPart');
    } finally {
      storage.destroy();
    }
  });
});
