import { mkdirSync } from 'node:fs';
import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { adminRoutes } from './admin.js';
import type { FaultTarget } from './faults.js';
import { FaultRegistry } from './faults.js';
import { findAccount, issueToken } from './gateway/auth.js';
import { captureRoutes } from './gateway/captures.js';
import type { GatewayDeps } from './gateway/gateway-deps.js';
import { fail } from './gateway/gateway-deps.js';
import { folderRoutes } from './gateway/folders.js';
import type { S3StorageSettings } from './gateway/object-storage.js';
import { SdkObjectStorage } from './gateway/object-storage.js';
import { StateStore } from './gateway/state.js';
import { uploadRoutes } from './gateway/uploads.js';
import { HttpError, Router, readJsonBody, sendJson, sleep } from './http-router.js';
import { progressFail, progressRoutes } from './progress/routes.js';
import { refuseBodilessJson, refuseStatusRead, sendHtmlPage } from './realism.js';
import { createStorageHandler } from './storage/server.js';
import { DiskStore } from './storage/disk-store.js';
import {
  FeedFaults,
  ensureUpdateRepository,
  updateAdminRoutes,
  updateRepoDir,
  updateRoutes,
} from './update-feed-server.js';

/** Start options of the local service. Ports 0 pick free ones. */
export interface LocalServiceOptions {
  /** Folder for the state and the stored objects; kept across restarts. */
  dataDir: string;
  /** Port of the API listener (sign-in, gateway, progress, admin). Default 0. */
  port?: number;
  /** Port of the storage listener (unused with `s3`). Default 0. */
  storagePort?: number;
  /** Part size in bytes for new uploads; at least 5 MiB (S3's minimum). Default 5242880. */
  partSize?: number;
  /**
   * Keep the files in this S3-compatible storage instead of the built-in one. The
   * bucket must exist; start fails when HeadBucket does not answer 200. The built-in storage
   * listener is then not started: storage faults, the bandwidth setting and `storage.stats` see
   * nothing, and `info.s3` describes this storage.
   */
  s3?: S3StorageSettings;
}

/**
 * What the service prints on its ready line, and everything a client needs to use it: the same
 * settings a real service is used with, and the project's structures and designs, whose ids and
 * names a real project gives out of band. Clients use this, never the service's state.
 */
export interface LocalServiceInfo {
  baseUrl: string;
  authUrl: string;
  progressBaseUrl: string;
  adminUrl: string;
  /**
   * The update feed: a repository of The Update Framework (`metadata/`, `targets/`) made with
   * `release:sign` (update-feed-server.ts); releases are published through the admin interface's
   * `POST /updates`.
   */
  updatesUrl: string;
  /** The path of the feed's root metadata (version 1): what an app must pin to trust the feed. */
  updatesRoot: string;
  apiKey: string;
  projectId: string;
  /** Structure ids of the project, in seed order. */
  structures: string[];
  /** Design ids of all those structures. */
  designs: string[];
  /** The project's name, as its people call it (the interfaces give none; a real project hands it out of band, as the structures' names). */
  projectName: string;
  /** The structures with their names and designs (id and name). */
  namedStructures: { id: string; name: string; designs: { id: string; name: string }[] }[];
  account: { email: string; password: string };
  s3: { endpoint: string; region: string; bucket: string; accessKeyId: string; secretAccessKey: string };
}

/** A running local service. `close()` stops both listeners and drops open connections. */
export interface LocalService {
  info: LocalServiceInfo;
  store: StateStore;
  faults: FaultRegistry;
  /** The built-in storage; idle (nothing listens, its stats stay 0) when the service runs over `s3`. */
  storage: DiskStore;
  close(): Promise<void>;
}

const HOST = '127.0.0.1';

async function listen(server: Server, port: number): Promise<number> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, HOST, () => resolve());
  });
  return (server.address() as AddressInfo).port;
}

interface Mount {
  prefix: string;
  /** Which fault rules apply; the admin interface and the update feed take none. */
  target: FaultTarget | 'admin' | 'updates';
  router: Router;
  errorBody: (message: string) => Record<string, unknown>;
}

/**
 * Starts the local stand-in for the services of `shared/spec/`: one API listener serving the
 * sign-in service at `/auth`, the capture gateway at `/gateway`, the progress interface at
 * `/records`, the admin interface at `/__admin` and an update feed at `/updates` (update-feed-server.ts),
 * and one S3-compatible storage listener.
 * Throws when a port is taken or the data folder cannot be written.
 */
export async function startLocalService(opts: LocalServiceOptions): Promise<LocalService> {
  mkdirSync(opts.dataDir, { recursive: true });
  const store = new StateStore(opts.dataDir);
  const faults = new FaultRegistry();
  const storage = new DiskStore(join(opts.dataDir, 'storage'));
  const st = store.state.storage;
  await storage.init([st.bucket]);

  // No limit on a request's whole duration (Node's default cuts it at 300 s): real S3 only ends a
  // connection that moves nothing, and a 5 MiB part at 8 KiB/s takes 640 s.
  const storageServer = opts.s3
    ? undefined
    : createServer({ requestTimeout: 0 }, createStorageHandler({ store: storage, credentials: st, faults }));
  const apiServer = createServer();
  const servers = storageServer ? [apiServer, storageServer] : [apiServer];
  const builtIn = storageServer && {
    endpoint: `http://${HOST}:${await listen(storageServer, opts.storagePort ?? 0)}`,
    region: st.region,
    bucket: st.bucket,
    accessKeyId: st.accessKeyId,
    secretAccessKey: st.secretAccessKey,
  };
  const s3Settings: S3StorageSettings = opts.s3 ?? builtIn!;
  // The gateway reaches the built-in storage the way it reaches any other: through the SDK.
  const objects = new SdkObjectStorage(s3Settings);
  try {
    if (opts.s3) await objects.checkBucket();
  } catch (err) {
    objects.destroy();
    store.close();
    throw err;
  }
  const apiPort = await listen(apiServer, opts.port ?? 0);
  const origin = `http://${HOST}:${apiPort}`;

  const partSize = Math.max(opts.partSize ?? 5 * 1024 * 1024, 5 * 1024 * 1024);
  const deps: GatewayDeps = { store, faults, storage: objects, baseUrl: `${origin}/gateway`, partSize };

  const auth = new Router().add('POST', '/api/v1/users/signin', 'signin', async (ctx) => {
    const body = (await readJsonBody(ctx.req, fail)) as { email?: unknown; password?: unknown } | undefined;
    if (typeof body?.email !== 'string' || typeof body.password !== 'string')
      throw new HttpError(400, fail('email and password are required'));
    const account = findAccount(store, body.email, body.password);
    if (!account) throw new HttpError(401, fail('Invalid email or password'));
    sendJson(ctx.res, 200, { token: await issueToken(store, account, faults.settings.tokenTtlSeconds) });
  });
  const gateway = new Router();
  folderRoutes(gateway, deps);
  captureRoutes(gateway, deps);
  uploadRoutes(gateway, deps);
  const progress = new Router();
  progressRoutes(progress, { store, faults });
  const admin = new Router();
  adminRoutes(admin, { store, faults, storageStats: () => ({ ...storage.stats }) });
  const updatesRoot = ensureUpdateRepository(opts.dataDir);
  const feedFaults = new FeedFaults();
  updateAdminRoutes(admin, opts.dataDir, feedFaults);
  const updates = new Router();
  updateRoutes(updates, updateRepoDir(opts.dataDir), feedFaults);

  const mounts: Mount[] = [
    { prefix: '/auth', target: 'auth', router: auth, errorBody: fail },
    { prefix: '/gateway', target: 'gateway', router: gateway, errorBody: fail },
    { prefix: '/records', target: 'progress', router: progress, errorBody: progressFail },
    { prefix: '/__admin', target: 'admin', router: admin, errorBody: fail },
    { prefix: '/updates', target: 'updates', router: updates, errorBody: fail },
  ];
  apiServer.on('request', (req: IncomingMessage, res: ServerResponse) => {
    void dispatch(mounts, faults, req, res, origin);
  });

  const project = store.state.projects[0]!;
  const operator = store.state.accounts[0]!;
  const info: LocalServiceInfo = {
    baseUrl: `${origin}/gateway`,
    authUrl: `${origin}/auth`,
    progressBaseUrl: `${origin}/records`,
    adminUrl: `${origin}/__admin`,
    updatesUrl: `${origin}/updates`,
    updatesRoot,
    apiKey: project.apiKey,
    projectId: project.id,
    projectName: project.name,
    structures: project.structures.map((s) => s.id),
    designs: project.structures.flatMap((s) => s.designs.map((d) => d.id)),
    namedStructures: project.structures.map((s) => ({
      id: s.id,
      name: s.name,
      designs: s.designs.map((d) => ({ id: d.id, name: d.name })),
    })),
    account: { email: operator.email, password: operator.password },
    s3: { ...s3Settings },
  };

  const close = async () => {
    for (const server of servers) {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    }
    objects.destroy();
    store.close();
  };
  return { info, store, faults, storage, close };
}

async function dispatch(
  mounts: Mount[],
  faults: FaultRegistry,
  req: IncomingMessage,
  res: ServerResponse,
  origin: string,
): Promise<void> {
  const url = new URL(req.url ?? '/', origin);
  const mount = mounts.find((m) => url.pathname === m.prefix || url.pathname.startsWith(`${m.prefix}/`));
  const errorBody = mount?.errorBody ?? fail;
  try {
    if (!mount) throw new HttpError(404, fail('Not found'));
    const path = url.pathname.slice(mount.prefix.length) || '/';
    const found = mount.router.match(req.method ?? 'GET', path);
    if (!found) throw new HttpError(404, errorBody('Not found'));
    if ('methodMismatch' in found) throw new HttpError(405, errorBody('Method not allowed'));
    if (mount.target !== 'admin' && mount.target !== 'updates') {
      refuseStatusRead(faults, mount.target, found.route.operation);
      refuseBodilessJson(faults, mount.target, found.route.operation, req);
      if (faults.settings.latencyMs) await sleep(faults.settings.latencyMs);
      const facts = { target: mount.target, operation: found.route.operation, method: req.method ?? 'GET' };
      let fault = faults.take(facts);
      if (fault?.type === 'latency') await sleep(fault.ms);
      if (fault?.type === 'hang') {
        // Cleared before the client gave up, the link is back: the request goes on.
        if (!(await faults.hold(req, facts))) return;
        fault = undefined;
      }
      if (fault?.type === 'reset') {
        req.socket.destroy();
        return;
      }
      if (fault?.type === 'status') {
        if (fault.retryAfter !== undefined) res.setHeader('retry-after', fault.retryAfter);
        throw new HttpError(fault.status, errorBody('Internal Server Error'));
      }
      if (fault?.type === 'html') return sendHtmlPage(res, fault.status);
      if (fault?.type === 'trickle') {
        const answer =
          fault.body === 'answer'
            ? await captureAnswer(res, () => found.route.handler({ req, res, url, params: found.params }))
            : undefined;
        return trickleAnswer(req, res, faults, fault.everyMs, answer);
      }
      if (fault?.type === 'json') return sendJson(res, fault.status, fault.body);
      if (fault?.type === 'statusAfterActing') {
        // The handler does its work (a capture is registered), but its answer is replaced by the error.
        const { writeHead, end } = res;
        res.writeHead = (() => res) as unknown as typeof res.writeHead;
        res.end = (() => res) as unknown as typeof res.end;
        await Promise.resolve(found.route.handler({ req, res, url, params: found.params })).catch(() => undefined);
        res.writeHead = writeHead;
        res.end = end;
        throw new HttpError(
          fault.status,
          errorBody(fault.status >= 500 ? 'Internal Server Error' : 'Too Many Requests'),
        );
      }
      if (fault?.type === 'omitFields') {
        // The handler does its work; its JSON answer goes out without the named fields.
        const answer = await captureAnswer(res, () => found.route.handler({ req, res, url, params: found.params }));
        let body: unknown;
        try {
          body = JSON.parse(answer.body);
        } catch {
          return sendJson(res, answer.status, answer.body);
        }
        for (const path of fault.paths) omitPath(body, path.split('.'));
        return sendJson(res, answer.status, body);
      }
      if (fault?.type === 'slowBody')
        throttleAnswer(res, fault.bytesPerSecond, Math.max(1, Math.min(1024, fault.bytesPerSecond)));
      else if (faults.settings.jsonBytesPerSecond && mount.target !== 'progress')
        throttleAnswer(res, faults.settings.jsonBytesPerSecond);
      if (fault?.type === 'emptyAfterActing') {
        // The handler does its work; its answer is replaced by an empty one.
        await captureAnswer(res, () => found.route.handler({ req, res, url, params: found.params }));
        res.writeHead(
          fault.status,
          fault.status === 204 ? {} : { 'content-type': 'application/json; charset=utf-8', 'content-length': 0 },
        );
        res.end();
        return;
      }
      if (fault?.type === 'badParts' || fault?.type === 'hostileIds') {
        await found.route.handler({ req, res, url, params: found.params, fault });
        return;
      }
      if (fault?.type === 'dropResponse') {
        // The handler does its work, but what it writes goes nowhere; then the connection drops.
        res.writeHead = (() => res) as unknown as typeof res.writeHead;
        res.end = (() => res) as unknown as typeof res.end;
        await Promise.resolve(found.route.handler({ req, res, url, params: found.params })).catch(() => undefined);
        await sleep(fault.afterMs);
        req.socket.destroy();
        return;
      }
    }
    await found.route.handler({ req, res, url, params: found.params });
  } catch (err) {
    if (res.headersSent) return void res.destroy();
    // The client went away in the middle of its request (a reset, a timeout): no one to answer, nothing unexpected.
    if (req.destroyed && (err as NodeJS.ErrnoException | null)?.code === 'ECONNRESET') return void res.destroy();
    if (err instanceof HttpError) return sendJson(res, err.status, err.body);
    // The gateway reaches storage through the SDK; a storage failure is the gateway's 502.
    const fromStorage = typeof err === 'object' && err !== null && '$metadata' in err;
    if (!fromStorage) console.error('capture-service: unexpected error', err);
    sendJson(
      res,
      fromStorage ? 502 : 500,
      errorBody(fromStorage ? 'Storage is unavailable; try again' : 'Internal Server Error'),
    );
  }
}

/**
 * Runs a handler with its answer held back: resolves with the status and the body it wrote
 * (as text), nothing of it sent. A handler that throws rejects as it would.
 */
async function captureAnswer(
  res: ServerResponse,
  run: () => Promise<void> | void,
): Promise<{ status: number; body: string }> {
  const { writeHead, end } = res;
  let status = 200;
  let body = '';
  res.writeHead = ((code: number) => {
    status = code;
    return res;
  }) as unknown as typeof res.writeHead;
  res.end = ((chunk?: unknown) => {
    if (chunk !== undefined && typeof chunk !== 'function')
      body += Buffer.isBuffer(chunk) ? chunk.toString('utf8') : String(chunk);
    return res;
  }) as unknown as typeof res.end;
  try {
    await run();
  } finally {
    res.writeHead = writeHead;
    res.end = end;
  }
  return { status, body };
}

/** Deletes the field at `path` (`*`: every element of an array) from a parsed JSON value, where it is. */
function omitPath(value: unknown, path: string[]): void {
  const [head, ...rest] = path;
  if (head === undefined || typeof value !== 'object' || value === null) return;
  if (head === '*') {
    if (Array.isArray(value)) for (const e of value) omitPath(e, rest);
    return;
  }
  const obj = value as Record<string, unknown>;
  if (rest.length === 0) delete obj[head];
  else omitPath(obj[head], rest);
}

/**
 * Sends an answer that trickles (the `trickle` fault): its status and headers at once, then its
 * body (`answer`; without one, a 200 whose body is spaces for ever) one byte every `everyMs`, until
 * the body is out, the client closes the connection, or the rules are cleared (closed then).
 */
function trickleAnswer(
  req: IncomingMessage,
  res: ServerResponse,
  faults: FaultRegistry,
  everyMs: number,
  answer: { status: number; body: string } | undefined,
): void {
  const bytes = answer ? Buffer.from(answer.body) : undefined;
  res.writeHead(answer?.status ?? 200, {
    'content-type': 'application/json; charset=utf-8',
    ...(bytes ? { 'content-length': bytes.length } : {}),
  });
  let at = 0;
  const timer = setInterval(() => {
    if (res.destroyed) return stop();
    if (!bytes) return void res.write(' ');
    res.write(bytes.subarray(at, at + 1));
    if (++at >= bytes.length) {
      stop();
      res.end();
    }
  }, everyMs);
  const forget = faults.trickle(() => {
    stop();
    req.socket.destroy();
  });
  function stop() {
    clearInterval(timer);
    forget();
  }
  res.once('close', stop);
}

/**
 * Makes this answer's body go out at most `bytesPerSecond`, in slices of `slice` bytes (default
 * 1 KiB): a slow downlink. The headers go at once; a client that closes the connection stops the rest.
 */
function throttleAnswer(res: ServerResponse, bytesPerSecond: number, slice = 1024): void {
  const end = res.end.bind(res);
  res.end = ((chunk?: unknown) => {
    const bytes =
      chunk === undefined || typeof chunk === 'function'
        ? Buffer.alloc(0)
        : Buffer.isBuffer(chunk)
          ? chunk
          : Buffer.from(String(chunk));
    void (async () => {
      const started = Date.now();
      for (let at = 0; at < bytes.length; at += slice) {
        if (res.destroyed) return;
        // Each slice leaves when the bytes before it fit under the rate.
        const due = started + (at / bytesPerSecond) * 1000;
        if (due > Date.now()) await sleep(due - Date.now());
        if (res.destroyed) return;
        res.write(bytes.subarray(at, at + slice));
      }
      end();
    })();
    return res;
  }) as unknown as typeof res.end;
}
