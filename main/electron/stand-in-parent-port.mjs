// The child's side of the stand-in utility process (main/electron/electron-stand-in.ts): gives the
// service Electron's `process.parentPort` over the fork's channel, and turns a port the stand-in
// sent away (`__standInPort`: a local socket's path, main/electron/stand-in-port.ts) into a
// MessagePortMain-like object in `e.ports`, as Electron delivers one.
import { Buffer } from 'node:buffer';
import { EventEmitter } from 'node:events';
import process from 'node:process';
import { connect } from 'node:net';
import { deserialize, serialize } from 'node:v8';

function portAt(path) {
  const port = new EventEmitter();
  const socket = connect(path);
  let started = false;
  const queued = [];
  let buf = Buffer.alloc(0);
  socket.on('data', (chunk) => {
    buf = Buffer.concat([buf, chunk]);
    while (buf.length >= 4 && buf.length >= 4 + buf.readUInt32BE(0)) {
      const n = buf.readUInt32BE(0);
      const data = deserialize(buf.subarray(4, 4 + n));
      buf = buf.subarray(4 + n);
      if (started) port.emit('message', { data, ports: [] });
      else queued.push(data);
    }
  });
  socket.on('close', () => port.emit('close'));
  socket.on('error', () => {});
  port.postMessage = (data) => {
    if (socket.destroyed) return;
    const body = serialize(data);
    const head = Buffer.alloc(4);
    head.writeUInt32BE(body.length);
    socket.write(Buffer.concat([head, body]));
  };
  port.start = () => {
    started = true;
    for (const data of queued.splice(0)) port.emit('message', { data, ports: [] });
  };
  port.close = () => socket.destroy();
  return port;
}

process.parentPort = {
  postMessage: (m) => process.send?.(m, undefined, undefined, () => {}),
  on: (event, listener) => {
    if (event !== 'message') return;
    process.on('message', (m) => {
      if (m && typeof m === 'object' && '__standInPort' in m) {
        const { __standInPort, ...data } = m;
        listener({ data, ports: [portAt(__standInPort)] });
      } else listener({ data: m, ports: [] });
    });
  },
};
// As a utility process: it ends when its parent goes.
process.on('disconnect', () => process.exit(0));
