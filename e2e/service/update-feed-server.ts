import { randomBytes } from 'node:crypto';
import { createReadStream, existsSync, mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { join } from 'node:path';
import { z } from 'zod';
import { writeBuilderOutput } from '../../scripts/release-sign/builder-output.js';
import { addRelease, initRepository, readRepository } from '../../scripts/release-sign/repository.js';
import type { Router } from './http-router.js';
import { HttpError, readJsonBody, sendJson } from './http-router.js';

// The update feed: a repository of The Update Framework as the publisher's own tool makes it
// (`npm run release:sign`, scripts/release-sign/), served as a site serves one, a plain folder:
// `metadata/` (root versions, timestamp, snapshot, targets) and `targets/` (the installers and
// channel files under their SHA-256). The service signs with keys of its own, made at its first
// start and kept in its data folder (`update-keys/`); the root the app must pin to read this feed
// is `info.updatesRoot`. Tests play the attacker by writing into the folder (a feed anyone can
// write) or with the feed's faults below (a feed, mirror or link that misbehaves).

/** The app the service's releases are for unless told otherwise (electron-builder.yml `appId`). */
const APP_ID = 'com.captureuploader.desktop';
const SAFE_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;
const updatesFail = (message: string) => ({ success: false, message });

/** The repository folder the feed serves, in the service's data folder. */
export const updateRepoDir = (dataDir: string) => join(dataDir, 'updates');
/** The feed's private keys (the publisher's, here the service's own). */
export const updateKeysDir = (dataDir: string) => join(dataDir, 'update-keys');

/**
 * Makes the service's repository and keys when its data folder has none yet (`release:sign init`
 * with one key per role). Answers the path of root version 1, what the app pins to read the feed.
 */
export function ensureUpdateRepository(dataDir: string): string {
  const repo = updateRepoDir(dataDir);
  const root = join(repo, 'metadata', '1.root.json');
  if (!existsSync(root))
    initRepository({ repo, keys: { dir: updateKeysDir(dataDir) }, keysDir: updateKeysDir(dataDir) });
  return root;
}

/** A release to publish: an installer's bytes under `fileName`; `appId` another app's (wrong software). */
interface UpdateRelease {
  version: string;
  fileName: string;
  content: Buffer;
  appId?: string;
}

/** What a published installer is in the signed targets: its name, length (bytes) and hashes (hex). */
export interface PublishedTarget {
  version: string;
  path: string;
  length: number;
  sha256: string;
  sha512: string;
}

/**
 * Publishes a release as a publisher does: electron-builder's output (the installer and every
 * platform's channel file naming it) is written to a folder of its own, then signed into the
 * repository (`release:sign add`). Answers the installer's signed target. Throws Error when a
 * name is not a plain file name, or what addRelease throws (an older version, for one).
 */
function publishRelease(dataDir: string, release: UpdateRelease): PublishedTarget {
  if (!SAFE_NAME.test(release.fileName)) throw new Error(`Not a plain file name: ${release.fileName}`);
  ensureUpdateRepository(dataDir);
  mkdirSync(join(dataDir, 'update-releases'), { recursive: true });
  const out = mkdtempSync(join(dataDir, 'update-releases', `${release.version}-`));
  try {
    writeBuilderOutput(out, {
      version: release.version,
      files: [{ name: release.fileName, content: release.content }],
    });
    const repo = updateRepoDir(dataDir);
    addRelease({ repo, from: out, keys: { dir: updateKeysDir(dataDir) }, appId: release.appId ?? APP_ID });
    const t = readRepository(repo).targets.signed.targets[release.fileName]!;
    return {
      version: release.version,
      path: t.path,
      length: t.length,
      sha256: t.hashes.sha256!,
      sha512: t.hashes.sha512!,
    };
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}

const feedFault = z.object({
  /** Which files (a regular expression over `metadata/timestamp.json`, `targets/<hash>.<name>`). */
  match: z.string().min(1),
  action: z.discriminatedUnion('type', [
    /** Takes the request and never answers (until cleared or the service stops). */
    z.object({ type: z.literal('hang') }),
    /** Answers 200 and sends the body at `bytesPerSecond`. */
    z.object({ type: z.literal('trickle'), bytesPerSecond: z.number().positive() }),
    /** Answers `status` (default 302) to `to` + the path asked for: a mirror elsewhere, or plain http. */
    z.object({
      type: z.literal('redirect'),
      to: z.string().url(),
      status: z.number().int().min(300).max(399).optional(),
    }),
    /** Sends the file, then random bytes until `bytes` in all: a body past its length (endless data). */
    z.object({ type: z.literal('extend'), bytes: z.number().int().positive() }),
  ]),
});
/** One misbehaviour of the feed (docs/local-service.md, "The update feed"). */
export type FeedFault = z.infer<typeof feedFault>;

/** One request the feed answered: the path after `/updates/`, and the body bytes it wrote before the answer ended or the client left. */
export interface FeedRequest {
  path: string;
  bytesSent: number;
}

/** The feed's misbehaviours in force and the requests it saw, shared by its routes and its admin routes. */
export class FeedFaults {
  rules: FeedFault[] = [];
  readonly requests: FeedRequest[] = [];
  /** The fault for `path`, if any. */
  take(path: string): FeedFault | undefined {
    return this.rules.find((r) => new RegExp(r.match).test(path));
  }
}

/** Writes `file` to `res` through the fault's behaviour (none: the file as it is), counting the bytes in `seen`. */
function sendFile(
  res: ServerResponse,
  file: string,
  size: number,
  fault: FeedFault | undefined,
  seen: FeedRequest,
): void {
  const action = fault?.action;
  const type = file.endsWith('.json') ? 'application/json' : 'application/octet-stream';
  const count = (chunk: Buffer) => (seen.bytesSent += chunk.length);
  if (action?.type === 'trickle') {
    res.writeHead(200, { 'content-type': type, 'content-length': size });
    const stream = createReadStream(file, { highWaterMark: 64 * 1024 });
    const step = Math.max(1, Math.floor(action.bytesPerSecond / 10));
    let pending = Buffer.alloc(0);
    let ended = false;
    stream.on('data', (d) => {
      pending = Buffer.concat([pending, d as Buffer]);
      stream.pause();
    });
    stream.on('end', () => (ended = true));
    const t = setInterval(() => {
      if (pending.length === 0) {
        if (ended) {
          clearInterval(t);
          res.end();
        } else stream.resume();
        return;
      }
      const chunk = pending.subarray(0, step);
      pending = pending.subarray(step);
      count(chunk);
      res.write(chunk);
    }, 100);
    res.on('close', () => {
      clearInterval(t);
      stream.destroy();
    });
    return;
  }
  if (action?.type === 'extend') {
    // No length header: the body simply goes on, as an endless one would.
    res.writeHead(200, { 'content-type': type });
    const noise = randomBytes(1024 * 1024);
    const stream = createReadStream(file);
    stream.on('data', (d) => count(d as Buffer));
    stream.pipe(res, { end: false });
    stream.on('end', () => {
      const more = () => {
        while (seen.bytesSent < action.bytes && !res.destroyed) {
          const chunk = noise.subarray(0, Math.min(noise.length, action.bytes - seen.bytesSent));
          count(chunk);
          if (!res.write(chunk)) return void res.once('drain', more);
        }
        if (!res.destroyed) res.end();
      };
      more();
    });
    res.on('close', () => stream.destroy());
    return;
  }
  res.writeHead(200, { 'content-type': type, 'content-length': size });
  const stream = createReadStream(file);
  stream.on('data', (d) => count(d as Buffer));
  stream.pipe(res);
}

/**
 * Serves the repository in `repo`: `GET /metadata/:name` and `GET /targets/:name` answer the file,
 * 404 when absent, each through the feed's fault for it (FeedFaults) and recorded in its requests.
 */
export function updateRoutes(router: Router, repo: string, faults: FeedFaults): void {
  for (const folder of ['metadata', 'targets'])
    router.add('GET', `/${folder}/:name`, 'updates', (ctx) => {
      const name = ctx.params.name!;
      const path = `${folder}/${name}`;
      const seen: FeedRequest = { path, bytesSent: 0 };
      faults.requests.push(seen);
      const fault = faults.take(path);
      if (fault?.action.type === 'hang') return new Promise<void>((resolve) => ctx.res.on('close', resolve));
      if (fault?.action.type === 'redirect') {
        ctx.res.writeHead(fault.action.status ?? 302, { location: `${fault.action.to.replace(/\/+$/, '')}/${path}` });
        ctx.res.end();
        return;
      }
      const file = join(repo, folder, name);
      let size: number;
      try {
        if (!SAFE_NAME.test(name)) throw new Error('unsafe');
        size = statSync(file).size;
      } catch {
        throw new HttpError(404, updatesFail('Not found'));
      }
      sendFile(ctx.res, file, size, fault, seen);
    });
}

const publishSchema = z.object({
  version: z.string().min(1),
  fileName: z.string().regex(SAFE_NAME),
  contentBase64: z.string(),
  appId: z.string().min(1).optional(),
});

/**
 * The admin side of the feed:
 * - `POST /updates` `{ version, fileName, contentBase64, appId? }` publishes a release
 *   ({@link publishRelease}) and answers its signed target (201), 409 when the repository refuses it;
 * - `PUT /updates/faults` `{ rules: FeedFault[] }` sets the feed's misbehaviours (`[]` clears them);
 * - `GET /updates/requests` answers the requests the feed saw, oldest first.
 */
export function updateAdminRoutes(router: Router, dataDir: string, faults: FeedFaults): void {
  router.add('POST', '/updates', 'admin', async (ctx) => {
    const parsed = publishSchema.safeParse(await readJsonBody(ctx.req, updatesFail, 64 * 1024 * 1024));
    if (!parsed.success)
      throw new HttpError(
        400,
        updatesFail(parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')),
      );
    const { contentBase64, ...rest } = parsed.data;
    let published: PublishedTarget;
    try {
      published = publishRelease(dataDir, { ...rest, content: Buffer.from(contentBase64, 'base64') });
    } catch (err) {
      throw new HttpError(409, updatesFail((err as Error).message));
    }
    sendJson(ctx.res, 201, published);
  });
  router.add('PUT', '/updates/faults', 'admin', async (ctx) => {
    const parsed = z.object({ rules: z.array(feedFault) }).safeParse(await readJsonBody(ctx.req, updatesFail));
    if (!parsed.success)
      throw new HttpError(
        400,
        updatesFail(parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')),
      );
    faults.rules = parsed.data.rules;
    sendJson(ctx.res, 200, { rules: faults.rules });
  });
  router.add('GET', '/updates/requests', 'admin', (ctx) => sendJson(ctx.res, 200, { requests: faults.requests }));
}
