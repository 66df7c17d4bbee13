import { execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer as createHttpsServer } from 'node:https';
import type { Server as HttpsServer } from 'node:https';
import { createServer as createTcpServer } from 'node:net';
import type { AddressInfo, Server as TcpServer, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { TestService } from './service/testing.js';
import { startTestService, uploaderEnv } from './service/testing.js';

// the capture gateway unreachable, for whatever reason, is one
// problem of the settings or the network: said once for the queue, the captures stay queued,
// `add` exits non-zero, and once the address is corrected the next drain registers at once.
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const CLI = join(ROOT, 'main/cli/index.ts');

let svc: TestService;
let work: string;
let tls: HttpsServer;
let silent: TcpServer;
const sockets: Socket[] = [];
const port = (s: { address(): unknown }) => (s.address() as AddressInfo).port;

beforeAll(async () => {
  svc = await startTestService();
  work = mkdtempSync(join(tmpdir(), 'unreachable-test-'));
  // A self-signed certificate, as a misconfigured proxy or a test box would present.
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-days',
      '1',
      '-subj',
      '/CN=127.0.0.1',
      '-keyout',
      join(work, 'key.pem'),
      '-out',
      join(work, 'cert.pem'),
    ],
    { stdio: 'ignore' },
  );
  tls = createHttpsServer(
    { key: readFileSync(join(work, 'key.pem')), cert: readFileSync(join(work, 'cert.pem')) },
    (_req, res) => res.end('{}'),
  );
  await new Promise<void>((r) => tls.listen(0, '127.0.0.1', r));
  // Accepts the connection and never says a word: a TLS handshake that never completes.
  silent = createTcpServer((s) => void sockets.push(s));
  await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
});
afterEach(async () => {
  await svc.admin('DELETE', '/faults');
});
afterAll(async () => {
  for (const s of sockets) s.destroy();
  await new Promise((r) => tls.close(r));
  await new Promise((r) => silent.close(r));
  await svc.stop();
  rmSync(work, { recursive: true, force: true });
});

interface Result {
  code: number | null;
  stdout: string;
  stderr: string;
}

function cli(dataDir: string, args: string[], env: Record<string, string> = {}): Promise<Result> {
  const child = spawn(process.execPath, ['--import', 'tsx', CLI, ...args], {
    cwd: ROOT,
    env: { ...process.env, ...uploaderEnv(svc.info, dataDir), NODE_NO_WARNINGS: '1', ...env },
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  return new Promise((resolve) => child.on('exit', (code) => resolve({ code, stdout, stderr })));
}

/** Two recordings in their own folder: two captures. */
function card(name: string): string[] {
  return ['a', 'b'].map((n) => {
    const path = join(work, `${name}-${n}.mp4`);
    writeFileSync(path, randomBytes(64 * 1024));
    return path;
  });
}

const statusOf = async (dataDir: string) =>
  (JSON.parse((await cli(dataDir, ['status', '--json'])).stdout) as { captures: { state: string }[] }).captures.map(
    (c) => c.state,
  );
const count = (text: string, pattern: RegExp) => text.match(new RegExp(pattern.source, 'g'))?.length ?? 0;
const add = (dataDir: string, files: string[], env: Record<string, string>) =>
  cli(dataDir, ['add', '--structure', svc.info.structures[0]!, '--type', 'interior', ...files], env);

describe('the capture gateway cannot be reached', () => {
  const apiPort = () => new URL(svc.info.baseUrl).port;
  const cases: [string, () => string, RegExp][] = [
    ['an untrusted TLS certificate', () => `https://127.0.0.1:${port(tls)}/gateway`, /certificate is not trusted/],
    [
      'https on a port that speaks plain http (EPROTO)',
      () => `https://127.0.0.1:${apiPort()}/gateway`,
      /does not speak https/,
    ],
    ['a refused connection', () => `http://127.0.0.1:${port(silent) === 1 ? 2 : 1}/gateway`, /connection refused/],
    [
      'a name that does not resolve',
      () => 'http://capture-gateway.invalid/gateway',
      /name capture-gateway\.invalid cannot be resolved/,
    ],
    [
      "a wrong path (404 on the gateway's own paths)",
      () => `http://127.0.0.1:${apiPort()}/wrong-prefix`,
      /answers 404/,
    ],
  ];

  it.each(cases)('%s: said once for the queue, captures stay queued, add exits 3', async (name, url, cause) => {
    const dataDir = join(work, `q-${name.replace(/\W+/g, '-')}`);
    const res = await add(dataDir, card(name.replace(/\W+/g, '-')), { CAPTURE_BASE_URL: url() });
    const out = res.stdout + res.stderr;
    expect(res.code, out).toBe(3);
    expect(count(out, /Cannot reach the capture gateway at /), out).toBe(1);
    expect(out).toMatch(cause);
    expect(out).toContain(url().replace(/\/gateway$|\/wrong-prefix$/, ''));
    expect(out).not.toMatch(/registration_unknown|rejected|Correct the capture/);
    expect(await statusOf(dataDir)).toEqual(['queued', 'queued']);
  });

  it('a captive portal answering its own HTML page: nothing registered, captures stay queued, add exits 3', async () => {
    await svc.admin('POST', '/faults', { target: 'gateway', times: 0, action: { type: 'html', status: 200 } });
    const dataDir = join(work, 'q-portal');
    const res = await add(dataDir, card('portal'), {});
    const out = res.stdout + res.stderr;
    expect(res.code, out).toBe(3);
    expect(count(out, /Cannot reach the capture gateway at /), out).toBe(1);
    expect(out).toMatch(/web page instead of the service's answer/);
    expect(await statusOf(dataDir)).toEqual(['queued', 'queued']);
  });

  it('a TLS handshake that never completes (connect timeout): nothing was sent, captures stay queued', async () => {
    const dataDir = join(work, 'q-timeout');
    const res = await add(dataDir, card('timeout'), { CAPTURE_BASE_URL: `https://127.0.0.1:${port(silent)}/gateway` });
    const out = res.stdout + res.stderr;
    expect(res.code, out).toBe(3);
    expect(out).toMatch(/Cannot reach the capture gateway at https:\/\/127\.0\.0\.1:\d+\/gateway: no answer within/);
    expect(await statusOf(dataDir)).toEqual(['queued', 'queued']);
  });

  it.each([
    ['refused', () => `http://127.0.0.1:1/auth`, /connection refused/],
    [
      'a wrong path (404), never read as a refusal of the account',
      () => `${new URL(svc.info.authUrl).origin}/no-auth-here`,
      /answers 404/,
    ],
  ])(
    'the sign-in service %s: said once as the sign-in address, captures stay queued, add exits 3',
    async (name, url, cause) => {
      const dataDir = join(work, `q-auth-${name.replace(/\W+/g, '-')}`);
      const res = await add(dataDir, card(`auth-${name.replace(/\W+/g, '-')}`), { CAPTURE_AUTH_URL: url() });
      const out = res.stdout + res.stderr;
      expect(res.code, out).toBe(3);
      expect(count(out, /Cannot reach the sign-in service at /), out).toBe(1);
      expect(out).toMatch(cause);
      expect(out).not.toMatch(/refuses the account/);
      expect(await statusOf(dataDir)).toEqual(['queued', 'queued']);
    },
  );

  it('once the address is corrected, the next drain registers and uploads at once', async () => {
    const dataDir = join(work, 'q-corrected');
    const bad = await add(dataDir, card('corrected'), { CAPTURE_BASE_URL: `https://127.0.0.1:${port(tls)}/gateway` });
    expect(bad.code, bad.stderr).toBe(3);
    const drain = await cli(dataDir, ['drain']);
    expect(drain.code, drain.stdout + drain.stderr).toBe(0);
    expect(await statusOf(dataDir)).toEqual(['completed', 'completed']);
  });

  it.each(['127.0.0.1:8080/gateway', 'capture.example.com/gateway', 'ftp://capture.example.com'])(
    'refuses the address %s when it is set, naming the fix (exit 2)',
    async (url) => {
      const res = await add(join(work, 'q-scheme'), card('scheme'), { CAPTURE_BASE_URL: url });
      expect(res.code).toBe(2);
      expect(res.stderr).toMatch(/CAPTURE_BASE_URL .* must start with https:\/\/ \(or http:\/\/\)/);
    },
  );
});
