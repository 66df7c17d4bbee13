import { expect, test } from '@playwright/test';
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { whenAt } from '../../shared/when.js';
import { useApp } from './harness.js';
import { localDay, zoneOffset } from './local-time.js';

// One time format on the operator's side: the queue's headline, the hold, the queue's
// "recorded" time and the registration table's recording time all say a time the way the system's
// locale does (shared/when.ts): 12-hour in en-US, 24-hour in en-GB. The page runs under each
// locale in turn; what it shows is compared with shared/when.ts given that locale.

const app = useApp('app-when');

for (const locale of ['en-US', 'en-GB']) {
  test.describe(`under ${locale}`, () => {
    test.use({ locale });

    test('the hold, the queue headline, the queue row and the registration table say times the locale’s way', async ({
      page,
    }) => {
      // The "Pause until" field shows its time as every other time is shown (a browser's own time
      // field follows the browser's language, not the page's: "07:00 AM" on an en-GB page).
      const field = page.getByLabel('Pause until');
      const morning = whenAt(new Date(new Date().setHours(7, 0, 0, 0)).getTime(), { locale });
      await expect(field).toHaveAttribute('type', 'text');
      await expect(field).toHaveValue(morning);
      await expect(page.getByRole('button', { name: /^Pause all until / })).toHaveText(`Pause all until ${morning}`);
      // Typed in either clock, said back in the locale's.
      await field.fill('6.30 pm');
      await field.blur();
      await expect(field).toHaveValue(whenAt(new Date(new Date().setHours(18, 30, 0, 0)).getTime(), { locale }));
      await field.fill('nonsense');
      await expect(page.getByRole('button', { name: 'Pause all until then' })).toBeDisabled();
      await expect(page.getByRole('alert').filter({ hasText: 'Type a time such as' })).toHaveText(
        `Type a time such as ${morning}.`,
      );

      // Held until 06:30 (today or tomorrow): nothing uploads while the times are read.
      await field.fill('06:30');
      await page.getByRole('button', { name: /^Pause all until / }).click();
      await expect(page.getByTestId('paused-until')).toBeVisible();
      const until = app.h.queue().meta.holdInForce()!.until!;
      const held = `Paused until ${whenAt(until, { locale })}`;
      await expect(page.getByTestId('paused-until')).toContainText(held);

      // A capture queued, recorded today at 07:05:09: the headline and its row use the same form.
      const recorded = `${localDay()}T07:05:09${zoneOffset()}`;
      const queued = join(app.work, 'queued.mp4');
      writeFileSync(queued, randomBytes(3000));
      const structure = app.h.settings.view().structures[0]!.id;
      await app.h.invoke('capture:captures.register', [
        { paths: [queued], structure, type: 'interior', capturedAt: recorded },
      ]);
      await expect(page.getByTestId('queue-state')).toHaveText(held);
      await expect(page.locator('[data-testid="queue-capture"]')).toContainText(
        `recorded ${whenAt(recorded, { locale })}`,
      );

      // The registration table: the same form, to the second (two recordings can share a minute).
      const file = join(app.work, 'walk.mp4');
      writeFileSync(file, randomBytes(3000));
      await app.h.drop([file]);
      const row = page.getByTestId('capture-row');
      await row.getByRole('button', { name: /^Capture time/ }).click();
      await page.getByLabel('Capture time (local)').fill(`${localDay()}T07:05:09`);
      await expect(row.getByRole('button', { name: /^Capture time/ })).toHaveAccessibleName(
        `Capture time ${whenAt(recorded, { locale, seconds: true })}, edited: change`,
      );
    });
  });
}
