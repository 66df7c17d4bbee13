import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CLI_ENTRY, ROOT, tempQueue } from '../testing/kit.js';

// The command line promises that `--help` and `status` start without loading zod (index.ts loads
// a command's modules when it runs; the settings' flags come from the zod-free settings table,
// shared/settings-table.ts). Each is run from source with a module hook that refuses to resolve
// zod: a module on their way that imports zod, or imports a module that does, makes them fail.

/** A resolve hook (node:module register) that throws when anything resolves to the zod package. */
const REFUSE_ZOD = `export async function resolve(specifier, context, next) {
  const r = await next(specifier, context);
  if (/[\\\\/]node_modules[\\\\/]zod[\\\\/]/.test(r.url)) throw new Error('zod loaded, imported by ' + context.parentURL);
  return r;
}`;
const REGISTER = `import { register } from 'node:module'; register(${JSON.stringify(`data:text/javascript,${encodeURIComponent(REFUSE_ZOD)}`)});`;

/** Runs `entry` with `args` from source (tsx), zod refused; 60 s at most, then killed (status null). */
function runWithoutZod(entry: string, args: string[]) {
  return spawnSync(
    process.execPath,
    ['--import', 'tsx', '--import', `data:text/javascript,${encodeURIComponent(REGISTER)}`, entry, ...args],
    { cwd: ROOT, encoding: 'utf8', timeout: 60_000, env: { ...process.env, NO_COLOR: '1' } },
  );
}

const q = tempQueue('zod-free');
afterAll(() => q.close());

describe('the command line without zod', () => {
  it('the hook refuses zod: a module that imports it fails to load (the IPC contract, shared/ipc.ts)', () => {
    const r = runWithoutZod(join(ROOT, 'shared/ipc.ts'), []);
    expect(r.status).not.toBe(0);
    expect(r.stderr).toContain('zod loaded, imported by');
  });

  it('--help lists the settings and exits 0 without loading zod', () => {
    const r = runWithoutZod(CLI_ENTRY, ['--help']);
    expect([r.status, r.stderr]).toEqual([0, '']);
    expect(r.stdout).toContain('--concurrency <n>');
    expect(r.stdout).toContain('CAPTURE_BASE_URL');
  });

  it('status reads the queue and exits 0 without loading zod', () => {
    const r = runWithoutZod(CLI_ENTRY, ['--data-dir', q.dir, '--json', 'status']);
    expect([r.status, r.stderr]).toEqual([0, '']);
    expect(JSON.parse(r.stdout.trim().split('\n')[0]!)).toMatchObject({ type: 'status' });
  });
});
