#!/usr/bin/env node
import { Command, InvalidArgumentError, Option } from 'commander';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { S3StorageSettings } from './gateway/object-storage.js';
import { startLocalService } from './index.js';

// The AWS SDK serves only the local test service here and is pinned; its notice that future
// versions will need Node 22 is not for the people running this command.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

const port = (v: string) => {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0 || n > 65535)
    throw new InvalidArgumentError('a port is a whole number from 0 to 65535');
  return n;
};
const httpUrl = (v: string) => {
  let url: URL | undefined;
  try {
    url = new URL(v);
  } catch {
    // reported below
  }
  if (!url || !/^https?:$/.test(url.protocol))
    throw new InvalidArgumentError("give the storage's base URL with its scheme, e.g. http://127.0.0.1:9000");
  return v.replace(/\/+$/, '');
};

const program = new Command('capture-service')
  .description('Local stand-in for the capture gateway, sign-in, progress interface and S3 storage (loopback only)')
  .option('--port <n>', 'port of the API listener (0 picks a free one)', port, 0)
  .option('--storage-port <n>', 'port of the S3 storage listener (0 picks a free one)', port, 0)
  .option(
    '--data-dir <dir>',
    'folder for state and stored objects, kept across restarts (default: a new temporary folder)',
  )
  .option('--part-size <bytes>', 'part size given to new uploads, at least 5242880', (v) => Number(v), 5 * 1024 * 1024)
  .option(
    '--s3-endpoint <url>',
    'keep the files in this S3-compatible storage instead of the built-in one (path-style addressing)',
    httpUrl,
  )
  .option('--s3-bucket <name>', 'bucket at --s3-endpoint; it must exist')
  .option('--s3-access-key <id>', 'access key id for --s3-endpoint')
  .addOption(
    new Option(
      '--s3-secret-key <key>',
      'secret access key for --s3-endpoint (the environment variable keeps it out of the process list)',
    ).env('CAPTURE_SERVICE_S3_SECRET_KEY'),
  )
  .option('--s3-region <region>', 'SigV4 signing region of --s3-endpoint', 'us-east-1')
  // Usage errors exit 2, as the uploader's do (commander's own is 1); help exits 0.
  .exitOverride((err) => process.exit(err.exitCode === 0 ? 0 : 2))
  .parse();

const opts = program.opts<{
  port: number;
  storagePort: number;
  dataDir?: string;
  partSize: number;
  s3Endpoint?: string;
  s3Bucket?: string;
  s3AccessKey?: string;
  s3SecretKey?: string;
  s3Region: string;
}>();

/** The external storage's settings when any --s3-* option names one; all four are then needed. */
function externalStorage(): S3StorageSettings | undefined {
  const given = {
    '--s3-endpoint': opts.s3Endpoint,
    '--s3-bucket': opts.s3Bucket,
    '--s3-access-key': opts.s3AccessKey,
    '--s3-secret-key': opts.s3SecretKey,
  };
  const missing = Object.entries(given)
    .filter(([, v]) => !v)
    .map(([k]) => k);
  if (missing.length === 4) return undefined;
  if (missing.length)
    program.error(
      `error: another S3 storage needs ${missing.join(', ')} as well (or none of the --s3-* options for the built-in storage)`,
      { exitCode: 2 },
    );
  return {
    endpoint: opts.s3Endpoint!,
    bucket: opts.s3Bucket!,
    region: opts.s3Region,
    accessKeyId: opts.s3AccessKey!,
    secretAccessKey: opts.s3SecretKey!,
  };
}

const s3 = externalStorage();
const dataDir = opts.dataDir ? resolve(opts.dataDir) : mkdtempSync(join(tmpdir(), 'capture-service-'));
let service;
try {
  service = await startLocalService({
    dataDir,
    port: opts.port,
    storagePort: opts.storagePort,
    partSize: opts.partSize,
    s3,
  });
} catch (err) {
  process.stderr.write(`capture-service: ${(err as Error).message}\n`);
  process.exit(1);
}
// The one line a test or a script waits for: everything a client needs, as JSON. Another
// storage's secret key is its owner's, given to this process: it is not printed.
const info = s3 ? { ...service.info, s3: { ...service.info.s3, secretAccessKey: undefined } } : service.info;
process.stdout.write(`capture-service ready ${JSON.stringify({ ...info, dataDir })}\n`);

const stop = () => {
  void service.close().then(() => process.exit(0));
};
process.once('SIGINT', stop);
process.once('SIGTERM', stop);
