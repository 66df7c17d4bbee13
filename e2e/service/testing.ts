export type { FaultAction, FaultRuleInput } from './faults.js';
/** The fault rule and settings schemas, for tests that check a rule they made before posting it. */
export { faultRuleInputSchema, faultSettingsSchema } from './faults.js';
export type { FeedFault, FeedRequest, PublishedTarget } from './update-feed-server.js';
import { S3Client } from '@aws-sdk/client-s3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { LocalService, LocalServiceInfo, LocalServiceOptions } from './index.js';
import { startLocalService } from './index.js';
import type { FeedFault, FeedRequest, PublishedTarget } from './update-feed-server.js';
import { updateKeysDir, updateRepoDir } from './update-feed-server.js';

/** A running service in a fresh temporary data folder, with helpers for tests; `stop()` removes the folder. */
export interface TestService extends LocalService {
  dataDir: string;
  /** Signs the operator in at the sign-in service (§4.1) and returns the JWT. */
  token(): Promise<string>;
  /** Calls the gateway with the standard header set (§4); `headers` override or (with undefined) drop them. */
  gateway(
    method: string,
    path: string,
    init?: { token?: string; body?: unknown; headers?: Record<string, string | undefined> },
  ): Promise<Response>;
  /** Calls the admin interface with a JSON body. */
  admin(method: string, path: string, body?: unknown): Promise<Response>;
  /** An S3 client for the storage, as any real client would be set up. */
  s3(): S3Client;
  stop(): Promise<void>;
}

/** Starts the local service for one test file. Throws what {@link startLocalService} throws. */
export async function startTestService(opts: Partial<LocalServiceOptions> = {}): Promise<TestService> {
  const dataDir = opts.dataDir ?? mkdtempSync(join(tmpdir(), 'capture-service-test-'));
  const service = await startLocalService({ ...opts, dataDir });
  const clients: S3Client[] = [];
  const t: TestService = {
    ...service,
    dataDir,
    async token() {
      const res = await fetch(`${service.info.authUrl}/api/v1/users/signin`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(service.info.account),
      });
      if (res.status !== 200) throw new Error(`sign-in answered ${res.status}`);
      return ((await res.json()) as { token: string }).token;
    },
    async gateway(method, path, init = {}) {
      // A fresh sign-in per call: tests expire tokens on purpose, a cached one would go stale.
      const token = init.token ?? (await t.token());
      const headers: Record<string, string> = {};
      const merged: Record<string, string | undefined> = {
        authorization: `Bearer ${token}`,
        'x-api-key': service.info.apiKey,
        'x-project-id': service.info.projectId,
        'content-type': 'application/json',
        ...init.headers,
      };
      for (const [k, v] of Object.entries(merged)) if (v !== undefined) headers[k] = v;
      return fetch(`${service.info.baseUrl}${path}`, {
        method,
        headers,
        body: init.body === undefined ? undefined : JSON.stringify(init.body),
      });
    },
    admin(method, path, body) {
      return fetch(`${service.info.adminUrl}${path}`, {
        method,
        headers: { 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    },
    s3() {
      const s = service.info.s3;
      const client = new S3Client({
        endpoint: s.endpoint,
        region: s.region,
        forcePathStyle: true,
        credentials: { accessKeyId: s.accessKeyId, secretAccessKey: s.secretAccessKey },
        requestChecksumCalculation: 'WHEN_REQUIRED',
        responseChecksumValidation: 'WHEN_REQUIRED',
        maxAttempts: 1,
      });
      clients.push(client);
      return client;
    },
    async stop() {
      for (const c of clients) c.destroy();
      await service.close();
      if (!opts.dataDir) rmSync(dataDir, { recursive: true, force: true });
    },
  };
  return t;
}

/** PUTs bytes to a presigned URL with no headers at all, as §4.6 asks; resolves to the raw response. */
export function putBytes(url: string, bytes: Buffer, signal?: AbortSignal): Promise<Response> {
  // fetch's BodyInit wants an ArrayBuffer-backed view; a Buffer may sit on a shared pool.
  return fetch(url, { method: 'PUT', body: new Uint8Array(bytes), signal });
}

/** An upload manifest entry (§2) as the tests read it. */
export interface TestManifestEntry {
  frameIndex: number;
  uploadId: string;
  fileName: string;
  size: number;
  partSize: number;
  totalParts: number;
  status: string;
}

/**
 * Registers one capture of the given files (name and size in bytes) through add-capture (§4.4),
 * on the given structure (default the first), and returns its id and upload manifest.
 * Throws when the service does not answer 200.
 */
export async function registerCapture(
  svc: TestService,
  files: { name: string; size: number; contentType?: string }[],
  structure = svc.info.structures[0]!,
): Promise<{ captureId: string; manifest: TestManifestEntry[] }> {
  const res = await svc.gateway('POST', '/captures/api/v1/external-captures/add-capture', {
    body: {
      captures: [
        {
          project: svc.info.projectId,
          structure,
          captureDateTime: '2026-11-20T15:04:05Z',
          type: 'exterior',
          mode: '360 Video',
          sourceType: 'bot',
          files: files.map((f, i) => ({
            frameIndex: i + 1,
            fileName: f.name,
            contentType: f.contentType ?? 'video/insv',
            size: f.size,
          })),
        },
      ],
    },
  });
  if (res.status !== 200) throw new Error(`add-capture answered ${res.status}: ${await res.text()}`);
  const body = (await res.json()) as {
    result: { capture: { captureId: string }; uploadManifest: TestManifestEntry[] }[];
  };
  return { captureId: body.result[0]!.capture.captureId, manifest: body.result[0]!.uploadManifest };
}

/** The CAPTURE_* environment that points a `capture-uploader` process at this service, with its queue in `dataDir`. */
export function uploaderEnv(info: LocalServiceInfo, dataDir: string): Record<string, string> {
  return {
    CAPTURE_BASE_URL: info.baseUrl,
    CAPTURE_AUTH_URL: info.authUrl,
    CAPTURE_API_KEY: info.apiKey,
    CAPTURE_PROJECT_ID: info.projectId,
    CAPTURE_EMAIL: info.account.email,
    CAPTURE_PASSWORD: info.account.password,
    CAPTURE_DATA_DIR: dataDir,
  };
}

/**
 * Publishes a release to the service's update feed (`info.updatesUrl`) through the admin
 * interface: the installer `content` and the channel files naming it, signed into the feed's
 * repository with the service's keys (`release:sign add`); `appId` signs it for another app.
 * Resolves to the installer's signed target; throws when the admin interface does not answer 201.
 */
export async function publishUpdate(
  svc: TestService,
  release: { version: string; fileName: string; content: Buffer; appId?: string },
): Promise<PublishedTarget> {
  const { content, ...rest } = release;
  const res = await svc.admin('POST', '/updates', { ...rest, contentBase64: content.toString('base64') });
  if (res.status !== 201) throw new Error(`publishing the update answered ${res.status}: ${await res.text()}`);
  return (await res.json()) as PublishedTarget;
}

/** Sets the update feed's misbehaviours (`[]` clears them): update-feed-server.ts FeedFault. Throws when refused. */
export async function setFeedFaults(svc: TestService, rules: FeedFault[]): Promise<void> {
  const res = await svc.admin('PUT', '/updates/faults', { rules });
  if (res.status !== 200) throw new Error(`setting the feed's faults answered ${res.status}: ${await res.text()}`);
}

/** The requests the update feed answered so far, oldest first (path after `/updates/`, body bytes sent). */
export async function feedRequests(svc: TestService): Promise<FeedRequest[]> {
  return ((await (await svc.admin('GET', '/updates/requests')).json()) as { requests: FeedRequest[] }).requests;
}

/** The feed's repository folder and its private keys, for a test playing a publisher or an attacker. */
export function feedFolders(svc: TestService): { repo: string; keys: string } {
  return { repo: updateRepoDir(svc.dataDir), keys: updateKeysDir(svc.dataDir) };
}
