import { execFile } from 'node:child_process';
import { rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

// The README's main job, as a person runs it: `npm run demo -- FILE…` builds the local service
// package and the CLI, and the built CLI loads the service by its package name (a dynamic import
// the bundler leaves to Node), so this fails if the package cannot be found or loaded.
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const fixture = (name: string) => fileURLToPath(new URL(`../../shared/fixtures/${name}`, import.meta.url));
let demoDir: string | undefined;
afterAll(() => {
  if (demoDir) rmSync(demoDir, { recursive: true, force: true });
});

describe('npm run demo', () => {
  it('registers and uploads the two fixture recordings against the local service package', async () => {
    const { stdout, stderr } = await promisify(execFile)(
      'npm',
      ['run', 'demo', '--silent', '--', fixture('sample.insv'), fixture('walkthrough.mp4')],
      {
        cwd: ROOT,
        env: { ...process.env, AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
      },
    );
    demoDir = /queue and storage in (\S+)/.exec(stderr)?.[1];
    expect(demoDir).toBeDefined();
    expect(stdout).toMatch(/^completed +sample\.insv$/m);
    expect(stdout).toMatch(/^completed +walkthrough\.mp4$/m);
    expect(stdout).toContain('2 file(s) completed, 0 failed, 0 paused, 0 waiting to be sent.');
  });
});
