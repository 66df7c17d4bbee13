// What the tests of real S3 clients (awscli.test.ts, rclone.test.ts) share: Debian's client on
// disk (.ci/run installs it), a local service and a work folder for the file's tests, and the
// client run with an environment of its own (nothing inherited but PATH).
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll } from 'vitest';
import type { TestService } from '../testing.js';
import { startTestService } from '../testing.js';

const run = promisify(execFile);

/** A real S3 client's test set-up; `svc`, `work` and `env` are there once the file's beforeAll ran. */
export interface RealClient {
  /** The local service the client talks to (its storage at `svc.info.s3.endpoint`). */
  readonly svc: TestService;
  /** A fresh folder for the test's files and the client's HOME; removed after the file. */
  readonly work: string;
  /** The client's whole environment. */
  readonly env: NodeJS.ProcessEnv;
  /** Runs the client with `args` and `env` (120 s at most); rejects on a non-zero exit. */
  run(args: string[]): Promise<{ stdout: string; stderr: string }>;
}

/**
 * Registers the file's beforeAll and afterAll for the real client at `binary` (from Debian's
 * `aptPackage`): beforeAll throws, naming the package to install, when the binary is missing, then
 * starts a local service and a work folder (`prefix`-…) and builds the client's environment with
 * `envFor` (PATH and HOME = work are added); afterAll stops the service and removes the folder.
 */
export function useRealClient(
  binary: string,
  aptPackage: string,
  prefix: string,
  envFor: (svc: TestService, work: string) => NodeJS.ProcessEnv,
): RealClient {
  let svc: TestService | undefined;
  let work: string | undefined;
  let env: NodeJS.ProcessEnv = {};
  beforeAll(async () => {
    if (!existsSync(binary))
      throw new Error(
        `${binary} is missing: install Debian's ${aptPackage} package (apt-get install -y ${aptPackage}), as .ci/run does`,
      );
    svc = await startTestService();
    work = mkdtempSync(join(tmpdir(), `${prefix}-`));
    env = { PATH: process.env.PATH, HOME: work, ...envFor(svc, work) };
  });
  afterAll(async () => {
    await svc?.stop();
    if (work) rmSync(work, { recursive: true, force: true });
  });
  return {
    get svc() {
      return svc!;
    },
    get work() {
      return work!;
    },
    get env() {
      return env;
    },
    run: (args) => run(binary, args, { env, timeout: 120_000 }),
  };
}
