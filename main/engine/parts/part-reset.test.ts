import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../../testing/kit.js';

// A part abandoned is ended with a TCP reset (part-bytes.ts reset). Node refuses the reset of a
// socket whose own FIN is on its way (libuv's uv_tcp_close_reset answers EINVAL while a shutdown
// is pending), yet marks the handle as closing all the same: it is never closed, and the process,
// its work done, spins at exit in node::Environment::CleanupHandles for good, a core at 90 %.
// That is the state an early refusal leaves: storage answers 403 with a page and closes, the
// socket ends its side in answer to storage's FIN, and the part is abandoned in that instant.

/**
 * Runs, in a process of its own, a PUT that storage refuses early and closes, abandons it with
 * part-bytes.ts's reset while the socket's shutdown is pending, and lets the process end. Resolves
 * with its exit code and what it printed; `spinning` when it had not ended within `ms` (ms), and
 * was then killed.
 */
function abandonWhileShutting(ms: number): Promise<{ spinning: boolean; code: number | null; out: string }> {
  const script = `
    import { createServer } from 'node:http';
    import { request } from 'node:http';
    import { reset } from './main/engine/parts/part-bytes.ts';
    const server = createServer((req, res) => {
      res.writeHead(403, { 'content-type': 'text/html', connection: 'close' });
      res.end('<html>denied</html>');
    });
    server.listen(0, '127.0.0.1', () => {
      const req = request({ host: '127.0.0.1', port: server.address().port, method: 'PUT', headers: { 'content-length': '5242880' } });
      req.on('error', () => {});
      req.on('socket', (socket) => {
        socket.on('error', (err) => process.stdout.write('socket error ' + err.message + '\\n'));
        socket.on('close', () => process.stdout.write('socket closed\\n'));
      });
      // The first bytes of the body are taken at once; the rest would follow after a pause.
      req.write(Buffer.alloc(64 * 1024));
      req.on('response', (res) => {
        res.resume();
        // Node ends the socket's side as the refusal ends (the service closes the connection):
        // the shutdown is pending until the loop polls again, and the part is abandoned now.
        res.on('end', () => {
          reset(req);
          server.close();
          process.stdout.write('abandoned\\n');
        });
      });
    });
  `;
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    cwd: ROOT,
    env: { ...process.env, NODE_NO_WARNINGS: '1' },
  });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (out += d.toString()));
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      resolve({ spinning: true, code: null, out });
    }, ms);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ spinning: false, code, out });
    });
  });
}

describe('a part abandoned while its socket is ending its side', () => {
  it('is closed, and the process ends once its work is done', async () => {
    // 20 s: a start through tsx on the loaded machine takes a few; a spin never ends.
    const { spinning, code, out } = await abandonWhileShutting(20_000);
    expect(spinning, out).toBe(false);
    expect(code, out).toBe(0);
    expect(out).toContain('abandoned');
    expect(out).toContain('socket closed');
    expect(out).not.toMatch(/socket error.*EINVAL/);
  }, 40_000);
});
