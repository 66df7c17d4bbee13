// The local service in a child process (e2e/service/cli.ts under tsx): its storage and gateway
// work stay off the thread a benchmark measures.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import type { LocalServiceInfo } from '../../e2e/service/index.js';
import { ROOT } from '../measure.js';

/** A local service running in its own process: its ready info, the admin interface, and `stop()`. */
export interface ServiceProcess {
  info: LocalServiceInfo;
  /** Calls the admin interface (JSON body). */
  admin(method: string, path: string, body?: unknown): Promise<Response>;
  stop(): Promise<void>;
}

/** Starts the local service with its state in `dataDir`; resolves once it printed its ready line. */
export async function serviceProcess(dataDir: string): Promise<ServiceProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'e2e/service/cli.ts'), '--data-dir', dataDir], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const lines = createInterface({ input: child.stdout! });
  const [line] = (await once(lines, 'line')) as [string];
  const info = JSON.parse(line.replace(/^capture-service ready /, '')) as LocalServiceInfo;
  return {
    info,
    admin: (method, path, body) =>
      fetch(`${info.adminUrl}${path}`, {
        method,
        headers: { 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      }),
    stop: async () => {
      const exited = once(child, 'exit');
      child.kill('SIGTERM');
      await exited;
    },
  };
}
