import Database from 'better-sqlite3';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CaptureState, Project, ServiceState, UploadState } from './model.js';
import { seed } from './seed.js';

export type { Account, CaptureState, Project, ProjectStage, ServiceState, UploadState } from './model.js';
export { newId } from './model.js';

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
 * 10,000 captures as at 10; and every committed change survives a crash of the process (not a
 * power loss: synchronous=NORMAL).
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
    // NORMAL, not FULL: a commit is in the WAL (the OS holds it) without waiting for the disk, so
    // it survives the process killed, only not the machine losing power, which a stand-in need not
    // survive; FULL made each add-capture wait for the disk once more than the client itself
    // (docs/queue-commits.md).
    this.db.pragma('synchronous = NORMAL');
    this.db.exec(SCHEMA);
    this.upsert = this.db.prepare(
      'INSERT INTO records (kind, id, json) VALUES (?, ?, ?) ON CONFLICT (kind, id) DO UPDATE SET json = excluded.json',
    );
    this.remove = this.db.prepare('DELETE FROM records WHERE kind = ? AND id = ?');
    this.writeMeta = this.db.prepare(
      "INSERT INTO meta (key, json) VALUES ('state', ?) ON CONFLICT (key) DO UPDATE SET json = excluded.json",
    );
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
      const one = (kind: Kind, id: string, value: unknown) =>
        value === undefined ? this.remove.run(kind, id) : this.upsert.run(kind, id, JSON.stringify(value));
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
    const state: ServiceState = {
      ...(JSON.parse(meta.json) as Meta),
      accounts: [],
      projects: [],
      captures: {},
      uploads: {},
      emails: [],
      progress: [],
      assetCategories: [],
      assets: [],
    };
    const lists = new Map<string, unknown[]>(LISTS.map(([list, kind]) => [kind, state[list] as unknown[]]));
    // rowid order is insertion order, so arrays come back in their order (an upsert keeps the rowid).
    for (const row of this.db
      .prepare<[], { kind: Kind; id: string; json: string }>('SELECT kind, id, json FROM records ORDER BY rowid')
      .iterate()) {
      const value: unknown = JSON.parse(row.json);
      if (row.kind === 'capture') state.captures[row.id] = value as CaptureState;
      else if (row.kind === 'upload') state.uploads[row.id] = value as UploadState;
      else lists.get(row.kind)?.push(value);
    }
    return state;
  }
}

const metaOf = (s: ServiceState): Meta => ({
  version: s.version,
  jwtSecret: s.jwtSecret,
  tokenGeneration: s.tokenGeneration,
  storage: s.storage,
});
