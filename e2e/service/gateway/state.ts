import { createHash, randomBytes } from 'node:crypto';
import Database from 'better-sqlite3';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { seed } from './seed.js';

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
export interface SentEmail {
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

/**
 * What a request changed, by id: the routes name the records they touched, and only those are
 * written. Entries appended to `emails` and `progress`, and a changed token generation, the store
 * finds by itself.
 */
export interface Changes {
  /** Ids of captures added or changed in `state.captures`. */
  captures?: Iterable<string>;
  /** Ids of uploads added or changed in `state.uploads`. */
  uploads?: Iterable<string>;
  /** Ids of projects changed in place (stage, design update times). */
  projects?: Iterable<string>;
}

type Kind = 'capture' | 'upload' | 'project' | 'account' | 'email' | 'progress' | 'assetCategory' | 'asset';
type ListKey = 'accounts' | 'projects' | 'emails' | 'progress' | 'assetCategories' | 'assets';
/** The state's arrays: one row per entry, its index the id; only `emails` and `progress` grow. */
const LISTS: [ListKey, Kind][] = [
  ['accounts', 'account'],
  ['projects', 'project'],
  ['emails', 'email'],
  ['progress', 'progress'],
  ['assetCategories', 'assetCategory'],
  ['assets', 'asset'],
];
type Meta = Pick<ServiceState, 'version' | 'jwtSecret' | 'tokenGeneration' | 'storage'>;

const SCHEMA = `
  CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, json TEXT NOT NULL);
  CREATE TABLE IF NOT EXISTS records (kind TEXT NOT NULL, id TEXT NOT NULL, json TEXT NOT NULL, PRIMARY KEY (kind, id));
`;

/**
 * The service's state: held in memory as one {@link ServiceState} that the routes read and change
 * in place, and kept in SQLite (`<dataDir>/service-state.db`, one row per capture, upload,
 * project, email, progress entry...) so that a restarted service carries on where it was.
 *
 * Why rows: the state used to be one JSON file rewritten on every change, so each registration
 * cost more than the last (10 MB at 10,000 files; `add` of 5,000 pairs took 233 s). `save()` now
 * writes only the records a request changed, in one transaction, so a request costs the same at
 * 10,000 captures as at 10; and every committed change survives a crash of the process.
 * A data folder of the JSON era (`service-state.json`) is imported once and left in place.
 */
export class StateStore {
  readonly file: string;
  readonly state: ServiceState;
  private readonly db: Database.Database;
  private readonly upsert: Database.Statement<[string, string, string]>;
  private readonly remove: Database.Statement<[string, string]>;
  private readonly writeMeta: Database.Statement<[string]>;
  /** How many entries of each array are in the database (arrays only grow). */
  private readonly persisted = new Map<ListKey, number>();
  private lastMeta = '';

  /** Opens or creates the database in `dataDir` (seeding it on first start). Throws when the folder cannot be written. */
  constructor(dataDir: string) {
    this.file = join(dataDir, 'service-state.db');
    this.db = new Database(this.file);
    this.db.pragma('journal_mode = WAL');
    this.db.exec(SCHEMA);
    this.upsert = this.db.prepare('INSERT INTO records (kind, id, json) VALUES (?, ?, ?) ON CONFLICT (kind, id) DO UPDATE SET json = excluded.json');
    this.remove = this.db.prepare('DELETE FROM records WHERE kind = ? AND id = ?');
    this.writeMeta = this.db.prepare("INSERT INTO meta (key, json) VALUES ('state', ?) ON CONFLICT (key) DO UPDATE SET json = excluded.json");
    const loaded = this.load();
    if (loaded) {
      this.state = loaded;
      for (const [list] of LISTS) this.persisted.set(list, loaded[list].length);
      this.lastMeta = JSON.stringify(metaOf(loaded));
    } else {
      const legacy = join(dataDir, 'service-state.json');
      this.state = existsSync(legacy) ? (JSON.parse(readFileSync(legacy, 'utf8')) as ServiceState) : seed();
      this.save({ captures: Object.keys(this.state.captures), uploads: Object.keys(this.state.uploads) });
    }
  }

  /**
   * Writes what a request changed, in one transaction: the named captures, uploads and projects
   * (a name no longer in the state deletes its row), entries appended to the arrays, and the
   * token generation and keys when they changed. Throws what SQLite throws (disk full...).
   */
  save(changes: Changes = {}): void {
    this.db.transaction(() => {
      const one = (kind: Kind, id: string, value: unknown) => (value === undefined ? this.remove.run(kind, id) : this.upsert.run(kind, id, JSON.stringify(value)));
      for (const id of changes.captures ?? []) one('capture', id, this.state.captures[id]);
      for (const id of changes.uploads ?? []) one('upload', id, this.state.uploads[id]);
      for (const id of changes.projects ?? []) {
        const i = this.state.projects.findIndex((p) => p.id === id);
        if (i >= 0) one('project', String(i), this.state.projects[i]);
      }
      for (const [list, kind] of LISTS) {
        const entries = this.state[list];
        for (let i = this.persisted.get(list) ?? 0; i < entries.length; i++) one(kind, String(i), entries[i]);
        this.persisted.set(list, entries.length);
      }
      const meta = JSON.stringify(metaOf(this.state));
      if (meta !== this.lastMeta) this.writeMeta.run(meta);
      this.lastMeta = meta;
    })();
  }

  /** Closes the database; every saved change is already committed. */
  close(): void {
    this.db.close();
  }

  /** The project with this id, if any. */
  project(id: string | undefined): Project | undefined {
    return id ? this.state.projects.find((p) => p.id === id) : undefined;
  }

  /** The project an API key is scoped to, if any. */
  projectByKey(key: string | undefined): Project | undefined {
    return key ? this.state.projects.find((p) => p.apiKey === key) : undefined;
  }

  /** The whole state from the database, or undefined for a new one. */
  private load(): ServiceState | undefined {
    const meta = this.db.prepare<[], { json: string }>("SELECT json FROM meta WHERE key = 'state'").get();
    if (!meta) return undefined;
    const state: ServiceState = { ...(JSON.parse(meta.json) as Meta), accounts: [], projects: [], captures: {}, uploads: {}, emails: [], progress: [], assetCategories: [], assets: [] };
    const lists = new Map<string, unknown[]>(LISTS.map(([list, kind]) => [kind, state[list] as unknown[]]));
    // rowid order is insertion order, so arrays come back in their order (an upsert keeps the rowid).
    for (const row of this.db.prepare<[], { kind: Kind; id: string; json: string }>('SELECT kind, id, json FROM records ORDER BY rowid').iterate()) {
      const value: unknown = JSON.parse(row.json);
      if (row.kind === 'capture') state.captures[row.id] = value as CaptureState;
      else if (row.kind === 'upload') state.uploads[row.id] = value as UploadState;
      else lists.get(row.kind)?.push(value);
    }
    return state;
  }
}

const metaOf = (s: ServiceState): Meta => ({ version: s.version, jwtSecret: s.jwtSecret, tokenGeneration: s.tokenGeneration, storage: s.storage });
