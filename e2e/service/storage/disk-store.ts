import { createHash, randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream, existsSync, renameSync, writeFileSync } from 'node:fs';
import { mkdir, readFile, readdir, rename, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { s3Errors } from './s3-error-response.js';

/** S3's minimum size of every part but the last in a multipart upload: 5 MiB, in bytes. */
const MIN_PART_SIZE = 5 * 1024 * 1024;
/** S3's highest part number. */
export const MAX_PART_NUMBER = 10_000;

/** One stored part, as ListParts reports it. `etag` is quoted (`"<md5 hex>"`), `size` in bytes, `lastModified` ISO 8601. */
export interface StoredPart {
  partNumber: number;
  etag: string;
  size: number;
  lastModified: string;
}

/** A finished object's metadata. `etag` quoted, `size` in bytes, `lastModified` ISO 8601. */
export interface ObjectInfo {
  bucket: string;
  key: string;
  size: number;
  etag: string;
  contentType: string;
  lastModified: string;
}

/** A multipart upload in progress. `initiated` is ISO 8601. */
export interface MultipartInfo {
  uploadId: string;
  bucket: string;
  key: string;
  contentType: string;
  initiated: string;
}

/** A body already written to a temporary file of the store, with its MD5 (hex) and length in bytes. */
export interface ReceivedBody {
  tmpFile: string;
  md5Hex: string;
  size: number;
}

const sha = (s: string) => createHash('sha256').update(s).digest('hex');

/**
 * Writes JSON atomically: a crash leaves either the old or the new file, never half of one.
 * Synchronous on purpose: the metadata is a few hundred bytes, and each step of the promise API
 * (open, write, close, rename) is one more hop through the thread pool, which cost about 2.5
 * times the CPU of the same calls made inline; an add of 5,000 captures creates 10,000 uploads.
 */
async function writeJsonAtomic(file: string, value: unknown): Promise<void> {
  const tmp = `${file}.tmp-${randomBytes(6).toString('hex')}`;
  writeFileSync(tmp, JSON.stringify(value));
  renameSync(tmp, file);
}

async function readJson<T>(file: string): Promise<T | undefined> {
  try {
    return JSON.parse(await readFile(file, 'utf8')) as T;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}

/**
 * The local storage's data on disk, kept under one root folder so that it survives a restart:
 *
 *     <root>/tmp/                               bodies being received
 *     <root>/buckets/<bucket>/<sha256(key)>.bin  object bytes, .json beside it with ObjectInfo
 *     <root>/multipart/<uploadId>/upload.json    MultipartInfo
 *     <root>/multipart/<uploadId>/<n>.json       StoredPart, naming its data file
 *
 * A part's data file carries a unique name and its metadata is renamed into place after it,
 * so concurrent or interrupted uploads of one part never leave metadata pointing at other bytes.
 * Every method throws {@link S3Error} for the S3 conditions it checks.
 */
export class DiskStore {
  /**
   * Counters since start, for tests: parts stored, parts stored again over an existing copy of
   * the same size (a client re-sending a part storage already had), and UploadPart bodies that
   * arrived whole (counted as the last byte arrives, before the `partStoreDelayMs` setting's wait).
   */
  readonly stats = { partsStored: 0, partsReplaced: 0, partBodiesReceived: 0 };
  /**
   * Parts whose whole body arrived and that are not stored yet (waiting out the `partStoreDelayMs`
   * setting or a `bufferedBody` fault): a test that counts the parts stored waits for 0 first.
   */
  storesPending = 0;
  /** Body bytes read from every request so far, as they arrive (after the bandwidth setting): tests watch it grow or stop. */
  bytesReceived = 0;
  /**
   * Every request the storage listener received, in arrival order (S3 operation name, part number
   * and object key for UploadPart, arrival in ms since epoch), for tests that count what a client
   * sent and when, per part of each object, and for which file (the order of uploads:).
   * Bounded: the oldest entries are dropped past 100 000.
   */
  readonly received: { operation: string; partNumber?: number; key?: string; at: number }[] = [];
  /**
   * Every part stored (the newest 100 000), in the order they were stored: the object key, the part
   * number, when its request arrived (`arrivedAt`), when its body's last byte arrived (`bodyAt`) and
   * when it was stored (`storedAt`), all ms on this process's monotonic clock (performance.now()),
   * and whether it replaced a stored copy of the same size (`replaced`: a client sending a part
   * storage already had). For tests that ask which part was stored twice and when.
   */
  readonly partLog: {
    key: string;
    partNumber: number;
    arrivedAt: number;
    bodyAt: number;
    storedAt: number;
    replaced: boolean;
  }[] = [];

  constructor(readonly root: string) {}

  /** Creates the folders and the given buckets (idempotent). */
  async init(buckets: readonly string[]): Promise<void> {
    await mkdir(join(this.root, 'tmp'), { recursive: true });
    await mkdir(join(this.root, 'multipart'), { recursive: true });
    for (const b of buckets) await mkdir(join(this.root, 'buckets', b), { recursive: true });
  }

  /** A fresh path in the store's temporary folder, for a body being received. */
  tmpFile(): string {
    return join(this.root, 'tmp', `${Date.now()}-${randomBytes(8).toString('hex')}`);
  }

  /** Throws NoSuchBucket unless the bucket exists. */
  assertBucket(bucket: string): void {
    if (!/^[a-z0-9.-]{3,63}$/.test(bucket) || !existsSync(join(this.root, 'buckets', bucket)))
      throw s3Errors.noSuchBucket();
  }

  private objectBase(bucket: string, key: string): string {
    return join(this.root, 'buckets', bucket, sha(key));
  }

  /** Stores a whole object from a received body (PutObject). Returns its quoted ETag. */
  async putObject(bucket: string, key: string, body: ReceivedBody, contentType: string): Promise<string> {
    this.assertBucket(bucket);
    const etag = `"${body.md5Hex}"`;
    const base = this.objectBase(bucket, key);
    await rename(body.tmpFile, `${base}.bin`);
    const info: ObjectInfo = {
      bucket,
      key,
      size: body.size,
      etag,
      contentType,
      lastModified: new Date().toISOString(),
    };
    await writeJsonAtomic(`${base}.json`, info);
    return etag;
  }

  /** Metadata of an object; throws NoSuchKey. */
  async headObject(bucket: string, key: string): Promise<ObjectInfo> {
    this.assertBucket(bucket);
    const info = await readJson<ObjectInfo>(`${this.objectBase(bucket, key)}.json`);
    if (!info) throw s3Errors.noSuchKey();
    return info;
  }

  /** Every object of a bucket, sorted by key (ListObjects). Reads each object's metadata file. */
  async listObjects(bucket: string): Promise<ObjectInfo[]> {
    this.assertBucket(bucket);
    const dir = join(this.root, 'buckets', bucket);
    const names = (await readdir(dir)).filter((n) => n.endsWith('.json'));
    const infos = await Promise.all(names.map((n) => readJson<ObjectInfo>(join(dir, n))));
    return infos
      .filter((i): i is ObjectInfo => i !== undefined)
      .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  }

  /** The buckets, with their creation time (ISO 8601) (ListBuckets). */
  async listBuckets(): Promise<{ name: string; created: string }[]> {
    const root = join(this.root, 'buckets');
    const names = (await readdir(root)).sort();
    return Promise.all(
      names.map(async (name) => ({ name, created: (await stat(join(root, name))).birthtime.toISOString() })),
    );
  }

  /** Path of an object's bytes on disk (for streaming a GetObject). */
  objectFile(bucket: string, key: string): string {
    return `${this.objectBase(bucket, key)}.bin`;
  }

  /** Starts a multipart upload (CreateMultipartUpload) and returns its upload id. */
  async createMultipartUpload(bucket: string, key: string, contentType: string): Promise<string> {
    this.assertBucket(bucket);
    const uploadId = randomBytes(24).toString('base64url');
    const dir = join(this.root, 'multipart', uploadId);
    // The folder is new and its parent made by init(): a plain mkdir, a tenth of the kernel's work
    // of a recursive one here; recursive only if the parent is gone.
    await mkdir(dir).catch((err: NodeJS.ErrnoException) => {
      if (err.code !== 'ENOENT') throw err;
      return mkdir(dir, { recursive: true });
    });
    const info: MultipartInfo = { uploadId, bucket, key, contentType, initiated: new Date().toISOString() };
    await writeJsonAtomic(join(dir, 'upload.json'), info);
    return uploadId;
  }

  /** The upload, checked against the bucket and key it was created for; throws NoSuchUpload. */
  async getUpload(uploadId: string, bucket: string, key: string): Promise<MultipartInfo> {
    if (!/^[A-Za-z0-9_-]+$/.test(uploadId)) throw s3Errors.noSuchUpload();
    const info = await readJson<MultipartInfo>(join(this.root, 'multipart', uploadId, 'upload.json'));
    if (!info || info.bucket !== bucket || info.key !== key) throw s3Errors.noSuchUpload();
    return info;
  }

  /**
   * Stores one part (UploadPart), replacing an earlier upload of the same part number. Returns the
   * quoted ETag: the part's MD5 when stored plain; with `encrypted` (SSE-KMS or SSE-C, as real S3
   * does) 32 hex digits that are not its MD5 (the MD5 of a random salt and the part's MD5, fixed
   * for this stored copy, so ListParts and CompleteMultipartUpload agree with the answer).
   */
  async putPart(
    upload: MultipartInfo,
    partNumber: number,
    body: ReceivedBody,
    encrypted = false,
    times: { arrivedAt: number; bodyAt: number } = { arrivedAt: performance.now(), bodyAt: performance.now() },
  ): Promise<string> {
    const dir = join(this.root, 'multipart', upload.uploadId);
    if (!existsSync(dir)) throw s3Errors.noSuchUpload();
    const dataName = `${partNumber}.${randomBytes(6).toString('hex')}.bin`;
    await rename(body.tmpFile, join(dir, dataName));
    const part: StoredPart & { dataName: string } = {
      partNumber,
      etag: `"${encrypted ? createHash('md5').update(randomBytes(16)).update(body.md5Hex).digest('hex') : body.md5Hex}"`,
      size: body.size,
      lastModified: new Date().toISOString(),
      dataName,
    };
    const previous = await readJson<{ dataName: string; size: number }>(join(dir, `${partNumber}.json`));
    await writeJsonAtomic(join(dir, `${partNumber}.json`), part);
    this.stats.partsStored++;
    if (previous?.size === body.size) this.stats.partsReplaced++;
    this.partLog.push({
      key: upload.key,
      partNumber,
      ...times,
      storedAt: performance.now(),
      replaced: previous?.size === body.size,
    });
    if (this.partLog.length > 100_000) this.partLog.splice(0, this.partLog.length - 100_000);
    if (previous && previous.dataName !== dataName) await rm(join(dir, previous.dataName), { force: true });
    return part.etag;
  }

  /** Every stored part of an upload in ascending part-number order (ListParts before paging). */
  async listParts(upload: MultipartInfo): Promise<(StoredPart & { dataName: string })[]> {
    const dir = join(this.root, 'multipart', upload.uploadId);
    let names: string[];
    try {
      names = await readdir(dir);
    } catch {
      throw s3Errors.noSuchUpload();
    }
    const parts: (StoredPart & { dataName: string })[] = [];
    for (const name of names) {
      if (!/^\d+\.json$/.test(name)) continue;
      const p = await readJson<StoredPart & { dataName: string }>(join(dir, name));
      if (p) parts.push(p);
    }
    return parts.sort((a, b) => a.partNumber - b.partNumber);
  }

  /**
   * Assembles the object from the listed parts (CompleteMultipartUpload) with S3's rules:
   * part numbers strictly ascending (InvalidPartOrder), each stored with exactly the given ETag
   * (InvalidPart), every part but the last at least 5 MiB (EntityTooSmall). The object's ETag is
   * the quoted MD5 of the parts' binary MD5s followed by `-<number of parts>`.
   */
  async completeMultipartUpload(
    upload: MultipartInfo,
    requested: readonly { partNumber: number; etag: string }[],
  ): Promise<ObjectInfo> {
    if (requested.length === 0) throw s3Errors.malformedXml();
    const stored = new Map((await this.listParts(upload)).map((p) => [p.partNumber, p]));
    const chosen: (StoredPart & { dataName: string })[] = [];
    let last = 0;
    for (const r of requested) {
      if (r.partNumber <= last) throw s3Errors.invalidPartOrder();
      last = r.partNumber;
      const p = stored.get(r.partNumber);
      // S3 accepts the ETag with or without its quotes in the Complete request.
      const want = r.etag.startsWith('"') ? r.etag : `"${r.etag}"`;
      if (!p || p.etag !== want) throw s3Errors.invalidPart();
      chosen.push(p);
    }
    chosen.forEach((p, i) => {
      if (i < chosen.length - 1 && p.size < MIN_PART_SIZE) throw s3Errors.entityTooSmall();
    });
    const dir = join(this.root, 'multipart', upload.uploadId);
    const tmp = this.tmpFile();
    await pipeline(async function* () {
      for (const p of chosen) yield* createReadStream(join(dir, p.dataName));
    }, createWriteStream(tmp));
    const md5s = Buffer.concat(chosen.map((p) => Buffer.from(p.etag.slice(1, -1), 'hex')));
    const etag = `"${createHash('md5').update(md5s).digest('hex')}-${chosen.length}"`;
    const size = chosen.reduce((n, p) => n + p.size, 0);
    const base = this.objectBase(upload.bucket, upload.key);
    await rename(tmp, `${base}.bin`);
    const info: ObjectInfo = {
      bucket: upload.bucket,
      key: upload.key,
      size,
      etag,
      contentType: upload.contentType,
      lastModified: new Date().toISOString(),
    };
    await writeJsonAtomic(`${base}.json`, info);
    await rm(dir, { recursive: true, force: true });
    return info;
  }

  /**
   * Deletes one stored part of a multipart upload (`uploadId`: storage's own id), as a storage
   * that loses data would: ListParts no longer lists it and CompleteMultipartUpload refuses it.
   * For tests; no S3 request does this. Answers whether the part was there.
   */
  async deletePart(uploadId: string, partNumber: number): Promise<boolean> {
    const dir = join(this.root, 'multipart', uploadId);
    const part = await readJson<{ dataName: string }>(join(dir, `${partNumber}.json`));
    if (!part) return false;
    await rm(join(dir, `${partNumber}.json`), { force: true });
    await rm(join(dir, part.dataName), { force: true });
    return true;
  }

  /** Drops an upload and its parts (AbortMultipartUpload). */
  async abortMultipartUpload(upload: MultipartInfo): Promise<void> {
    await rm(join(this.root, 'multipart', upload.uploadId), { recursive: true, force: true });
  }

  /** Bytes currently held by a file of the store, for tests and the admin view. */
  async fileSize(file: string): Promise<number> {
    return (await stat(file)).size;
  }
}
