import { expect, test } from '@playwright/test';
import { whenDated } from '../../shared/when.js';
import { useApp } from './harness.js';

// The default designs' warning (capture-upload-interface.md §4.3) as the office reads it: on the
// Upload, Progress and Assets workspaces alike, naming the project and the structures and designs
// the settings hold (§4.3 gives one time for the whole project, not which design changed), the
// change's date and time, and, while a new export is requested (§4.2) from a gateway that fails,
// that the request is being tried again and why.
const LOCALE = 'en-GB';
test.use({ locale: LOCALE });

const app = useApp('app-design-banner');

/** Marks the first structure's first design changed at `updatedAt` (ISO 8601), and reloads. */
async function designChanged(page: import('@playwright/test').Page, updatedAt: string): Promise<void> {
  const design = app.h.svc.store.state.projects[0]!.structures[0]!.designs[0]!;
  const res = await app.h.svc.admin('POST', `/projects/${app.h.svc.info.projectId}/designs/${design.id}/touch`, {
    updatedAt,
  });
  expect(res.status).toBe(200);
  await page.reload();
}

test('the warning shows on every workspace, naming the project, its structures and designs, with the date and time', async ({
  page,
}) => {
  // Later than every seeded design, so it is the project's latest (§4.3): said with its date,
  // its year and its time, never the time alone.
  const changed = '2026-11-28T23:17:00.000Z';
  await designChanged(page, changed);
  const when = whenDated(changed, { locale: LOCALE });
  expect(when).toMatch(/^(28|29) Nov 2026, \d\d:\d7$/);
  const structures = app.h.settings.view().structures;
  expect(structures.length).toBeGreaterThan(1);
  const banner = page.getByTestId('design-banner');
  for (const tab of ['Upload', 'Progress', 'Assets']) {
    await page.getByRole('tab', { name: tab }).click();
    await expect(banner, tab).toContainText(`Harbor View Medical Center’s default capture designs changed on ${when}`);
    await expect(banner, tab).toContainText('the capture sheets were never exported from this computer');
    // One time for the whole project (§4.3): the structures and designs to check, by name.
    for (const s of structures)
      await expect(banner, tab).toContainText(`${s.name} (${s.designs.map((d) => d.name).join(', ')})`);
  }
  await expect(page.getByRole('heading', { name: 'Assets' })).toBeVisible();
});

test('while the export request is tried again against a failing gateway, the warning says so and why', async ({
  page,
}) => {
  await designChanged(page, new Date(Date.now() - 60_000).toISOString());
  await page.getByRole('tab', { name: 'Progress' }).click();
  // The gateway fails the export request twice, then takes it.
  await app.h.svc.admin('POST', '/faults', {
    target: 'gateway',
    operation: 'project-folder-with-default-sheet',
    times: 2,
    action: { type: 'status', status: 503 },
  });
  const banner = page.getByTestId('design-banner');
  await banner.getByRole('button', { name: 'Request a new export' }).click();
  await expect(banner.getByTestId('export-sending')).toHaveText(
    /^Requesting a new export: the gateway did not take it \(capture service unavailable\); trying again in \d+ s \(retry 1 of \d+\)\.$/,
  );
  await expect(banner.getByTestId('export-sending')).toContainText('(retry 2 of');
  await expect(page.getByText('Export requested: Project folder with default sheets is being generated.')).toBeVisible({
    timeout: 30_000,
  });
  await expect.poll(() => app.h.svc.store.state.emails.map((e) => e.to)).toContain(app.h.svc.info.account.email);
});
