import {
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  HeadBucketCommand,
  ListPartsCommand,
  S3Client,
  UploadPartCommand,
} from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';

/**
 * An S3-compatible storage the gateway keeps the files in: the built-in storage listener, or any
 * other one (an endpoint, a bucket that exists, a key pair). Addressing is path-style
 * (`{endpoint}/{bucket}/{key}`), which every S3 implementation serves.
 */
export interface S3StorageSettings {
  /** Base URL of the storage, `http://` or `https://`, without the bucket (e.g. `http://127.0.0.1:9000`). */
  endpoint: string;
  /** The bucket the objects go to; it must exist (the gateway never creates one). */
  bucket: string;
  /** Signing region of SigV4 (`us-east-1` where the storage does not care). */
  region: string;
  /** The key pair the gateway signs with, and signs presigned part URLs with. The secret is never logged. */
  accessKeyId: string;
  secretAccessKey: string;
}

/** A part storage holds, as ListParts reports it: `etag` quoted as storage gave it, `size` in bytes. */
export interface StoredPartInfo {
  partNumber: number;
  etag: string;
  size: number;
}

/**
 * The gateway's port to storage: the four multipart calls the upload endpoints of
 * capture-upload-interface.md §4.4–§4.9 stand on. Every method throws the AWS SDK's error
 * (with `$metadata`) when storage refuses or cannot be reached; the gateway answers those 502.
 */
export interface ObjectStorage {
  readonly bucket: string;
  /** Starts a multipart upload of `key` (CreateMultipartUpload) and returns storage's upload id. */
  createMultipartUpload(key: string, contentType: string): Promise<string>;
  /**
   * A presigned SigV4 query-auth URL for one UploadPart, valid `expiresInSeconds` seconds (§4.5,
   * §4.6); with `tokenChars` > 0 it carries a signed `X-Amz-Security-Token` of that many characters.
   */
  presignPart(
    key: string,
    uploadId: string,
    partNumber: number,
    expiresInSeconds: number,
    tokenChars?: number,
  ): Promise<string>;
  /**
   * Every part storage holds for the upload, ascending (ListParts, all pages); `undefined` when this
   * storage does not serve ListParts (405 / 501, as s3rver): the caller then keeps its own record of
   * the parts reported to it.
   */
  listParts(key: string, uploadId: string): Promise<StoredPartInfo[] | undefined>;
  /** Assembles the object (CompleteMultipartUpload) from parts in ascending order; returns the object's ETag. */
  completeMultipartUpload(
    key: string,
    uploadId: string,
    parts: readonly { partNumber: number; etag: string }[],
  ): Promise<string | undefined>;
  /** Throws unless the bucket answers HeadBucket with these keys; the error says what to fix, without the secret key. */
  checkBucket(): Promise<void>;
  /** Drops the client's connections. */
  destroy(): void;
}

/** S3's answers meaning "this storage does not serve the operation", not "the request was wrong". */
const NOT_SERVED = new Set([405, 501]);
const statusOf = (err: unknown) =>
  (err as { $metadata?: { httpStatusCode?: number } } | undefined)?.$metadata?.httpStatusCode;

/**
 * {@link ObjectStorage} through the AWS SDK v3, for the built-in storage and any S3-compatible one
 * alike, so the gateway reaches every storage the same way a real gateway would. The built-in
 * storage gets no in-process shortcut on purpose: through the SDK, the gateway's own calls meet
 * the storage's SigV4 checks and fault rules as a client's do.
 */
export class SdkObjectStorage implements ObjectStorage {
  readonly bucket: string;
  private readonly client: S3Client;
  /** Learnt from the first ListParts: false once storage answered that it does not serve it. */
  private listsParts = true;

  constructor(private readonly settings: S3StorageSettings) {
    this.bucket = settings.bucket;
    this.client = new S3Client({
      endpoint: settings.endpoint,
      region: settings.region,
      forcePathStyle: true,
      credentials: { accessKeyId: settings.accessKeyId, secretAccessKey: settings.secretAccessKey },
      // Checksums would be signed into presigned part URLs for an empty body; parts carry their own MD5 ETag.
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
    });
  }

  async createMultipartUpload(key: string, contentType: string): Promise<string> {
    const created = await this.client.send(
      new CreateMultipartUploadCommand({ Bucket: this.bucket, Key: key, ContentType: contentType }),
    );
    return created.UploadId!;
  }

  presignPart(
    key: string,
    uploadId: string,
    partNumber: number,
    expiresInSeconds: number,
    tokenChars = 0,
  ): Promise<string> {
    const command = new UploadPartCommand({
      Bucket: this.bucket,
      Key: key,
      UploadId: uploadId,
      PartNumber: partNumber,
    });
    if (tokenChars > 0) {
      // Added before signing, so it is signed with the rest of the query as an STS token is.
      command.middlewareStack.add(
        (next) => (args) => {
          const request = args.request as { query?: Record<string, string> };
          request.query = { ...request.query, 'X-Amz-Security-Token': 'T'.repeat(tokenChars) };
          return next(args);
        },
        { step: 'build', name: 'longSecurityToken' },
      );
    }
    return getSignedUrl(this.client, command, { expiresIn: expiresInSeconds });
  }

  async listParts(key: string, uploadId: string): Promise<StoredPartInfo[] | undefined> {
    if (!this.listsParts) return undefined;
    const parts: StoredPartInfo[] = [];
    let marker: string | undefined;
    for (;;) {
      let page;
      try {
        page = await this.client.send(
          new ListPartsCommand({ Bucket: this.bucket, Key: key, UploadId: uploadId, PartNumberMarker: marker }),
        );
      } catch (err) {
        if (!NOT_SERVED.has(statusOf(err) ?? 0)) throw err;
        // Said once, though several requests may have asked at the same time.
        if (this.listsParts)
          console.warn(
            `capture-service: the storage at ${this.settings.endpoint} does not serve ListParts (HTTP ${statusOf(err)}); ` +
              'the gateway goes by the parts clients report, and CompleteMultipartUpload is the only check of their ETags',
          );
        this.listsParts = false;
        return undefined;
      }
      for (const p of page.Parts ?? []) parts.push({ partNumber: p.PartNumber!, etag: p.ETag!, size: p.Size! });
      if (!page.IsTruncated) return parts;
      marker = page.NextPartNumberMarker;
    }
  }

  async completeMultipartUpload(
    key: string,
    uploadId: string,
    parts: readonly { partNumber: number; etag: string }[],
  ): Promise<string | undefined> {
    const done = await this.client.send(
      new CompleteMultipartUploadCommand({
        Bucket: this.bucket,
        Key: key,
        UploadId: uploadId,
        MultipartUpload: { Parts: parts.map((p) => ({ PartNumber: p.partNumber, ETag: p.etag })) },
      }),
    );
    return done.ETag;
  }

  async checkBucket(): Promise<void> {
    try {
      await this.client.send(new HeadBucketCommand({ Bucket: this.bucket }));
    } catch (err) {
      const status = statusOf(err);
      const where = `bucket "${this.bucket}" at ${this.settings.endpoint}`;
      const why =
        status === 404
          ? 'the bucket does not exist: create it first (the gateway never creates one)'
          : status === 401 || status === 403
            ? `storage refuses access key ${this.settings.accessKeyId} (HTTP ${status}): check the keys and the region (${this.settings.region})`
            : status
              ? `storage answered HTTP ${status}`
              : `storage cannot be reached (${(err as Error).message}): check the endpoint`;
      throw new Error(`The S3 storage is not usable: ${where}: ${why}.`, { cause: err });
    }
  }

  destroy(): void {
    this.client.destroy();
  }
}
