// Electron's MessagePortMain for the stand-in (main/electron/electron-stand-in.ts), across the
// process boundary a real one crosses: the Electron binary cannot run here, and a fork's channel
// carries no ports. A port handed to the stand-in's utility process becomes one end of a local
// socket (a Unix socket or Windows pipe in a folder of the test's own), structured-clone framed;
// the child's side (stand-in-parent-port.mjs) gives the service the same `process.parentPort`
// with `e.ports` that Electron does. Messages on such a port go between the two processes only:
// nothing passes through the main process's relay.
import { EventEmitter } from 'node:events';
import { mkdtempSync } from 'node:fs';
import type { Server, Socket } from 'node:net';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { deserialize, serialize } from 'node:v8';

/** One end of a stand-in channel: MessagePortMain's surface (postMessage, 'message' with `{ data }`, 'close', start, close). */
export class StandInPort extends EventEmitter {
  /** The other end, while both are in this process. */
  peer?: StandInPort;
  /** The socket this end speaks on, once its peer went to another process. */
  private socket?: Socket;
  private started = false;
  private queued: unknown[] = [];
  private closed = false;

  postMessage(data: unknown): void {
    if (this.closed) return;
    if (this.socket) return writeFrame(this.socket, data);
    this.peer?.deliver(data);
  }

  start(): void {
    this.started = true;
    for (const d of this.queued.splice(0)) this.emit('message', { data: d, ports: [] });
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.socket?.destroy();
    this.peer?.emit('close');
    this.emit('close');
  }

  deliver(data: unknown): void {
    if (this.started) this.emit('message', { data, ports: [] });
    else this.queued.push(data);
  }

  /**
   * Sends this end to another process (a utility process's postMessage transfer): its peer, which
   * stays here, then speaks on a local socket the other process connects to. Answers that socket's path.
   */
  async transfer(): Promise<string> {
    const peer = this.peer!;
    this.peer = undefined;
    peer.peer = undefined;
    const dir = mkdtempSync(join(tmpdir(), 'stand-in-port-'));
    const path = process.platform === 'win32' ? `\\\\.\\pipe\\${dir.replace(/\W/g, '')}` : join(dir, 'port.sock');
    const server: Server = createServer((socket) => {
      server.close();
      peer.socket = socket;
      readFrames(socket, (d) => peer.deliver(d));
      socket.on('error', () => {});
      socket.on('close', () => {
        if (peer.closed) return;
        peer.closed = true;
        peer.emit('close');
      });
    });
    await new Promise<void>((resolve) => server.listen(path, resolve));
    return path;
  }
}

/** Electron's MessageChannelMain, stand-in. */
export class StandInChannel {
  readonly port1 = new StandInPort();
  readonly port2 = new StandInPort();
  constructor() {
    this.port1.peer = this.port2;
    this.port2.peer = this.port1;
  }
}

/** Writes one structured-clone frame: a 4-byte length, then v8.serialize's bytes. */
function writeFrame(socket: Socket, data: unknown): void {
  const body = serialize(data);
  const head = Buffer.alloc(4);
  head.writeUInt32BE(body.length);
  socket.write(Buffer.concat([head, body]));
}

/** Reads the frames `writeFrame` writes, calling `on` with each one's value. */
function readFrames(socket: Socket, on: (data: unknown) => void): void {
  let buf = Buffer.alloc(0);
  socket.on('data', (chunk: Buffer) => {
    buf = Buffer.concat([buf, chunk]);
    while (buf.length >= 4 && buf.length >= 4 + buf.readUInt32BE(0)) {
      const n = buf.readUInt32BE(0);
      on(deserialize(buf.subarray(4, 4 + n)));
      buf = buf.subarray(4 + n);
    }
  });
}
