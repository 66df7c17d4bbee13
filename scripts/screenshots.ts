// The README's screenshots, renewed in one command: `npm run screenshots`.
//
// Runs only the Playwright tests that take the chosen pictures (e2e/app/shots.ts saves each state at
// 1280×800 as `NAME-large.png` and at 820×560 as `NAME-small.png` under test-results/e2e/), then
// copies the chosen ones into docs/screenshots/ under the names the README uses, through `optipng`
// when it is installed (Debian: `apt-get install optipng`). Not part of `npm test` or CI: the
// pictures are documentation, and the tests behind them already run there.
//
// The renderer must be built first (`npm run screenshots` does it); E2E_PORT picks the preview
// server's port as for the e2e tests. Everything shown comes from the local test service: no real
// account, token or presigned URL can appear.
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './measure.js';

/** One README picture: its name in docs/screenshots/, the shot it copies, and the test taking it. */
interface Shot {
  /** File name under docs/screenshots/. */
  readonly file: string;
  /** The shot's file name as shots.ts (or page.screenshot) writes it under test-results/e2e/. */
  readonly from: string;
  /** The e2e file holding the test. */
  readonly spec: string;
  /** A fragment of the test's title, passed to Playwright's --grep. */
  readonly title: string;
}

/** The chosen pictures, in the README's order. */
const SHOTS: readonly Shot[] = [
  {
    file: 'queue-820x560.png',
    from: 'queue-rows-small.png',
    spec: 'e2e/app/queue-rows.e2e.ts',
    title: 'one line per capture at 820×560',
  },
  {
    file: 'waiting-for-storage.png',
    from: '18-waiting-for-storage-large.png',
    spec: 'e2e/app/screen.e2e.ts',
    title: 'storage cut',
  },
  {
    file: 'warnings-before-confirm.png',
    from: '18-warnings-before-confirm-large.png',
    spec: 'e2e/app/screen.e2e.ts',
    title: 'warnings travel to the finish line',
  },
  {
    file: 'finish-with-warnings.png',
    from: '18-finish-with-warnings-large.png',
    spec: 'e2e/app/screen.e2e.ts',
    title: 'warnings travel to the finish line',
  },
  {
    file: 'morning-summary.png',
    from: '18-morning-summary-large.png',
    spec: 'e2e/app/screen.e2e.ts',
    title: 'storage cut',
  },
  {
    file: 'keyboard-walk-place.png',
    from: '30-keyboard-walk-place-large.png',
    spec: 'e2e/app/keyboard.e2e.ts',
    title: 'by keyboard alone in at most 25 key presses',
  },
  {
    file: 'capture-plan.png',
    from: '40-capture-plan-large.png',
    spec: 'e2e/app/plan.e2e.ts',
    title: 'a plan of 4 walks written in the Plan panel',
  },
  {
    file: 'card-placed-by-plan.png',
    from: '41-card-placed-by-plan-large.png',
    spec: 'e2e/app/plan.e2e.ts',
    title: 'a plan of 4 walks written in the Plan panel',
  },
  {
    file: 'card-safe-to-remove.png',
    from: '31-card-safe-to-remove-large.png',
    spec: 'e2e/app/card-import.e2e.ts',
    title: 'a card that appears is offered',
  },
  {
    file: 'card-copying-register.png',
    from: '33-card-copying-register-large.png',
    spec: 'e2e/app/card-place-while-copying.e2e.ts',
    title: 'recordings placed while their card is copied',
  },
  {
    file: 'queue-waiting-for-copy.png',
    from: '34-queue-waiting-for-copy-large.png',
    spec: 'e2e/app/card-place-while-copying.e2e.ts',
    title: 'recordings placed while their card is copied',
  },
  {
    file: 'register-thumbnails.png',
    from: '40-register-thumbnails-large.png',
    spec: 'e2e/app/thumbnails.e2e.ts',
    title: 'first frame',
  },
  {
    file: 'office-progress.png',
    from: 'office-progress-entry-form-large.png',
    spec: 'e2e/app/records-a11y.e2e.ts',
    title: 'the Progress workspace: calendar',
  },
  {
    file: 'queue-dark.png',
    from: 'queue-dark-large.png',
    spec: 'e2e/app/dark-theme.e2e.ts',
    title: 'the upload screen: registration table, queue with rows, and Settings (dark)',
  },
  {
    file: 'office-assets.png',
    from: 'office-assets-drawing-large.png',
    spec: 'e2e/app/records-a11y.e2e.ts',
    title: 'the Assets view: drawing',
  },
];

/** Regex metacharacters escaped, so a title fragment is matched as written. */
function literal(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** Every file under `dir` (recursively) by base name; the first found wins. */
function filesByName(dir: string): Map<string, string> {
  const found = new Map<string, string>();
  const walk = (at: string): void => {
    for (const entry of readdirSync(at, { withFileTypes: true })) {
      const path = join(at, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (!found.has(entry.name)) found.set(entry.name, path);
    }
  };
  walk(dir);
  return found;
}

function main(): number {
  const specs = [...new Set(SHOTS.map((s) => s.spec))];
  const grep = [...new Set(SHOTS.map((s) => literal(s.title)))].join('|');
  // One Playwright run: it empties test-results/e2e/ when it starts, so a second run would lose the first's shots.
  const run = spawnSync('npx', ['playwright', 'test', '-c', 'e2e/playwright.config.ts', '--grep', grep, ...specs], {
    cwd: ROOT,
    stdio: 'inherit',
  });
  const found = filesByName(join(ROOT, 'test-results', 'e2e'));
  const target = join(ROOT, 'docs', 'screenshots');
  mkdirSync(target, { recursive: true });
  const optipng = spawnSync('optipng', ['-v']).status === 0;
  let missing = 0;
  for (const shot of SHOTS) {
    const source = found.get(shot.from);
    if (!source) {
      console.error(`missing: ${shot.from} (${shot.spec}, "${shot.title}")`);
      missing += 1;
      continue;
    }
    const path = join(target, shot.file);
    copyFileSync(source, path);
    if (optipng) spawnSync('optipng', ['-quiet', '-o2', '-strip', 'all', path], { stdio: 'inherit' });
    console.log(`${shot.file} ← ${shot.from} (${Math.round(statSync(path).size / 1024)} KiB)`);
  }
  if (!optipng) console.log('optipng not found: pictures copied as Chromium wrote them.');
  return run.status !== 0 || missing > 0 ? 1 : 0;
}

process.exitCode = main();
