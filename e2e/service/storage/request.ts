import type { FaultRegistry } from '../faults.js';
import type { StorageCredentials } from './sigv4.js';
import type { DiskStore } from './disk-store.js';

/** What the storage handler needs: the disk store, the one key pair, and the fault registry. */
export interface StorageOptions {
  store: DiskStore;
  credentials: StorageCredentials;
  faults: FaultRegistry;
}

/** A classified path-style S3 request: its operation, bucket, key, query and part number (UploadPart). */
export interface S3Request {
  operation: string;
  bucket: string;
  key: string;
  query: URLSearchParams;
  partNumber?: number;
}
