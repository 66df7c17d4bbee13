#!/usr/bin/env node
import { Command, InvalidArgumentError } from 'commander';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { startLocalService } from './index.js';

// The AWS SDK serves only the local test service here and is pinned; its notice that future
// versions will need Node 22 is not for the people running this command.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

const port = (v: string) => {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0 || n > 65535) throw new InvalidArgumentError('a port is a whole number from 0 to 65535');
  return n;
};

const program = new Command('capture-service')
  .description('Local stand-in for the capture gateway, sign-in, progress interface and S3 storage (loopback only)')
  .option('--port <n>', 'port of the API listener (0 picks a free one)', port, 0)
  .option('--storage-port <n>', 'port of the S3 storage listener (0 picks a free one)', port, 0)
  .option('--data-dir <dir>', 'folder for state and stored objects, kept across restarts (default: a new temporary folder)')
  .option('--part-size <bytes>', 'part size given to new uploads, at least 5242880', (v) => Number(v), 5 * 1024 * 1024)
  .parse();

const opts = program.opts<{ port: number; storagePort: number; dataDir?: string; partSize: number }>();
const dataDir = opts.dataDir ? resolve(opts.dataDir) : mkdtempSync(join(tmpdir(), 'capture-service-'));
const service = await startLocalService({ dataDir, port: opts.port, storagePort: opts.storagePort, partSize: opts.partSize });
// The one line a test or a script waits for (issue 2): everything a client needs, as JSON.
process.stdout.write(`capture-service ready ${JSON.stringify({ ...service.info, dataDir })}\n`);

const stop = () => {
  void service.close().then(() => process.exit(0));
};
process.once('SIGINT', stop);
process.once('SIGTERM', stop);
