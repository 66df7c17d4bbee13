// The publisher's side of the app's updates (docs/desktop-app.md, "Publishing a signed update";
// docs/decisions/0036-updates-tuf.md): a repository of The Update Framework (TUF, specification 1.0)
// made with @tufjs/models from electron-builder's output. A repository is a plain folder a site
// serves as it is (a web server's folder, a bucket):
//
//   metadata/1.root.json, 2.root.json, …   every root version, each signed by the one before
//   metadata/<n>.targets.json              the installers and channel files, their lengths and hashes
//   metadata/<n>.snapshot.json             the version of targets.json
//   metadata/timestamp.json                the version of snapshot.json; short-lived
//   targets/<sha256>.<file name>           the files themselves (consistent snapshots, so a client
//                                          reading while a release is copied in sees one release)
//
// Every target carries `custom.appId` (the app it is for) and `custom.version`; a channel file
// (`latest.yml`, `latest-mac.yml`, `latest-linux.yml`, `latest-linux-arm64.yml`) also lists its
// installers in `custom.installers`, which is how the app finds them.
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, readFileSync, readdirSync, renameSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { load } from 'js-yaml';
import { Metadata, MetaFile, MetadataKind, Root, Snapshot, TargetFile, Targets, Timestamp } from '@tufjs/models';
// Role is not in the package's index; its module is part of the same pinned version.
import { Role as TufRole } from '@tufjs/models/dist/role.js';
import type { KeySource, Role, SigningKey } from './keys.js';
import { ROLES, findKeys, keyEnvName, newKeyFile, signer } from './keys.js';

/** How long each role's metadata is valid after it is signed (days), by default. */
const DEFAULT_EXPIRY_DAYS: Readonly<Record<Role, number>> = {
  root: 365,
  targets: 365,
  snapshot: 365,
  timestamp: 30,
};

/** The file names electron-builder gives the channel files (electron-updater's Provider, by platform). */
const CHANNEL_FILE = /^latest(-mac|-linux(-[a-z0-9]+)?)?\.yml$/;
/** A name that needs no escaping in a URL or a file system: what a target may be called. */
const PLAIN_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;
const SPEC_VERSION = '1.0.31';
const DAY_MS = 24 * 60 * 60 * 1000;

/** A repository's trusted state as its files say it, each verified against the newest root. */
export interface RepositoryState {
  root: Metadata<Root>;
  targets: Metadata<Targets>;
  snapshot: Metadata<Snapshot>;
  timestamp: Metadata<Timestamp>;
}

/** What every command is told: the repository folder, the keys, the clock. */
export interface RepositoryOptions {
  /** The repository folder (the feed's folder). */
  repo: string;
  /** Where the private keys are (a folder of PEM files, the environment). */
  keys: KeySource;
  /** Validity per role (days), over DEFAULT_EXPIRY_DAYS. */
  expiryDays?: Partial<Record<Role, number>>;
  /** The clock (default: now). */
  now?: () => Date;
}

const metadataDir = (repo: string) => join(repo, 'metadata');

/** TUF's `expires`: ISO 8601 to the second, in UTC. */
const expiresIn = (now: Date, days: number) =>
  new Date(now.getTime() + days * DAY_MS).toISOString().replace(/\.\d{3}Z$/, 'Z');

/** Writes beside and renames into place, so a client never reads half a file. */
function writeAtomic(file: string, data: string | Buffer): void {
  mkdirSync(dirname(file), { recursive: true });
  const partial = `${file}.${process.pid}.partial`;
  writeFileSync(partial, data);
  renameSync(partial, file);
}

const json = (md: Metadata<Root | Targets | Snapshot | Timestamp>) => `${JSON.stringify(md.toJSON(), null, 1)}\n`;

/** The SHA-256 and SHA-512 (hex) and length of bytes, as TUF lists them. */
function fileInfo(data: Buffer): { length: number; hashes: Record<string, string> } {
  return {
    length: data.length,
    hashes: {
      sha256: createHash('sha256').update(data).digest('hex'),
      sha512: createHash('sha512').update(data).digest('hex'),
    },
  };
}

/**
 * Signs `md` for `role` with every key of `keys` the root lists for it (its signatures replaced).
 * Throws Error when fewer than the role's threshold are found, naming where keys are looked for.
 */
function signAs(md: Metadata<Root | Targets | Snapshot | Timestamp>, role: Role, roots: Root[], keys: KeySource): void {
  const found = findKeys(role, keys);
  const listed = new Set(roots.flatMap((r) => r.roles[role]?.keyIDs ?? []));
  const usable = found.filter((k) => listed.has(k.keyId));
  for (const r of roots) {
    const threshold = r.roles[role]!.threshold;
    const have = usable.filter((k) => r.roles[role]!.keyIDs.includes(k.keyId)).length;
    if (have < threshold)
      throw new Error(
        `${role} metadata needs ${threshold} signature(s) of the keys root version ${r.version} lists for it; ${have} of those keys were found` +
          ` (looked in ${keys.dir ? `${keys.dir}/${role}*.pem and ` : ''}${keyEnvName(role)}${found.length > usable.length ? `; ${found.length - usable.length} other key(s) there are not ${role} keys of this repository` : ''}).`,
      );
  }
  md.signatures = {};
  for (const k of usable) md.sign(signer(k));
}

function readJson(file: string): Record<string, unknown> {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
  } catch (err) {
    throw new Error(`${file} cannot be read as JSON: ${(err as Error).message}`);
  }
}

/**
 * Reads the repository in `repo` and checks it as a client would (every root signed by the one
 * before and by itself, the other roles by the newest root's keys, versions and hashes agreeing),
 * so nothing is signed on top of a repository someone changed. Throws Error naming the file and
 * what is wrong; "not a repository" when `metadata/1.root.json` is missing.
 */
export function readRepository(repo: string): RepositoryState {
  const dir = metadataDir(repo);
  if (!existsSync(join(dir, '1.root.json')))
    throw new Error(
      `${repo} is not an update repository (no metadata/1.root.json): make it with "npm run release:sign -- init".`,
    );
  let root = Metadata.fromJSON(MetadataKind.Root, readJson(join(dir, '1.root.json')) as never);
  const check = (what: string, fn: () => void) => {
    try {
      fn();
    } catch (err) {
      throw new Error(
        `${join(dir, what)} does not verify: ${(err as Error).message}. Restore the repository from your copy.`,
      );
    }
  };
  check('1.root.json', () => root.verifyDelegate('root', root));
  for (let v = 2; existsSync(join(dir, `${v}.root.json`)); v++) {
    const next = Metadata.fromJSON(MetadataKind.Root, readJson(join(dir, `${v}.root.json`)) as never);
    check(`${v}.root.json`, () => {
      root.verifyDelegate('root', next);
      next.verifyDelegate('root', next);
      if (next.signed.version !== v) throw new Error(`it says version ${next.signed.version}`);
    });
    root = next;
  }
  const timestamp = Metadata.fromJSON(MetadataKind.Timestamp, readJson(join(dir, 'timestamp.json')) as never);
  check('timestamp.json', () => root.verifyDelegate('timestamp', timestamp));
  const snapName = `${timestamp.signed.snapshotMeta.version}.snapshot.json`;
  const snapBytes = readFileSync(join(dir, snapName));
  const snapshot = Metadata.fromJSON(MetadataKind.Snapshot, JSON.parse(snapBytes.toString('utf8')) as never);
  check(snapName, () => {
    timestamp.signed.snapshotMeta.verify(snapBytes);
    root.verifyDelegate('snapshot', snapshot);
  });
  const targetsMeta = snapshot.signed.meta['targets.json']!;
  const targetsName = `${targetsMeta.version}.targets.json`;
  const targetsBytes = readFileSync(join(dir, targetsName));
  const targets = Metadata.fromJSON(MetadataKind.Targets, JSON.parse(targetsBytes.toString('utf8')) as never);
  check(targetsName, () => {
    targetsMeta.verify(targetsBytes);
    root.verifyDelegate('targets', targets);
  });
  return { root, targets, snapshot, timestamp };
}

/** Writes targets (when given), a snapshot naming it and a timestamp naming that, each signed; the timestamp last. */
function publish(
  o: RepositoryOptions,
  state: RepositoryState,
  what: { targets?: Targets; snapshot?: boolean },
): RepositoryState {
  const now = (o.now ?? (() => new Date()))();
  const days = { ...DEFAULT_EXPIRY_DAYS, ...o.expiryDays };
  const dir = metadataDir(o.repo);
  const roots = [state.root.signed];
  let { targets, snapshot } = state;
  if (what.targets) {
    targets = new Metadata(what.targets);
    signAs(targets, 'targets', roots, o.keys);
    writeAtomic(join(dir, `${targets.signed.version}.targets.json`), json(targets));
  }
  if (what.targets || what.snapshot) {
    const targetsBytes = Buffer.from(json(targets));
    snapshot = new Metadata(
      new Snapshot({
        version: state.snapshot.signed.version + 1,
        specVersion: SPEC_VERSION,
        expires: expiresIn(now, days.snapshot),
        meta: { 'targets.json': new MetaFile({ version: targets.signed.version, ...fileInfo(targetsBytes) }) },
      }),
    );
    // The bytes listed are the bytes written: read back what was written for targets.
    const written = readFileSync(join(dir, `${targets.signed.version}.targets.json`));
    snapshot.signed.meta['targets.json'] = new MetaFile({ version: targets.signed.version, ...fileInfo(written) });
    signAs(snapshot, 'snapshot', roots, o.keys);
    writeAtomic(join(dir, `${snapshot.signed.version}.snapshot.json`), json(snapshot));
  }
  const snapBytes = readFileSync(join(dir, `${snapshot.signed.version}.snapshot.json`));
  const timestamp = new Metadata(
    new Timestamp({
      version: state.timestamp.signed.version + 1,
      specVersion: SPEC_VERSION,
      expires: expiresIn(now, days.timestamp),
      snapshotMeta: new MetaFile({ version: snapshot.signed.version, ...fileInfo(snapBytes) }),
    }),
  );
  signAs(timestamp, 'timestamp', roots, o.keys);
  writeAtomic(join(dir, 'timestamp.json'), json(timestamp));
  return { root: state.root, targets, snapshot, timestamp };
}

/** What {@link initRepository} is told beyond RepositoryOptions. */
export interface InitOptions extends RepositoryOptions {
  /** Where the new private keys are written (made when missing); `keys` must name it as `dir`. */
  keysDir: string;
  /** Signatures each role needs (default 1); as many keys are made for it as its threshold. */
  thresholds?: Partial<Record<Role, number>>;
  /** Also writes the new root here: the copy the app pins (`assets/update-root.json`). */
  appRoot?: string;
}

/**
 * Makes a new, empty repository in `repo`: a key per role and per signature of its threshold
 * (written to `keysDir`, mode 0600), root version 1 signed by the root keys, empty targets, a
 * snapshot and a timestamp. Answers the root's path and the key files. Throws Error when `repo`
 * already holds a repository or a key file would be overwritten.
 */
export function initRepository(o: InitOptions): { root: string; keyFiles: string[] } {
  if (existsSync(join(metadataDir(o.repo), '1.root.json')))
    throw new Error(
      `${o.repo} already holds an update repository; "add" signs a release into it, "rotate" changes its keys.`,
    );
  mkdirSync(o.keysDir, { recursive: true });
  const existing = readdirSync(o.keysDir).filter((n) => ROLES.some((r) => n === `${r}.pem` || n.startsWith(`${r}-`)));
  if (existing.length)
    throw new Error(
      `${o.keysDir} already holds keys (${existing.join(', ')}): choose an empty folder for the new repository's keys.`,
    );
  const now = (o.now ?? (() => new Date()))();
  const days = { ...DEFAULT_EXPIRY_DAYS, ...o.expiryDays };
  const made: Record<Role, SigningKey[]> = { root: [], targets: [], snapshot: [], timestamp: [] };
  const keyFiles: string[] = [];
  for (const role of ROLES)
    for (let i = 0; i < (o.thresholds?.[role] ?? 1); i++) {
      const k = newKeyFile(o.keysDir, role);
      made[role].push(k);
      keyFiles.push(k.file);
    }
  const roles: Record<string, TufRole> = {};
  const listedKeys: Root['keys'] = {};
  for (const role of ROLES) {
    roles[role] = new TufRole({ keyIDs: made[role].map((k) => k.keyId), threshold: o.thresholds?.[role] ?? 1 });
    for (const k of made[role]) listedKeys[k.keyId] = k.key;
  }
  const root = new Root({
    version: 1,
    specVersion: SPEC_VERSION,
    expires: expiresIn(now, days.root),
    consistentSnapshot: true,
    keys: listedKeys,
    roles,
  });
  const rootMd = new Metadata(root);
  const keys = { ...o.keys, dir: o.keysDir };
  signAs(rootMd, 'root', [root], keys);
  const rootFile = join(metadataDir(o.repo), '1.root.json');
  writeAtomic(rootFile, json(rootMd));
  if (o.appRoot) writeAtomic(o.appRoot, json(rootMd));
  const targets = new Targets({
    version: 1,
    specVersion: SPEC_VERSION,
    expires: expiresIn(now, days.targets),
    targets: {},
  });
  // Version 0 of snapshot and timestamp stand for "none yet": publish writes version 1 of each.
  const empty = {
    root: rootMd,
    targets: new Metadata(targets),
    snapshot: new Metadata(
      new Snapshot({ version: 0, specVersion: SPEC_VERSION, expires: expiresIn(now, 1), meta: {} }),
    ),
    timestamp: new Metadata(new Timestamp({ version: 0, specVersion: SPEC_VERSION, expires: expiresIn(now, 1) })),
  };
  publish({ ...o, keys }, empty, { targets });
  return { root: rootFile, keyFiles };
}

/** A channel file of electron-builder's output, as far as signing needs it. */
interface Channel {
  name: string;
  version: string;
  installers: { name: string; sha512: string; size: number }[];
}

/**
 * Reads a channel file (`latest*.yml`) of electron-builder's output: its `version` and every
 * `files` entry's `url`, `sha512` (base64) and `size` (bytes). Throws Error naming the file when
 * it is no YAML or a field is missing.
 */
function readChannelFile(file: string): Channel {
  let doc: unknown;
  try {
    doc = load(readFileSync(file, 'utf8'));
  } catch (err) {
    throw new Error(`${file} cannot be read as YAML: ${(err as Error).message.split('\n')[0]}`);
  }
  const d = (doc ?? {}) as { version?: unknown; files?: unknown };
  if (typeof d.version !== 'string' && typeof d.version !== 'number')
    throw new Error(`${file} names no version: is it electron-builder's channel file?`);
  if (!Array.isArray(d.files) || d.files.length === 0) throw new Error(`${file} lists no files.`);
  const installers = d.files.map((f: { url?: unknown; sha512?: unknown; size?: unknown }) => {
    if (typeof f?.url !== 'string' || typeof f.sha512 !== 'string' || typeof f.size !== 'number')
      throw new Error(`${file}: a "files" entry lacks its url, sha512 or size.`);
    return { name: f.url, sha512: f.sha512, size: f.size };
  });
  return { name: basename(file), version: String(d.version), installers };
}

/**
 * Orders two versions (semver 2.0 precedence: numbers numerically, a pre-release before its
 * release): negative when `a` is older, 0 when equal, positive when newer.
 */
export function compareVersions(a: string, b: string): number {
  const split = (v: string) => {
    const [core = '', pre] = v.replace(/\+.*$/, '').split(/-(.*)/s);
    return { core: core.split('.').map(Number), pre: pre ? pre.split('.') : [] };
  };
  const x = split(a);
  const y = split(b);
  for (let i = 0; i < 3; i++) if ((x.core[i] ?? 0) !== (y.core[i] ?? 0)) return (x.core[i] ?? 0) - (y.core[i] ?? 0);
  if (!x.pre.length || !y.pre.length) return y.pre.length - x.pre.length;
  for (let i = 0; i < Math.max(x.pre.length, y.pre.length); i++) {
    const p = x.pre[i];
    const q = y.pre[i];
    if (p === undefined || q === undefined) return p === undefined ? -1 : 1;
    if (p === q) continue;
    const np = /^\d+$/.test(p);
    const nq = /^\d+$/.test(q);
    if (np && nq) return Number(p) - Number(q);
    if (np !== nq) return np ? -1 : 1;
    return p < q ? -1 : 1;
  }
  return 0;
}

/** What {@link addRelease} is told beyond RepositoryOptions. */
export interface AddOptions extends RepositoryOptions {
  /** electron-builder's output folder (`release/`): its `latest*.yml` and the files they name. */
  from: string;
  /** The app the release is for (electron-builder.yml's `appId`); the app refuses a target for another. */
  appId: string;
}

/**
 * Signs a release into the repository: every channel file in `from` and the installers it names
 * become targets (lengths, SHA-256 and SHA-512; `custom.appId`, `custom.version`), copied into
 * `targets/` under their hash; targets of older releases no channel names any more are dropped
 * from the metadata (their files stay until removed by hand). Needs the targets, snapshot and
 * timestamp keys, never the root's. Answers the version and the target names. Throws Error, and
 * changes no metadata, when a channel file disagrees with the files beside it, a name needs
 * escaping, the version is not newer than one already published on that channel, or a key is
 * missing.
 */
export function addRelease(o: AddOptions): { version: string; targets: string[] } {
  const state = readRepository(o.repo);
  const channels = readdirSync(o.from)
    .filter((n) => CHANNEL_FILE.test(n))
    .sort()
    .map((n) => readChannelFile(join(o.from, n)));
  if (channels.length === 0)
    throw new Error(
      `${o.from} holds no channel file (latest.yml, latest-linux.yml, latest-mac.yml): run "npm run dist" first.`,
    );
  const versions = [...new Set(channels.map((c) => c.version))];
  if (versions.length > 1)
    throw new Error(`${o.from} mixes versions ${versions.join(', ')}: sign one release at a time.`);
  const version = versions[0]!;
  const next = new Targets({
    version: state.targets.signed.version + 1,
    specVersion: SPEC_VERSION,
    expires: expiresIn((o.now ?? (() => new Date()))(), { ...DEFAULT_EXPIRY_DAYS, ...o.expiryDays }.targets),
    targets: { ...state.targets.signed.targets },
  });
  const copies: { from: string; to: string }[] = [];
  const add = (name: string, data: Buffer, custom: Record<string, unknown>) => {
    if (!PLAIN_NAME.test(name))
      throw new Error(
        `${join(o.from, name)}: a file name with spaces or other characters a web address escapes; give electron-builder.yml an artifactName without them.`,
      );
    const info = fileInfo(data);
    next.targets[name] = new TargetFile({ path: name, ...info, unrecognizedFields: { custom: custom as never } });
    copies.push({ from: join(o.from, name), to: join(o.repo, 'targets', `${info.hashes.sha256}.${name}`) });
  };
  for (const c of channels) {
    const published = state.targets.signed.targets[c.name]?.custom.version;
    if (typeof published === 'string' && compareVersions(version, published) <= 0)
      throw new Error(
        `${c.name}: version ${version} is not newer than ${published}, already published; raise "version" in package.json and build again.`,
      );
    for (const f of c.installers) {
      const file = join(o.from, f.name);
      if (!existsSync(file)) throw new Error(`${join(o.from, c.name)} names ${f.name}, which is not in ${o.from}.`);
      const data = readFileSync(file);
      const sha512 = createHash('sha512').update(data).digest('base64');
      if (sha512 !== f.sha512 || data.length !== f.size)
        throw new Error(
          `${join(o.from, c.name)} states a SHA-512 or size for ${f.name} its bytes do not have: build the release again.`,
        );
      add(f.name, data, { appId: o.appId, version });
    }
    add(c.name, readFileSync(join(o.from, c.name)), {
      appId: o.appId,
      version,
      installers: c.installers.map((f) => f.name),
    });
  }
  // Installers of older releases that no channel names any more leave the metadata.
  const named = new Set<string>();
  for (const t of Object.values(next.targets)) {
    const installers = t.custom.installers;
    if (CHANNEL_FILE.test(t.path) && Array.isArray(installers)) {
      named.add(t.path);
      for (const i of installers) named.add(String(i));
    }
  }
  for (const path of Object.keys(next.targets)) if (!named.has(path)) delete next.targets[path];
  // Keys are checked before any file is copied, so a missing key changes nothing.
  signAs(new Metadata(next), 'targets', [state.root.signed], o.keys);
  signAs(new Metadata(next), 'snapshot', [state.root.signed], o.keys);
  signAs(new Metadata(next), 'timestamp', [state.root.signed], o.keys);
  for (const c of copies) {
    mkdirSync(dirname(c.to), { recursive: true });
    if (!existsSync(c.to)) copyFileSync(c.from, c.to);
  }
  publish(o, state, { targets: next });
  return { version, targets: copies.map((c) => basename(c.from)) };
}

/**
 * Signs the timestamp again (and, in `roles`, the snapshot and targets), each with a new version
 * and expiry: what a site runs before the timestamp expires (30 days by default), or clients say
 * the feed is out of date. Needs only the keys of the roles named. Throws Error when one is missing.
 */
export function refreshRepository(
  o: RepositoryOptions & { roles?: ('targets' | 'snapshot' | 'timestamp')[] },
): RepositoryState {
  const state = readRepository(o.repo);
  const roles = new Set(o.roles ?? ['timestamp']);
  const now = (o.now ?? (() => new Date()))();
  const days = { ...DEFAULT_EXPIRY_DAYS, ...o.expiryDays };
  const t = state.targets.signed;
  const targets = roles.has('targets')
    ? new Targets({
        version: t.version + 1,
        specVersion: SPEC_VERSION,
        expires: expiresIn(now, days.targets),
        targets: t.targets,
      })
    : undefined;
  return publish(o, state, { targets, snapshot: roles.has('snapshot') });
}

/** What {@link rotateKeys} is told beyond RepositoryOptions. */
export interface RotateOptions extends RepositoryOptions {
  /** The role whose keys are replaced. */
  role: Role;
  /** Where the new key(s) are written (`<role>-<id>.pem`); `keys` must find them there or in the environment. */
  keysDir: string;
  /** Signatures the role needs from now on (default: as before); as many new keys are made. */
  threshold?: number;
}

/**
 * Replaces `role`'s keys: new keys are made (written to `keysDir`), a new root version lists
 * them in place of the old ones and is signed by the old root's keys (its threshold) and, for a
 * new root key, by the new ones too, so a client trusting the old root accepts it. The role's
 * metadata is then signed again with its new keys (targets, snapshot and timestamp as they depend
 * on each other). Needs the root's keys (kept offline) and, for re-signing, the others'. Answers
 * the new root's version and the new key files; the old key files are left where they are for the
 * person to destroy. Throws Error when a key is missing (the new root is then not written).
 */
export function rotateKeys(o: RotateOptions): { rootVersion: number; keyFiles: string[]; retired: string[] } {
  const state = readRepository(o.repo);
  const old = state.root.signed;
  const now = (o.now ?? (() => new Date()))();
  const days = { ...DEFAULT_EXPIRY_DAYS, ...o.expiryDays };
  const retiredIds = old.roles[o.role]!.keyIDs;
  const threshold = o.threshold ?? old.roles[o.role]!.threshold;
  mkdirSync(o.keysDir, { recursive: true });
  const made = Array.from({ length: threshold }, () => newKeyFile(o.keysDir, o.role));
  const root = new Root({
    version: old.version + 1,
    specVersion: SPEC_VERSION,
    expires: expiresIn(now, days.root),
    consistentSnapshot: old.consistentSnapshot,
    keys: { ...old.keys },
    roles: { ...old.roles, [o.role]: new TufRole({ keyIDs: made.map((k) => k.keyId), threshold }) },
  });
  for (const k of made) root.keys[k.keyId] = k.key;
  // A key no role lists any more leaves the root.
  const inUse = new Set(ROLES.flatMap((r) => root.roles[r]!.keyIDs));
  for (const id of Object.keys(root.keys)) if (!inUse.has(id)) delete root.keys[id];
  const rootMd = new Metadata(root);
  // The new root must satisfy both the old root's threshold (a client's chain) and its own.
  const rootKeys = findKeys('root', { ...o.keys, dir: o.keys.dir ?? o.keysDir });
  const listed = new Set([...old.roles.root!.keyIDs, ...root.roles.root!.keyIDs]);
  for (const r of [old, root]) {
    const have = rootKeys.filter((k) => r.roles.root!.keyIDs.includes(k.keyId)).length;
    if (have < r.roles.root!.threshold)
      throw new Error(
        `The new root must be signed by ${r.roles.root!.threshold} key(s) of root version ${r.version}; ${have} were found (${o.keys.dir ?? o.keysDir}/root*.pem, ${keyEnvName('root')}). The new key file(s) ${made.map((k) => k.file).join(', ')} are not used yet.`,
      );
  }
  for (const k of rootKeys) if (listed.has(k.keyId)) rootMd.sign(signer(k));
  const retired = findKeys(o.role, o.keys)
    .filter((k) => retiredIds.includes(k.keyId))
    .map((k) => k.source);
  writeAtomic(join(metadataDir(o.repo), `${root.version}.root.json`), json(rootMd));
  const rotated = { ...state, root: rootMd };
  const keys = { ...o.keys, dir: o.keys.dir ?? o.keysDir };
  // Whatever the old keys signed is signed again, so the new root's clients accept it.
  if (o.role === 'targets') {
    const t = state.targets.signed;
    publish({ ...o, keys }, rotated, {
      targets: new Targets({
        version: t.version + 1,
        specVersion: SPEC_VERSION,
        expires: expiresIn(now, days.targets),
        targets: t.targets,
      }),
    });
  } else if (o.role === 'snapshot') publish({ ...o, keys }, rotated, { snapshot: true });
  else if (o.role === 'timestamp') publish({ ...o, keys }, rotated, {});
  return { rootVersion: root.version, keyFiles: made.map((k) => k.file), retired };
}
