// A fault seam for the engine's reads of a file (part-bytes.ts reads parts with node:fs open and
// read): node:fs wrapped so that the read of one file at one position fails with an errno code,
// as many times as asked. A test file mocks node:fs with a factory that loads this module
// dynamically and hands `faultyFs` the real module (see main/engine/parts/card-read-error.test.ts), then
// sets `readFault`. This module imports nothing of node:fs itself (it would get the mock). Test
// code only.

/** Which read fails, with what, how often (`times`, Infinity for every time), and what it did. */
export const readFault = {
  path: '',
  position: -1,
  code: 'EIO',
  times: 0,
  fired: 0,
  onFire: undefined as (() => void) | undefined,
  /** Open descriptors and their paths (so a read can be matched to its file). */
  fds: new Map<number, string>(),
};

/** Sets the fault back to none (call it after each test). */
export function clearReadFault(): void {
  Object.assign(readFault, { path: '', position: -1, code: 'EIO', times: 0, fired: 0, onFire: undefined });
}

/** `real` node:fs with open, close and read wrapped as readFault says; for vi.mock's factory. */
export function faultyFs<T extends typeof import('node:fs')>(real: T): T & { default: T } {
  type Cb = (err: NodeJS.ErrnoException | null, ...rest: unknown[]) => void;
  const fault = readFault;
  const open = (path: unknown, ...rest: unknown[]) => {
    const cb = rest.pop() as Cb;
    (real.open as unknown as (...a: unknown[]) => void)(
      path,
      ...rest,
      (err: NodeJS.ErrnoException | null, fd: number) => {
        if (!err) fault.fds.set(fd, String(path));
        cb(err, fd);
      },
    );
  };
  const close = (fd: number, ...rest: unknown[]) => {
    fault.fds.delete(fd);
    (real.close as unknown as (...a: unknown[]) => void)(fd, ...rest);
  };
  const read = (fd: number, buffer: Buffer, offset: number, length: number, position: number, cb: Cb) => {
    if (fault.times > 0 && fault.fds.get(fd) === fault.path && position === fault.position) {
      fault.times--;
      fault.fired++;
      fault.onFire?.();
      const err = Object.assign(new Error(`${fault.code}: i/o error, read`), { code: fault.code, syscall: 'read' });
      process.nextTick(() => cb(err, 0, buffer));
      return;
    }
    real.read(fd, buffer, offset, length, position, cb as never);
  };
  const wrapped = { ...real, open, close, read } as T;
  return { ...wrapped, default: wrapped };
}
