// `npm run release:sign -- COMMAND …`: makes and updates the app's signed update repository
// (repository.ts; docs/desktop-app.md, "Publishing a signed update"). Keys come from `--keys DIR`
// (`<role>*.pem`) and the environment (`CAPTURE_UPDATE_<ROLE>_KEY`); every failure is one line
// naming what to do, exit status 1.
import { Command, InvalidArgumentError } from 'commander';
import { APP_ID } from '../../shared/app-info.js';
import type { Role } from './keys.js';
import { ROLES } from './keys.js';
import { addRelease, initRepository, readRepository, refreshRepository, rotateKeys } from './repository.js';

const roleList = (v: string): Role[] => {
  const roles = v.split(',').map((s) => s.trim());
  for (const r of roles)
    if (!(ROLES as readonly string[]).includes(r))
      throw new InvalidArgumentError(`not a role: ${r} (${ROLES.join(', ')})`);
  return roles as Role[];
};
/** `role=N` pairs, repeatable: `--threshold targets=2 --expires timestamp=7`. */
const rolePairs = (v: string, prev: Partial<Record<Role, number>> = {}) => {
  const m = /^(root|targets|snapshot|timestamp)=(\d+)$/.exec(v);
  if (!m || Number(m[2]) < 1) throw new InvalidArgumentError(`expected ROLE=N with N ≥ 1, such as timestamp=30: ${v}`);
  return { ...prev, [m[1]!]: Number(m[2]) };
};
const keysFrom = (dir: string | undefined) => ({ dir, env: process.env });

const program = new Command('release:sign')
  .description(
    "Signs the app's releases into an update repository (The Update Framework) a site serves as a plain folder.",
  )
  .showHelpAfterError();

program
  .command('init')
  .description('makes a new repository and its keys (root, targets, snapshot, timestamp); keep the root key offline')
  .requiredOption('--repo <dir>', 'the repository folder (what the feed serves)')
  .requiredOption('--keys <dir>', 'where the new private keys are written (mode 0600)')
  .option('--app-root <file>', 'where the root the app pins is written', 'assets/update-root.json')
  .option('--threshold <role=n>', 'signatures a role needs (repeatable); as many keys are made', rolePairs, {})
  .option('--expires <role=days>', 'how long a role is valid (repeatable)', rolePairs, {})
  .action(
    (o: {
      repo: string;
      keys: string;
      appRoot: string;
      threshold: Partial<Record<Role, number>>;
      expires: Partial<Record<Role, number>>;
    }) => {
      const made = initRepository({
        repo: o.repo,
        keys: keysFrom(o.keys),
        keysDir: o.keys,
        appRoot: o.appRoot,
        thresholds: o.threshold,
        expiryDays: o.expires,
      });
      console.log(`Made ${made.root} and ${o.appRoot} (commit it: the app trusts only this root).`);
      console.log(
        `Keys: ${made.keyFiles.join(', ')}. Move the root key offline now; targets, snapshot and timestamp sign releases.`,
      );
    },
  );

program
  .command('add')
  .description("signs electron-builder's output (latest*.yml and the installers they name) into the repository")
  .requiredOption('--repo <dir>', 'the repository folder')
  .requiredOption('--from <dir>', "electron-builder's output folder", 'release')
  .option('--keys <dir>', 'the folder of private keys (else the environment only)')
  .option('--app-id <id>', 'the app the release is for', APP_ID)
  .option('--expires <role=days>', 'how long a role is valid (repeatable)', rolePairs, {})
  .action((o: { repo: string; from: string; keys?: string; appId: string; expires: Partial<Record<Role, number>> }) => {
    const r = addRelease({ repo: o.repo, from: o.from, keys: keysFrom(o.keys), appId: o.appId, expiryDays: o.expires });
    const { timestamp } = readRepository(o.repo);
    console.log(`Signed version ${r.version} into ${o.repo}: ${r.targets.join(', ')}.`);
    console.log(
      `Copy ${o.repo} to the feed as it is (metadata/ and targets/). The timestamp expires ${timestamp.signed.expires}: run "refresh" before then.`,
    );
  });

program
  .command('refresh')
  .description('signs the timestamp again (and with --roles, the snapshot and targets) before it expires')
  .requiredOption('--repo <dir>', 'the repository folder')
  .option('--keys <dir>', 'the folder of private keys (else the environment only)')
  .option('--roles <list>', 'which roles to sign again: timestamp, snapshot, targets', roleList, [
    'timestamp',
  ] as Role[])
  .option('--expires <role=days>', 'how long a role is valid (repeatable)', rolePairs, {})
  .action((o: { repo: string; keys?: string; roles: Role[]; expires: Partial<Record<Role, number>> }) => {
    if (o.roles.includes('root')) throw new InvalidArgumentError('the root is signed again by "rotate --role root"');
    const s = refreshRepository({
      repo: o.repo,
      keys: keysFrom(o.keys),
      roles: o.roles as never,
      expiryDays: o.expires,
    });
    console.log(`Timestamp version ${s.timestamp.signed.version}, valid until ${s.timestamp.signed.expires}.`);
  });

program
  .command('rotate')
  .description("replaces a role's keys: a new root signed by the old root's keys (and the new ones for root)")
  .requiredOption('--repo <dir>', 'the repository folder')
  .requiredOption('--role <role>', 'root, targets, snapshot or timestamp')
  .requiredOption('--keys <dir>', 'the folder of private keys; the new ones are written there')
  .option('--threshold <n>', 'signatures the role needs from now on', (v) => Number(v))
  .action((o: { repo: string; role: Role; keys: string; threshold?: number }) => {
    if (!(ROLES as readonly string[]).includes(o.role)) throw new InvalidArgumentError(`not a role: ${o.role}`);
    const r = rotateKeys({
      repo: o.repo,
      role: o.role,
      keys: keysFrom(o.keys),
      keysDir: o.keys,
      threshold: o.threshold,
    });
    console.log(`Root version ${r.rootVersion} lists the new ${o.role} key(s): ${r.keyFiles.join(', ')}.`);
    if (r.retired.length) console.log(`No longer trusted, destroy: ${r.retired.join(', ')}.`);
    console.log(`Copy ${o.repo} to the feed. Apps that trust an older root follow the chain of roots.`);
  });

try {
  program.parse();
} catch (err) {
  console.error(`release:sign: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
}
