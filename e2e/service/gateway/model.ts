import { createHash, randomBytes } from 'node:crypto';

// The stand-in's data model: the records of its persisted state and how their ids are made. Its
// own file so that state.ts (the store) and seed.ts / seed-records.ts (what a fresh state holds)
// both import it and never each other (no import circle).

/** Project stages of capture-upload-interface.md §3 ("Project stage"). */
export type ProjectStage = 'Pre-Setup' | 'Setup' | 'In-construction' | 'Archived' | 'Deleted';

/** A design (a floor or level drawing of a structure). `updatedAt` is ISO 8601 UTC. */
export interface Design {
  id: string;
  name: string;
  /** Whether this is one of the project's default capture designs (those in the export, §4.2). */
  isDefault: boolean;
  updatedAt: string;
}

/** A structure (building) of a project, with its designs. */
export interface Structure {
  id: string;
  name: string;
  designs: Design[];
}

/** A project, with the API key scoped to it (§5.2). */
export interface Project {
  id: string;
  name: string;
  stage: ProjectStage;
  apiKey: string;
  structures: Structure[];
}

/** An account of both sign-in services. The password is kept as given: this is a local test double. */
export interface Account {
  _id: string;
  firstName: string;
  lastName: string;
  email: string;
  password: string;
  createdAt: string;
}

/** A file upload of §2 "Upload manifest entry" and "Upload record", with the storage side of it. */
export interface UploadState {
  uploadId: string;
  captureId: string;
  frameIndex: number;
  fileName: string;
  contentType: string;
  externalId?: string;
  /** Bytes. */
  size: number;
  /** Bytes per part. */
  partSize: number;
  totalParts: number;
  status: 'initiated' | 'uploading' | 'completed';
  /** The object key and the storage's multipart upload id behind this upload. */
  key: string;
  storageUploadId: string;
  /** Parts accepted by complete-batch or found by a `syncFromS3` read, by part number. */
  parts: Record<string, { etag: string; size: number }>;
  completedAt?: string;
  /** ETag of the finished object (quoted, `-N` form). */
  objectEtag?: string;
}

/** A registered capture (§2 "Capture summary") with the request it was registered from. */
export interface CaptureState {
  captureId: string;
  project: string;
  structure: string;
  uploadStatus: 'pending' | 'uploading' | 'complete';
  expectedFiles: number;
  completedFiles: number;
  createdAt: string;
  request: Record<string, unknown>;
  uploadIds: string[];
}

/** An email the export of §4.2 / §6 would send. `expiresAt` and `sentAt` are ISO 8601. */
interface SentEmail {
  to: string;
  userId: string;
  project: string;
  subject: string;
  link: string;
  sentAt: string;
  expiresAt: string;
}

/** A progress entry of progress-records-interface.md §2. `date` is YYYY-MM-DD. */
export interface ProgressEntry {
  id: string;
  projectId: string;
  date: string;
  status: string;
  details: string;
}

/** The whole persisted state of the local service. */
export interface ServiceState {
  version: 1;
  jwtSecret: string;
  /** Bumped by the "expire tokens now" fault: tokens of an older generation get 401. */
  tokenGeneration: number;
  storage: { accessKeyId: string; secretAccessKey: string; region: string; bucket: string };
  accounts: Account[];
  projects: Project[];
  captures: Record<string, CaptureState>;
  uploads: Record<string, UploadState>;
  emails: SentEmail[];
  progress: ProgressEntry[];
  assetCategories: Record<string, unknown>[];
  assets: Record<string, unknown>[];
}

/** A 24-hex id (the services' ids look like MongoDB ObjectIds), stable for a given name. */
export const stableId = (name: string) => createHash('sha1').update(name).digest('hex').slice(0, 24);
/** A fresh random 24-hex id. */
export const newId = () => randomBytes(12).toString('hex');
