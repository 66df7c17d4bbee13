import { GetObjectCommand } from '@aws-sdk/client-s3';
import type { ChildProcess } from 'node:child_process';
import { spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import {
  chmodSync,
  closeSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readFileSync,
  rmSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, beforeEach, vi } from 'vitest';
import type { FaultRuleInput, TestService } from '../../e2e/service/testing.js';
import { startTestService, uploaderEnv } from '../../e2e/service/testing.js';
import { recommendedRetryPolicy } from '../api/errors.js';
import { openQueueDatabase } from '../queue/db.js';
import { UploadQueue } from '../queue/queue.js';
import type { CaptureRequest, GatewayConfig } from '../api/gateway.js';
import { CaptureGateway } from '../api/gateway.js';
import type { Uploader, UploaderOptions } from '../service/uploader.js';
import { openUploader } from '../service/uploader.js';

/**
 * The shared test kit: a temporary queue, files on disk of given sizes with their
 * SHA-256, the local service (e2e/service, the stand-in for the gateway and S3) started the one
 * way tests start it, uploaders pointed at it, and what storage holds read back with its hash.
 * Test code only: nothing the app runs imports it.
 */

/** One mebibyte (bytes). */
export const MiB = 1024 * 1024;

/** The SHA-256 of some bytes, lower-case hex. */
export const sha256 = (bytes: Buffer | Uint8Array): string => createHash('sha256').update(bytes).digest('hex');

/** The SHA-256 of the bytes of the file at `path`, lower-case hex. Throws what readFileSync throws. */
export const fileSha256 = (path: string): string => sha256(readFileSync(path));

/** A file the kit wrote: its path, size (bytes), SHA-256 (hex) and the bytes themselves. */
interface DiskFile {
  path: string;
  size: number;
  sha256: string;
  bytes: Buffer;
}

/** A fresh temporary folder whose name starts with `prefix`; `remove()` deletes it with what it holds. */
export function tempDir(prefix: string): { dir: string; remove(): void } {
  const dir = mkdtempSync(join(tmpdir(), `${prefix}-`));
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/**
 * A temporary folder for one test file whose name starts with `prefix`: made now, deleted with what
 * it holds after the file's tests (an `afterAll` hook this call registers; call it at the top level).
 * Returns its absolute path.
 */
export function useWorkDir(prefix: string): string {
  const t = tempDir(prefix);
  afterAll(() => t.remove());
  return t.dir;
}

/**
 * Writes `bytes` over the file at `path` from byte `offset` in place (same inode; its size grows
 * only when written past its end), as `dd conv=notrunc` does. Its modification time moves.
 */
export function overwriteAt(path: string, offset: number, bytes: Buffer): void {
  const fd = openSync(path, 'r+');
  try {
    writeSync(fd, bytes, 0, bytes.length, offset);
  } finally {
    closeSync(fd);
  }
}

/** Sets the mode of the file at `path` to 0600 and back to 0644: its status-change time moves, its bytes and mtime do not. */
export function chmodAndBack(path: string): void {
  chmodSync(path, 0o600);
  chmodSync(path, 0o644);
}

/** Writes `size` random bytes to `dir/name` (folders made as needed) and returns the file with its hash. */
function diskFile(dir: string, name: string, size: number): DiskFile {
  const path = join(dir, name);
  mkdirSync(join(path, '..'), { recursive: true });
  const bytes = randomBytes(size);
  writeFileSync(path, bytes);
  return { path, size, sha256: sha256(bytes), bytes };
}

/** A queue database of its own in a temporary folder, migrated to the current version; `close()` closes and deletes it. */
export function tempQueue(prefix = 'kit-queue'): { queue: UploadQueue; dir: string; close(): void } {
  const t = tempDir(prefix);
  const queue = new UploadQueue(openQueueDatabase(join(t.dir, 'queue.db')).db);
  return {
    queue,
    dir: t.dir,
    close() {
      queue.db.close();
      t.remove();
    },
  };
}

/**
 * Registers the hooks that give each test of a file (or a describe block) a fresh tempQueue named
 * after `prefix`, opened in `beforeEach` and closed and deleted in `afterEach`; `onOpen` is handed
 * each test's queue as it opens. The returned object's `queue` and `dir` are the current test's.
 */
export function useTempQueue(
  prefix: string,
  onOpen: (queue: UploadQueue) => void = () => {},
): { readonly queue: UploadQueue; readonly dir: string } {
  let t: ReturnType<typeof tempQueue> | undefined;
  beforeEach(() => {
    t = tempQueue(prefix);
    onOpen(t.queue);
  });
  afterEach(() => t?.close());
  const current = () => {
    if (!t) throw new Error('the temporary queue is used before its beforeEach ran');
    return t;
  };
  return {
    get queue() {
      return current().queue;
    },
    get dir() {
      return current().dir;
    },
  };
}

/**
 * A gateway client pointed at a loopback port nothing listens at (127.0.0.1:9, discard): for an
 * engine over a queue whose tests must send nothing; a file that started would fail or wait for a
 * retry, never complete.
 */
export function unreachableGateway(): CaptureGateway {
  return new CaptureGateway(unreachableGatewayConfig());
}

/**
 * The gateway settings of project `projectId` at a loopback port nothing listens at
 * (127.0.0.1:9, discard; see unreachableGateway): for an uploader opened over a queue whose tests
 * must reach no service.
 */
export function unreachableGatewayConfig(projectId = 'p'): GatewayConfig {
  const nowhere = 'http://127.0.0.1:9';
  return { baseUrl: nowhere, authUrl: nowhere, apiKey: 'k', projectId, email: 'a@b.c', password: 'x' };
}

/**
 * A §4.4 capture registration request for a queue row written by a test: project `p1`, structure
 * `s1`, an interior 360 Video from the bot, taken at `captureDateTime` (ISO 8601), with `files`.
 */
export function captureRequest(captureDateTime: string, files: CaptureRequest['files']): CaptureRequest {
  return {
    project: 'p1',
    structure: 's1',
    captureDateTime,
    type: 'interior',
    mode: '360 Video',
    sourceType: 'bot',
    files,
  };
}

/**
 * The settings record (SettingsRepository's `settings` key) of an app set to the local test
 * service, with `extra` over it (e.g. `concurrency`, `pausedUntil`).
 */
export function localSettings(extra: Record<string, unknown> = {}): Record<string, unknown> {
  const empty = { baseUrl: '', authUrl: '', progressBaseUrl: '', projectId: '', email: '' };
  return { mode: 'local', ...empty, concurrency: 2, structures: [], ...extra };
}

/** Everything `fn` writes to stdout while it runs (a CLI command's printout), kept from the terminal. */
export function stdoutOf(fn: () => void): string {
  const chunks: string[] = [];
  const spy = vi.spyOn(process.stdout, 'write').mockImplementation((c) => (chunks.push(String(c)), true));
  try {
    fn();
  } finally {
    spy.mockRestore();
  }
  return chunks.join('');
}

/** What storage holds for one object: its bytes and their SHA-256 (hex). */
export interface StoredObject {
  bytes: Buffer;
  sha256: string;
}

/**
 * A running local service with a work folder, for one test file. `uploader(name)` opens an
 * uploader on its own queue folder with short retries (20 ms × 2^n, durable schedule a minute,
 * a part in doubt asked about for 1 s, unless `extra` says otherwise); `reset()` closes the uploaders and clears faults and settings
 * (call it in afterEach); `stop()` stops the service and deletes the work folder (afterAll).
 */
export interface ServiceKit {
  svc: TestService;
  work: string;
  uploader(name: string, extra?: Partial<UploaderOptions>): Uploader;
  /** The gateway settings of the service (§2 sign-in and project), at `baseUrl` when given. */
  gateway(baseUrl?: string): GatewayConfig;
  file(name: string, size: number): DiskFile;
  /** Adds a fault rule (e2e/service/faults.ts); throws when the service refuses it. */
  fault(rule: FaultRuleInput): Promise<void>;
  /** How many times each fault rule fired, in the order they were added. */
  fired(): Promise<number[]>;
  /** What storage holds for a queued file (read through the S3 API, as any client would). */
  stored(u: Uploader, fileId: number): Promise<StoredObject>;
  /** What storage holds for the multipart upload `uploadId` (read through the S3 API). */
  storedUpload(uploadId: string): Promise<StoredObject>;
  /** Storage's UploadPart requests so far. */
  puts(): TestService['storage']['received'];
  /** The structure tests register captures on. */
  structure(): string;
  reset(): Promise<void>;
  stop(): Promise<void>;
}

/** How a kit's uploaders start, before each one's own `extra`. */
export interface ServiceKitOptions {
  /**
   * `short` (default): a durable retry schedule of a minute, a 5 s stall timeout and a part in doubt
   * asked about for 1 s, so fault tests run in seconds. `engine`: the engine's own timings
   * (EngineOptions defaults: 30 s stall, the overnight schedule, the in-doubt settle), for tests
   * whose subject is those timings or that must not meet a shortened one.
   */
  timings?: 'short' | 'engine';
  /** Options every uploader of the kit gets (e.g. `concurrency`), below each one's `extra`. */
  uploader?: Partial<UploaderOptions>;
}

/** The kit's short timings (ServiceKitOptions.timings `short`). */
const SHORT_TIMINGS: Partial<UploaderOptions> = {
  retrySchedule: { delayMs: () => 60_000 },
  stallTimeoutMs: 5000,
  // A part whose answer was lost and that storage never shows is sent again after 1 s, not 15 s.
  answerSettleMs: 1000,
};

/**
 * Starts the local service (with `service` options, e.g. its `partSize` in bytes) and a work
 * folder named after `prefix`; its uploaders start from `opts`. Throws what startTestService throws.
 */
export async function startServiceKit(
  prefix: string,
  service: Parameters<typeof startTestService>[0] = {},
  opts: ServiceKitOptions = {},
): Promise<ServiceKit> {
  const svc = await startTestService(service);
  const work = tempDir(prefix);
  const open: Uploader[] = [];
  const object = async (key: string): Promise<StoredObject> => {
    const res = await svc.s3().send(new GetObjectCommand({ Bucket: svc.info.s3.bucket, Key: key }));
    const bytes = Buffer.from(await res.Body!.transformToByteArray());
    return { bytes, sha256: sha256(bytes) };
  };
  const kit: ServiceKit = {
    svc,
    work: work.dir,
    gateway(baseUrl = svc.info.baseUrl) {
      const { info } = svc;
      return { baseUrl, authUrl: info.authUrl, apiKey: info.apiKey, projectId: info.projectId, ...info.account };
    },
    uploader(name, extra = {}) {
      const u = openUploader({
        dataDir: join(work.dir, name),
        gateway: kit.gateway(),
        partRetry: recommendedRetryPolicy(20, 20),
        apiRetry: recommendedRetryPolicy(20, 20),
        ...(opts.timings === 'engine' ? {} : SHORT_TIMINGS),
        ...opts.uploader,
        ...extra,
      });
      // A test may close an uploader itself (to open its queue again); reset() closes it once only.
      const close = u.close.bind(u);
      let closed: Promise<void> | undefined;
      u.close = () => (closed ??= close());
      open.push(u);
      return u;
    },
    file: (name, size) => diskFile(work.dir, name, size),
    async fault(rule) {
      const res = await svc.admin('POST', '/faults', rule);
      if (res.status !== 201) throw new Error(`the service refused the fault rule: ${res.status} ${await res.text()}`);
    },
    async fired() {
      const { rules } = (await (await svc.admin('GET', '/faults')).json()) as { rules: { fired: number }[] };
      return rules.map((r) => r.fired);
    },
    stored: (u, fileId) => kit.storedUpload(u.queue.file(fileId)!.uploadId!),
    storedUpload: (uploadId) => object(svc.store.state.uploads[uploadId]!.key),
    puts: () => svc.storage.received.filter((r) => r.operation === 'UploadPart'),
    structure: () => svc.info.structures[0]!,
    async reset() {
      while (open.length) await open.pop()!.close();
      await svc.admin('DELETE', '/faults');
      await svc.admin('PUT', '/settings', {
        presignExpiresIn: 3600,
        bandwidthBytesPerSecond: null,
        latencyMs: 0,
        serverSideEncryption: null,
        storageRetryAfterSeconds: null,
        partStoreDelayMs: 0,
        statusRead: 'ok',
        strictContentType: false,
        completeBatchAllParts: false,
        jsonBytesPerSecond: null,
        presignQueryPadBytes: 0,
      });
    },
    async stop() {
      await kit.reset();
      await svc.stop();
      work.remove();
    },
  };
  return kit;
}

/**
 * Registers the hooks of a test file that uses one ServiceKit: started in `beforeAll`, `reset()`
 * after each test, stopped in `afterAll` (call it at the top level of the file). The returned kit
 * forwards to the started one, so its members are usable from the first test on.
 */
export function useServiceKit(
  prefix: string,
  service: Parameters<typeof startTestService>[0] = {},
  opts: ServiceKitOptions = {},
): ServiceKit {
  let started: ServiceKit | undefined;
  const k = (): ServiceKit => {
    if (!started) throw new Error('the service kit is used before its beforeAll ran');
    return started;
  };
  beforeAll(async () => {
    started = await startServiceKit(prefix, service, opts);
  });
  afterEach(async () => k().reset());
  afterAll(async () => started?.stop());
  return {
    get svc() {
      return k().svc;
    },
    get work() {
      return k().work;
    },
    uploader: (name, extra) => k().uploader(name, extra),
    gateway: (baseUrl) => k().gateway(baseUrl),
    file: (name, size) => k().file(name, size),
    fault: (rule) => k().fault(rule),
    fired: () => k().fired(),
    stored: (u, fileId) => k().stored(u, fileId),
    storedUpload: (uploadId) => k().storedUpload(uploadId),
    puts: () => k().puts(),
    structure: () => k().structure(),
    reset: () => k().reset(),
    stop: () => k().stop(),
  };
}

/** The local service and a work folder of one test file, with what its tests open and the file closes (see useTestService). */
export interface TestServiceFile {
  readonly svc: TestService;
  /** The work folder (absolute), deleted with what it holds after the file's tests. */
  readonly work: string;
  /** Closes `c` after the test that opened it (newest first); returns `c`. */
  keep<T extends { close(): Promise<void> }>(c: T): T;
  /** Forgets `c` (a test that closed it itself). */
  release(c: { close(): Promise<void> }): void;
  /** What storage holds for the multipart upload `uploadId` (read through the S3 API): its bytes and hash. */
  storedUpload(uploadId: string): Promise<StoredObject>;
}

/**
 * Registers the hooks of a test file that runs its own clients (AppCore, uploaders) against one
 * local service: the service (with `service` options) and a work folder named after `prefix` are
 * started in `beforeAll` and stopped and deleted in `afterAll`; after each test what was `keep`-ed
 * is closed and, with `clearFaults`, the service's fault rules are removed. Call it at the file's
 * top level; its fields are set once `beforeAll` has run.
 */
export function useTestService(
  prefix: string,
  opts: { service?: Parameters<typeof startTestService>[0]; clearFaults?: boolean } = {},
): TestServiceFile {
  let svc: TestService | undefined;
  let work: { dir: string; remove(): void } | undefined;
  const kept: { close(): Promise<void> }[] = [];
  beforeAll(async () => {
    svc = await startTestService(opts.service ?? {});
    work = tempDir(prefix);
  });
  afterEach(async () => {
    while (kept.length) await kept.pop()!.close();
    if (opts.clearFaults) await svc?.admin('DELETE', '/faults');
  });
  afterAll(async () => {
    await svc?.stop();
    work?.remove();
  });
  return {
    get svc() {
      if (!svc) throw new Error('the test service is used before its beforeAll ran');
      return svc;
    },
    get work() {
      if (!work) throw new Error('the work folder is used before its beforeAll ran');
      return work.dir;
    },
    keep(c) {
      kept.push(c);
      return c;
    },
    release(c) {
      const i = kept.indexOf(c);
      if (i >= 0) kept.splice(i, 1);
    },
    async storedUpload(uploadId) {
      const s = svc!;
      const key = s.store.state.uploads[uploadId]!.key;
      const res = await s.s3().send(new GetObjectCommand({ Bucket: s.info.s3.bucket, Key: key }));
      const bytes = Buffer.from(await res.Body!.transformToByteArray());
      return { bytes, sha256: sha256(bytes) };
    },
  };
}

/**
 * Resolves once `cond` holds, asking it every `stepMs` (ms); throws `timed out waiting: <what>`
 * after `ms` (ms). For waiting on something observable (bytes stored, a row's state, a line
 * printed) instead of sleeping a fixed time.
 */
export async function waitFor(
  cond: () => boolean | Promise<boolean>,
  ms = 60_000,
  what = 'the condition',
  stepMs = 25,
): Promise<void> {
  for (const end = Date.now() + ms; !(await cond()); ) {
    if (Date.now() > end) throw new Error(`timed out waiting: ${what}`);
    await new Promise((r) => setTimeout(r, stepMs));
  }
}

/** mulberry32: a small seeded PRNG in [0, 1), so a randomised test runs the same way every time. */
export function prng(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The checkout's root folder (absolute). */
export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
/** The CLI's entry point, run from source through tsx. */
export const CLI_ENTRY = join(ROOT, 'main/cli/index.ts');

/** How one CLI process ended: exit code, signal, stdout, stderr and `out` (both, in arrival order). */
export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  out: string;
}

/** A CLI process still running: the child (to signal it) and its end. */
export interface CliRun {
  child: ChildProcess;
  done: Promise<CliResult>;
}

/** How a CLI run is started: extra environment, and a sink for each printed line with its time (performance.now(), ms). */
export interface CliOptions {
  env?: Record<string, string>;
  lines?: { at: number; text: string }[];
  /** Called with all of stdout so far each time more comes. */
  onStdout?: (all: string) => void;
  /**
   * The CLI built as it ships (built-cli.ts `buildCli`'s `entry`), run by Node as it is; default:
   * from source through tsx. The built one starts in a third of the time and CPU.
   */
  entry?: string;
}

/**
 * Starts `capture-uploader <args>` from source (`node --import tsx main/cli/index.ts`), or the
 * built CLI of `opts.entry`, as a person runs it, with the environment pointing at the local
 * service `svc` (only its `info` is read) and its queue in `dataDir`.
 */
export function spawnCli(
  svc: Pick<TestService, 'info'>,
  dataDir: string,
  args: string[],
  opts: CliOptions = {},
): CliRun {
  const entry = opts.entry ? [opts.entry] : ['--import', 'tsx', CLI_ENTRY];
  const child = spawn(process.execPath, [...entry, ...args], {
    cwd: ROOT,
    env: { ...process.env, ...uploaderEnv(svc.info, dataDir), NODE_NO_WARNINGS: '1', ...opts.env },
  });
  let stdout = '';
  let stderr = '';
  let out = '';
  let partial = '';
  const take = (d: Buffer, into: 'stdout' | 'stderr') => {
    const text = d.toString();
    if (into === 'stdout') {
      stdout += text;
      opts.onStdout?.(stdout);
    } else stderr += text;
    out += text;
    if (!opts.lines) return;
    const parts = (partial + text).split(/[\r\n]/);
    partial = parts.pop()!;
    for (const line of parts) if (line) opts.lines.push({ at: performance.now(), text: line });
  };
  child.stdout.on('data', (d: Buffer) => take(d, 'stdout'));
  child.stderr.on('data', (d: Buffer) => take(d, 'stderr'));
  const done = new Promise<CliResult>((resolve) =>
    child.on('exit', (code, signal) => resolve({ code, signal, stdout, stderr, out })),
  );
  return { child, done };
}

/**
 * The set-up of a test file that runs the CLI as a child against the local service: the service
 * and a work folder are started in `beforeAll` and stopped and deleted in `afterAll` (hooks
 * registered by this call, so call it at the top level of the file). Its fields are set once
 * `beforeAll` has run.
 */
export interface CliKit {
  svc: TestService;
  /** The work folder (absolute), deleted with what it holds after the file's tests. */
  work: string;
  /** Starts the CLI with its queue in `dataDir`; see spawnCli. */
  spawn(dataDir: string, args: string[], opts?: CliOptions): CliRun;
  /** Runs the CLI to its end; see spawnCli. */
  run(dataDir: string, args: string[], opts?: CliOptions): Promise<CliResult>;
  /** Writes `size` random bytes to `work/name` and returns the file with its hash. */
  file(name: string, size: number): DiskFile;
  /**
   * A recording of `size` random bytes, `work/<name>.mp4`, queued by `add` on the first structure
   * with its queue in `work/<name>`; throws when `add` does not exit 0.
   */
  queued(name: string, size: number): Promise<{ dataDir: string; path: string; bytes: Buffer }>;
  /** Adds a fault rule (e2e/service/faults.ts); throws when the service refuses it. */
  fault(rule: FaultRuleInput): Promise<void>;
  /** Each fault rule's counts (`fired`: acted on, `seen`: matched), in the order they were added. */
  faults(): Promise<{ fired: number; seen: number }[]>;
  /** What storage holds under `key` (read through the S3 API): its bytes and hash. */
  object(key: string): Promise<StoredObject>;
  /** What storage holds for the upload of `size` bytes (the last one, if several): its bytes and hash. */
  storedBySize(size: number): Promise<StoredObject>;
  /** Storage's UploadPart requests so far. */
  puts(): TestService['storage']['received'];
  /** The structure tests register captures on. */
  structure(): string;
}

/**
 * Registers `beforeAll`/`afterAll` hooks that start the local service (with `service` options)
 * and a work folder named after `prefix`, and stop and delete them; `before`/`after` run after
 * the start and before the stop (e.g. mounting a small disk in the work folder).
 */
export function useCliKit(
  prefix: string,
  service: Parameters<typeof startTestService>[0] = {},
  hooks: { before?: (kit: CliKit) => void | Promise<void>; after?: (kit: CliKit) => void | Promise<void> } = {},
): CliKit {
  const kit = {
    spawn: (dataDir, args, opts) => spawnCli(kit.svc, dataDir, args, opts),
    run: (dataDir, args, opts) => spawnCli(kit.svc, dataDir, args, opts).done,
    file: (name, size) => diskFile(kit.work, name, size),
    async queued(name, size) {
      const dataDir = join(kit.work, name);
      const { path, bytes } = diskFile(kit.work, `${name}.mp4`, size);
      const add = await kit.run(dataDir, ['add', '--structure', kit.structure(), '--type', 'interior', path]);
      if (add.code !== 0) throw new Error(`add exited ${add.code}: ${add.out}`);
      return { dataDir, path, bytes };
    },
    async fault(rule) {
      const res = await kit.svc.admin('POST', '/faults', rule);
      if (res.status !== 201) throw new Error(`the service refused the fault rule: ${res.status} ${await res.text()}`);
    },
    async faults() {
      const res = await kit.svc.admin('GET', '/faults');
      return ((await res.json()) as { rules: { fired: number; seen: number }[] }).rules;
    },
    async object(key) {
      const res = await kit.svc.s3().send(new GetObjectCommand({ Bucket: kit.svc.info.s3.bucket, Key: key }));
      const bytes = Buffer.from(await res.Body!.transformToByteArray());
      return { bytes, sha256: sha256(bytes) };
    },
    async storedBySize(size) {
      const upload = Object.values(kit.svc.store.state.uploads)
        .filter((u) => u.size === size)
        .at(-1);
      if (!upload) throw new Error(`storage has no upload of ${size} bytes`);
      return kit.object(upload.key);
    },
    puts: () => kit.svc.storage.received.filter((r) => r.operation === 'UploadPart'),
    structure: () => kit.svc.info.structures[0]!,
  } as CliKit;
  beforeAll(async () => {
    kit.svc = await startTestService(service);
    kit.work = mkdtempSync(join(tmpdir(), `${prefix}-`));
    await hooks.before?.(kit);
  });
  afterAll(async () => {
    try {
      await hooks.after?.(kit);
    } finally {
      await kit.svc?.stop();
      if (kit.work) rmSync(kit.work, { recursive: true, force: true });
    }
  });
  return kit;
}
