// electron-updater reads only what TUF verified (docs/decisions/0036-updates-tuf.md): its generic
// provider is pointed at this feed on the loopback interface, which serves the verified channel
// file and, once verified, the installer, from the app's updates folder, and nothing else. So
// electron-updater's own HTTP (which in Electron follows any redirect and bounds nothing) never
// reaches the network, and its install step (NSIS, dpkg, AppImage, Squirrel.Mac) is kept.
import { randomBytes } from 'node:crypto';
import { createReadStream, statSync } from 'node:fs';
import type { Server } from 'node:http';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A feed on 127.0.0.1 of files chosen by name; `url` is its address for electron-updater's generic provider. */
export class LoopbackFeed {
  private readonly files = new Map<string, string>();
  private readonly secret = randomBytes(12).toString('hex');
  private server: Server | undefined;
  private port = 0;

  /** The address to give electron-updater (`setFeedURL({ provider: 'generic', url })`); valid once started. */
  get url(): string {
    return `http://127.0.0.1:${this.port}/${this.secret}`;
  }

  /** Serves `path` as `name` from now on (a verified file). */
  add(name: string, path: string): void {
    this.files.set(name, path);
  }

  /** Listens on a free port of 127.0.0.1 (an unguessable path prefix besides). Rejects when it cannot listen. */
  async start(): Promise<void> {
    if (this.server) return;
    const server = createServer((req, res) => {
      const url = new URL(req.url ?? '/', 'http://127.0.0.1');
      const [, secret, name] = url.pathname.split('/');
      const path = secret === this.secret && name ? this.files.get(decodeURIComponent(name)) : undefined;
      if (req.method !== 'GET' || !path) {
        res.writeHead(404).end();
        return;
      }
      let size: number;
      try {
        size = statSync(path).size;
      } catch {
        res.writeHead(404).end();
        return;
      }
      res.writeHead(200, { 'content-length': size, 'content-type': 'application/octet-stream' });
      createReadStream(path).pipe(res);
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve());
    });
    this.server = server;
    this.port = (server.address() as AddressInfo).port;
  }

  /** Stops listening and drops its connections. */
  async close(): Promise<void> {
    const s = this.server;
    this.server = undefined;
    if (!s) return;
    s.closeAllConnections();
    await new Promise<void>((resolve) => s.close(() => resolve()));
  }
}
