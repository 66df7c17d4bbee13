import { execFile } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { fileURLToPath } from 'node:url';

const SCRIPT = fileURLToPath(new URL('./rgw.sh', import.meta.url));
/** The Debian binaries rgw.sh runs (packages radosgw, ceph-mon, ceph-osd, ceph-common). */
const BINARIES = [
  '/usr/bin/radosgw',
  '/usr/bin/ceph-mon',
  '/usr/bin/ceph-osd',
  '/usr/bin/ceph',
  '/usr/bin/radosgw-admin',
  '/usr/bin/ceph-authtool',
  '/usr/bin/monmaptool',
];

/** A running single-node Ceph cluster with its RADOS Gateway on loopback (see rgw.sh). */
export interface RgwCluster {
  /** The gateway's S3 endpoint, `http://127.0.0.1:PORT`. */
  endpoint: string;
  /** The key pair of the S3 user created for the run (a fresh random pair each start). */
  accessKeyId: string;
  secretAccessKey: string;
  /** Stops every daemon (by its pid file); never throws. The state folder is left to the caller. */
  stop(): Promise<void>;
}

/** The Ceph binaries rgw.sh needs that are missing; empty when the cluster can run here. */
export function missingRgwBinaries(): string[] {
  return BINARIES.filter((bin) => {
    try {
      accessSync(bin, constants.X_OK);
      return false;
    } catch {
      return true;
    }
  });
}

function run(args: string[], timeoutMs: number): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(SCRIPT, args, { timeout: timeoutMs, killSignal: 'SIGKILL' }, (err, stdout, stderr) => {
      if (err) reject(new Error(`rgw.sh ${args[0]} failed: ${err.message}\n${stderr}`));
      else resolve(stdout);
    });
  });
}

/**
 * Starts the cluster with all its state in `dir` (about 15 s; memory only, no disk). The daemons
 * are also stopped when this process dies, whatever way. Throws, with the daemons' log tails,
 * when a daemon does not come up within rgw.sh's limits; nothing is left running then.
 */
export async function startRgw(dir: string): Promise<RgwCluster> {
  const stop = () =>
    run(['stop', dir], 60_000).then(
      () => undefined,
      () => undefined,
    );
  let out: string;
  try {
    out = await run(['start', dir, String(process.pid)], 150_000);
  } catch (err) {
    await stop();
    throw err;
  }
  const m = /^RGW_ENDPOINT=(\S+) RGW_ACCESS_KEY=(\S+) RGW_SECRET_KEY=(\S+)$/m.exec(out);
  if (!m) {
    await stop();
    throw new Error(
      `rgw.sh start printed no RGW_ENDPOINT line: ${out.replace(/RGW_SECRET_KEY=\S+/g, 'RGW_SECRET_KEY=…')}`,
    );
  }
  return { endpoint: m[1]!, accessKeyId: m[2]!, secretAccessKey: m[3]!, stop };
}
