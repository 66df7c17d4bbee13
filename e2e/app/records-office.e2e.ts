import type { Page } from '@playwright/test';
import { readFile, writeFile } from 'node:fs/promises';
import { expect, test } from '@playwright/test';
import { localDate, localMonth } from '../../shared/when.js';
import { chooseLocalService, useApp } from './harness.js';
import { contrast } from './contrast.js';
import { missingFromPdf } from './pdf-text.js';
import { localDay } from './local-time.js';
import { entryKeptThenRefused, entryRefusedInOutbox, openProgressTab, seedCapture } from './records-steps.js';

// The office workspace finished, in Debian's Chromium over the real app core and the
// local service's progress interface: entries on the right day, refused entries corrected, the
// service's own sign-in, answers that say they failed, the day's captures, and the month report.
// Dates on the page are in the office's one format (shared/when.ts) for this locale.
const LOCALE = 'en-GB';
test.use({ locale: LOCALE });
const date = (ymd: string) => localDate(ymd, { locale: LOCALE });

const app = useApp('app-records-office', { setUp: 'none' });

async function setUpLocal(page: Page) {
  await chooseLocalService(page);
  await expect(page.getByText('Local test service')).toBeVisible();
}

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Opens the Progress tab and waits for the first read. */
async function openProgress(page: Page) {
  await setUpLocal(page);
  await openProgressTab(page);
}

/** Goes back to the month of `date` (YYYY-MM-DD) from today's and chooses that day. */
async function browseTo(page: Page, date: string) {
  const today = localDay();
  const monthsBack =
    (Number(today.slice(0, 4)) - Number(date.slice(0, 4))) * 12 + Number(today.slice(5, 7)) - Number(date.slice(5, 7));
  for (let i = 0; i < monthsBack; i++) await page.getByRole('button', { name: 'Previous month' }).click();
  await page.locator(`[data-day="${date}"]`).click();
}

test('a new entry made while a past day is browsed lands on today, and an opened entry closes when the calendar moves', async ({
  page,
}, info) => {
  await openProgress(page);
  const today = localDay();
  const past = app.h.svc.store.state.progress.filter((p) => p.date < today).at(-1)!;
  await browseTo(page, past.date);
  const day = page.getByTestId('day-view');
  await day.getByRole('button', { name: `Open entry ${past.id}` }).click();
  await expect(page.getByRole('dialog', { name: `Progress entry ${past.id} of ${past.date}` })).toBeVisible();
  // The form says the date it will use: today, not the day browsed.
  const form = page.getByRole('region', { name: 'Record progress' });
  await expect(form.getByLabel('Date')).toHaveValue(today);
  const details = 'Tower B level 5 firestopping at risers R1–R4.';
  await form.getByLabel('Details').fill(details);
  await form.getByRole('button', { name: 'Record entry' }).click();
  await expect(form).toContainText(`for ${date(today)}.`);
  expect(app.h.svc.store.state.progress.filter((p) => p.details === details)).toEqual([
    { id: expect.any(String), projectId: app.h.svc.info.projectId, date: today, status: 'In Progress', details },
  ]);
  // The calendar went to the new entry's day; the entry opened on the past day is closed.
  await expect(page.locator('[role="gridcell"][aria-selected="true"] button')).toHaveAttribute('data-day', today);
  await expect(page.getByTestId('entry-detail')).toHaveCount(0);

  // The date can be changed: an entry for the past day lands there.
  await form.getByLabel('Date').fill(past.date);
  await form.getByLabel('Details').fill(`${details} (late)`);
  await form.getByRole('button', { name: 'Record entry' }).click();
  await expect(form).toContainText(`for ${date(past.date)}.`);
  expect(app.h.svc.store.state.progress.filter((p) => p.details === `${details} (late)`).map((p) => p.date)).toEqual([
    past.date,
  ]);
  await expect(form.getByLabel('Date')).toHaveValue(today);

  // Moving the calendar with an entry open closes it.
  await day.getByRole('button', { name: `Open entry ${past.id}` }).click();
  await expect(page.getByTestId('entry-detail')).toBeVisible();
  await page.getByRole('button', { name: 'Next month' }).click();
  await expect(page.getByTestId('entry-detail')).toHaveCount(0);
  await page.screenshot({ path: info.outputPath('25-progress-new-today.png'), fullPage: true });
});

test('a refused entry opens in the form with the message beside its field, and goes out once corrected', async ({
  page,
}, info) => {
  await setUpLocal(page);
  // Kept while the service is away; back online, the service refuses it, in a 201 that says it failed.
  const item = await entryRefusedInOutbox(page, app.h, 'level 3 done');
  await expect(item).toContainText('details must name a structure');
  await item.getByRole('button', { name: 'Correct and send again' }).click();
  const fix = page.getByRole('region', { name: 'Correct a refused entry' });
  await expect(fix.getByLabel('Details')).toHaveValue('level 3 done');
  await expect(fix.getByLabel('Details')).toHaveAttribute('aria-invalid', 'true');
  await expect(fix.getByTestId('details-refusal')).toContainText('details must name a structure');
  await expect(fix.getByLabel('Details')).toHaveAccessibleDescription(/details must name a structure/);
  await expect(fix.getByLabel('Date')).toHaveValue(localDay());
  await page.screenshot({ path: info.outputPath('26-progress-refused-edit.png'), fullPage: true });
  await fix.getByLabel('Details').fill('Tower A level 3 slab pour done.');
  await fix.getByRole('button', { name: 'Send again' }).click();
  await expect(page.getByTestId('outbox')).toHaveCount(0);
  await expect(page.getByRole('region', { name: 'Record progress' })).toContainText('Recorded');
  expect(app.h.svc.store.state.progress.filter((p) => p.details.includes('level 3'))).toEqual([
    {
      id: expect.any(String),
      projectId: app.h.svc.info.projectId,
      date: localDay(),
      status: 'In Progress',
      details: 'Tower A level 3 slab pour done.',
    },
  ]);
});

test('an answer with success: false is shown as a failure with its message, and nothing is recorded', async ({
  page,
}) => {
  await openProgress(page);
  await app.h.svc.admin('POST', '/faults', {
    target: 'progress',
    operation: 'progress',
    method: 'POST',
    action: { type: 'json', status: 200, body: { success: false, message: 'Project is closed for entries' } },
  });
  const before = app.h.svc.store.state.progress.length;
  const form = page.getByRole('region', { name: 'Record progress' });
  await form.getByLabel('Details').fill('Tower C level 1 formwork struck.');
  await form.getByRole('button', { name: 'Record entry' }).click();
  await expect(form.getByRole('alert')).toHaveText(
    'The progress service refused the request: Project is closed for entries. Correct it and try again.',
  );
  await expect(form).not.toContainText('Recorded');
  expect(app.h.svc.store.state.progress).toHaveLength(before);
  await expect(page.getByTestId('outbox')).toHaveCount(0);
});

test('signs in to the progress service when it demands a token, keeps the token sealed, and says "Invalid credentials" in plain words', async ({
  page,
}, info) => {
  await setUpLocal(page);
  // The key alone, as §5 says: no sign-in happens.
  await openProgressTab(page);
  expect(app.h.store.get('progressTokens')).toBeUndefined();

  // The service now demands its own sign-in's token: the workspace signs in and carries on.
  await app.h.svc.admin('PUT', '/settings', { progressRequiresToken: true });
  await page.getByRole('button', { name: 'Refresh' }).click();
  await expect(page.getByTestId('progress-as-of')).toContainText('Up to date as of');
  const form = page.getByRole('region', { name: 'Record progress' });
  await form.getByLabel('Details').fill('Tower A level 6 sprinkler mains pressure tested.');
  await form.getByRole('button', { name: 'Record entry' }).click();
  await expect(form).toContainText('Recorded');
  expect(app.h.svc.store.state.progress.filter((p) => p.details.startsWith('Tower A level 6 sprinkler'))).toHaveLength(
    1,
  );
  // Kept sealed, like the password and API key: no token in clear text in the settings store.
  const kept = JSON.stringify(app.h.store.get('progressTokens'));
  expect(kept).toContain('sealed:');
  expect(kept).not.toMatch(/eyJ[\w-]+\.[\w-]+\.[\w-]+/);

  // The account stops working and the token expires: the workspace and the settings say so in words.
  app.h.svc.store.state.accounts[0]!.password = 'changed-by-the-admin';
  await app.h.svc.admin('POST', '/tokens/expire');
  await page.getByRole('button', { name: 'Refresh' }).click();
  const plain =
    'The progress service did not accept the email and password (Invalid credentials): correct them in Settings.';
  await expect(page.getByTestId('progress-as-of')).toHaveText(plain);
  await page.getByRole('tab', { name: 'Settings' }).click();
  await page.getByRole('button', { name: 'Check progress sign-in' }).click();
  await expect(page.getByTestId('progress-signin')).toHaveText(plain);
  await page.screenshot({ path: info.outputPath('27-progress-signin-refused.png'), fullPage: true });
  app.h.svc.store.state.accounts[0]!.password = app.h.svc.info.account.password;
  await page.getByRole('button', { name: 'Check progress sign-in' }).click();
  await expect(page.getByTestId('progress-signin')).toHaveText(
    `Signed in to the progress service as ${app.h.svc.info.account.email}.`,
  );
});

test("the day view lists that day's captures from the queue, and each links to its row there", async ({
  page,
}, info) => {
  await setUpLocal(page);
  const structure = app.h.settings.view().structures[0]!;
  const day = app.h.svc.store.state.progress.filter((p) => p.date < localDay()).at(-1)!.date;
  const walk = seedCapture(app.h, 'Level 4 walk', `${day}T07:45:00-05:00`);
  seedCapture(app.h, 'Roof walk', `${day}T15:10:00-05:00`, { state: 'rejected', uploaded: 0 });
  seedCapture(app.h, 'Another day', `${day.slice(0, 8)}${day.slice(8) === '01' ? '02' : '01'}T09:00:00-05:00`);
  await page.reload();
  await openProgressTab(page);
  await browseTo(page, day);
  const captures = page.getByTestId('day-view').getByTestId('day-capture');
  await expect(captures).toHaveCount(2);
  await expect(captures.nth(0)).toContainText(`Uploaded${structure.name} · Level 4 walk`);
  await expect(captures.nth(0)).toContainText(/2 of 2 files uploaded · uploaded \w/);
  await expect(captures.nth(1)).toContainText(`Needs you: refused by the service${structure.name} · Roof walk`);
  await expect(captures.nth(1)).toContainText('0 of 2 files uploaded');
  await expect(captures.nth(1)).not.toContainText('· uploaded');
  await page.screenshot({ path: info.outputPath('28-progress-day-captures.png'), fullPage: true });
  await captures.nth(0).getByRole('button', { name: 'Show Level 4 walk in the queue' }).click();
  await expect(page.getByRole('tab', { name: 'Upload' })).toHaveAttribute('aria-selected', 'true');
  const row = page.locator(`[data-capture-row="${walk}"]`);
  await expect(row).toBeInViewport();
  await expect(row).toHaveAttribute('aria-current', 'true');
});

test("at 820×560 a chosen day's entries come into view, a slow read and export say they are busy, and the day's captures say whose they are", async ({
  page,
}, info) => {
  await page.setViewportSize({ width: 820, height: 560 });
  await openProgress(page);
  const today = localDay();
  const past = app.h.svc.store.state.progress.filter((p) => p.date < today).at(-1)!;
  await browseTo(page, past.date);
  const day = page.getByTestId('day-view');
  await expect(day.getByRole('heading', { level: 3 })).toBeInViewport();
  await expect(day.getByTestId('entry').filter({ hasText: past.details })).toBeInViewport();
  // Only this computer's captures: the capture interface lists none by day.
  const captures = page.getByTestId('day-captures');
  await expect(captures.getByRole('heading')).toHaveText('Captures recorded that day, uploaded from this computer');
  await expect(captures).toContainText(
    'This computer uploaded no capture recorded that day. Captures uploaded from other computers are not listed here',
  );
  await page.screenshot({ path: info.outputPath('31-progress-day-820x560.png') });

  // The service answers after 3 s: within a second the buttons say what is under way.
  await app.h.svc.admin('POST', '/faults', {
    target: 'progress',
    operation: 'progress',
    method: 'GET',
    action: { type: 'latency', ms: 3000 },
    times: 0,
  });
  await page.getByRole('button', { name: 'Refresh' }).click();
  await expect(page.getByRole('button', { name: 'Refreshing…' })).toBeDisabled({ timeout: 1000 });
  await expect(page.getByRole('button', { name: 'Refresh', exact: true })).toBeEnabled({ timeout: 10_000 });
  await page.getByRole('button', { name: 'Export month (CSV)' }).click();
  await expect(page.getByRole('button', { name: 'Exporting…' })).toBeDisabled({ timeout: 1000 });
  await expect(page.getByRole('button', { name: 'Export month (CSV)' })).toBeEnabled({ timeout: 10_000 });
  await app.h.svc.admin('DELETE', '/faults');
});

test("exports a seeded month's entries as CSV and prints the month as a PDF", async ({ page }, info) => {
  await openProgress(page);
  const today = localDay();
  const month = app.h.svc.store.state.progress
    .filter((p) => p.date < today)
    .at(-1)!
    .date.slice(0, 7);
  const inMonth = app.h.svc.store.state.progress
    .filter((p) => p.projectId === app.h.svc.info.projectId && p.date.startsWith(`${month}-`))
    .sort((a, b) => a.date.localeCompare(b.date));
  expect(inMonth.length).toBeGreaterThan(1);
  await browseTo(page, inMonth[0]!.date);

  const download = page.waitForEvent('download');
  await page.getByRole('button', { name: 'Export month (CSV)' }).click();
  const file = await download;
  expect(file.suggestedFilename()).toBe(`progress-${month}.csv`);
  const bytes = await readFile((await file.path())!);
  expect([...bytes.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]); // UTF-8, marked for spreadsheet programs
  const quote = (s: string) => (/[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s);
  expect(bytes.subarray(3).toString('utf8')).toBe(
    ['Date,Status,Details,Entry id', ...inMonth.map((p) => [p.date, p.status, p.details, p.id].map(quote).join(','))]
      .map((l) => `${l}\r\n`)
      .join(''),
  );

  // The printed page: the month's entries alone, in a table.
  await page.emulateMedia({ media: 'print' });
  const report = page.getByTestId('month-report');
  await expect(report).toBeVisible();
  await expect(report.getByTestId('report-row')).toHaveText(
    inMonth.map((p) => new RegExp(`^${escape(date(p.date))}${escape(p.status)}${escape(p.details)}$`)),
  );
  await expect(page.getByRole('region', { name: 'Record progress' })).toBeHidden();
  await expect(page.getByRole('tablist')).toBeHidden();
  const pdf = await page.pdf({ format: 'A4', printBackground: false });
  expect(pdf.subarray(0, 5).toString('latin1')).toBe('%PDF-');
  await writeFile(info.outputPath('29-progress-month.pdf'), pdf);
  // The PDF's own text (poppler's pdftotext): the title, and every entry of the month with its
  // date as the screens show it, its status and its details.
  const phrases = (list: typeof inMonth) => [
    `Progress report — ${localMonth(month, { locale: LOCALE })}`,
    `${list.length} entries`,
    ...list.map((p) => `${date(p.date)} ${p.status} ${p.details}`),
  ];
  expect(await missingFromPdf(pdf, phrases(inMonth))).toEqual([]);
  // Whose, what and when: the project by its name (as the service's own export email calls it,
  // handed out of band and kept in the settings) with its id, the filter (none), the date and
  // time the list was read, and page numbers.
  const project = `Harbor View Medical Center (project ${app.h.svc.info.projectId})`;
  await expect(report.getByTestId('report-about')).toHaveText(
    new RegExp(
      `^${escape(project)} · All entries · ${inMonth.length} entries · as read \\d{1,2} [A-Z][a-z]{2} \\d{4}, \\d\\d:\\d\\d$`,
    ),
  );
  expect(await missingFromPdf(pdf, [project, 'Page 1 of 1'])).toEqual([]);
  // A date or a status is one line, however narrow the Details column leaves them.
  const lines = await report.locator('td.nowrap').evaluateAll((cells) =>
    cells.map((c) => {
      const r = document.createRange();
      r.selectNodeContents(c);
      return new Set([...r.getClientRects()].map((x) => Math.round(x.top))).size;
    }),
  );
  expect(lines.length).toBe(inMonth.length * 2);
  expect(lines.every((n) => n === 1)).toBe(true);
  // The filter is honoured and named: the calendar shows one status, the page prints only that one.
  const one = inMonth[0]!.status;
  const kept = inMonth.filter((p) => p.status === one);
  expect(kept.length).toBeLessThan(inMonth.length);
  await page.emulateMedia({ media: 'screen' });
  await page.getByRole('region', { name: 'Progress calendar' }).getByLabel('Status').selectOption(one);
  await page.emulateMedia({ media: 'print' });
  await expect(report.getByTestId('report-row')).toHaveCount(kept.length);
  await expect(report.getByTestId('report-about')).toContainText(
    `Only entries shown: Status ${one} · ${kept.length} ${kept.length === 1 ? 'entry' : 'entries'}`,
  );
  expect(
    await missingFromPdf(await page.pdf({ format: 'A4', printBackground: false }), [
      `Only entries shown: Status ${one}`,
      ...kept.map((p) => `${date(p.date)} ${p.status} ${p.details}`),
    ]),
  ).toEqual([]);
  await page.emulateMedia({ media: 'screen' });
  await page.getByRole('region', { name: 'Progress calendar' }).getByLabel('Status').selectOption('all');
  await page.emulateMedia({ media: 'print' });
  // The check catches a wrong PDF: one printed with an entry left out is missing exactly that one.
  const dropped = inMonth[1]!;
  await report
    .getByTestId('report-row')
    .nth(1)
    .evaluate((row) => row.remove());
  const wrong = await page.pdf({ format: 'A4', printBackground: false });
  expect(await missingFromPdf(wrong, phrases(inMonth))).toEqual([
    `${date(dropped.date)} ${dropped.status} ${dropped.details}`,
  ]);
  await page.screenshot({ path: info.outputPath('29-progress-month-print.png'), fullPage: true });
  await page.emulateMedia({ media: 'screen' });
  await expect(report).toBeHidden();
});

test("an entry the service refuses with 422 is kept on its own: the list still refreshes, a colleague's entry shows, the month exports, and it can be discarded with an undo", async ({
  page,
}, info) => {
  await openProgress(page);
  // Kept while the service is away; back, the service refuses that entry (422), and a colleague
  // has recorded one meanwhile.
  await entryKeptThenRefused(page, app.h, 'Tower D level 9 a very long note', {
    status: 422,
    body: { success: false, message: 'details too long' },
    times: 0,
  });
  const colleague = 'Tower A level 1 handrails fixed (recorded on another computer).';
  app.h.svc.store.state.progress.push({
    id: 'colleague-1',
    projectId: app.h.svc.info.projectId,
    date: localDay(),
    status: 'Completed',
    details: colleague,
  });
  await page.getByRole('button', { name: 'Refresh' }).click();
  await expect(page.getByTestId('progress-as-of')).toContainText('Up to date as of');
  await expect(page.getByTestId('day-view').getByTestId('entry').filter({ hasText: colleague })).toHaveCount(1);
  const item = page.getByTestId('outbox-item');
  await expect(item).toContainText('Refused');
  await expect(item).toContainText(
    'The progress service refused the request: details too long. Correct it and try again.',
  );
  await expect(item).not.toContainText('HTTP 422');
  // The month still exports.
  const download = page.waitForEvent('download');
  await page.getByRole('button', { name: 'Export month (CSV)' }).click();
  expect((await readFile((await (await download).path())!)).toString('utf8')).toContain(colleague);
  await page.screenshot({ path: info.outputPath('30-progress-refused-422.png'), fullPage: true });

  // Discard, taken back with Undo: it stays. Discarded again and left: it is gone for good.
  await item.getByRole('button', { name: 'Discard' }).click();
  await expect(page.getByTestId('discarded')).toContainText(`Discarded the entry of ${date(localDay())}.`);
  await expect(page.getByTestId('outbox-item')).toHaveCount(0);
  await page.getByRole('button', { name: 'Undo' }).click();
  await expect(page.getByTestId('outbox-item')).toHaveCount(1);
  await page.waitForTimeout(1000);
  await page.getByRole('button', { name: 'Refresh' }).click();
  await expect(page.getByTestId('outbox-item')).toHaveCount(1);
  await page.getByTestId('outbox-item').getByRole('button', { name: 'Discard' }).click();
  await expect(page.getByTestId('outbox')).toHaveCount(0, { timeout: 15_000 });
  await page.getByRole('button', { name: 'Refresh' }).click();
  await expect(page.getByTestId('progress-as-of')).toContainText('Up to date as of');
  await expect(page.getByTestId('outbox')).toHaveCount(0);
  expect(app.h.svc.store.state.progress.filter((p) => p.details.startsWith('Tower D level 9'))).toEqual([]);
});

test("the form's date follows the clock past midnight, and another day than today is said before sending", async ({
  page,
}) => {
  // The page's clock is set to 23:59 local and then run past midnight with the form open.
  const before = new Date(2026, 10, 26, 23, 59, 0);
  await page.clock.install({ time: before });
  await openProgress(page);
  const form = page.getByRole('region', { name: 'Record progress' });
  await expect(form.getByLabel('Date')).toHaveValue('2026-11-26');
  await expect(form.getByTestId('other-day')).toHaveCount(0);
  await page.clock.fastForward('02:00');
  await expect(form.getByLabel('Date')).toHaveValue('2026-11-27');
  await expect(form.getByTestId('other-day')).toHaveCount(0);
  // The day the person picks stays, and is said.
  await form.getByLabel('Date').fill('2026-11-26');
  await expect(form.getByTestId('other-day')).toHaveText(
    `You are recording for ${localDate('2026-11-26', { locale: LOCALE, weekday: true })}, not today.`,
  );
  await form.getByLabel('Details').fill('Tower B level 4 late entry for yesterday.');
  await form.getByRole('button', { name: 'Record entry' }).click();
  await expect(form).toContainText(`for ${date('2026-11-26')}.`);
  expect(
    app.h.svc.store.state.progress
      .filter((p) => p.details === 'Tower B level 4 late entry for yesterday.')
      .map((p) => p.date),
  ).toEqual(['2026-11-26']);
  // Sent, the form goes back to today, without the note.
  await expect(form.getByLabel('Date')).toHaveValue('2026-11-27');
  await expect(form.getByTestId('other-day')).toHaveCount(0);
});

test('statuses other than In Progress and Completed are shown, counted on their day, named, and can be filtered', async ({
  page,
}) => {
  const day = `${localDay().slice(0, 7)}-28`;
  for (const [i, status] of ['On Hold', 'Not Started', 'On Hold', 'Delayed'].entries()) {
    app.h.svc.store.state.progress.push({
      id: `other-${i}`,
      projectId: app.h.svc.info.projectId,
      date: day,
      status,
      details: `Tower E level ${i + 1} ${status}`,
    });
  }
  await openProgress(page);
  const cell = page.locator(`[data-day="${day}"]`);
  await expect(cell).toHaveAccessibleName(new RegExp(`^${day}: .*1 Delayed, 1 Not Started, 2 On Hold`));
  // Each of the three its own colour and its own mark, white text at 4.5:1 or more on each
  // (WCAG 1.4.1, 1.4.3): a day reads as three different things, not "1 1 2" in one grey.
  const looks = await cell.locator('.count').evaluateAll((counts) =>
    counts.map((c) => ({
      status: c.getAttribute('title'),
      background: getComputedStyle(c).backgroundColor,
      colour: getComputedStyle(c).color,
      mark: getComputedStyle(c, '::before').content,
    })),
  );
  const others = looks.filter((l) => ['Delayed', 'Not Started', 'On Hold'].includes(l.status!));
  expect(others).toHaveLength(3);
  expect(new Set(others.map((l) => l.background)).size).toBe(3);
  expect(new Set(others.map((l) => l.mark)).size).toBe(3);
  for (const l of looks) {
    expect(l.mark).not.toBe('none');
    expect(contrast(l.colour, l.background), `${l.status}: ${l.colour} on ${l.background}`).toBeGreaterThanOrEqual(4.5);
  }
  // The key under the calendar shows each status with the same colour and mark.
  const key = await page
    .getByTestId('calendar-key')
    .locator('.key-status')
    .evaluateAll((items) =>
      items.map((i) => {
        const c = i.querySelector('.count')!;
        return {
          status: i.textContent!.replace(/^n\s*/, '').trim(),
          background: getComputedStyle(c).backgroundColor,
          mark: getComputedStyle(c, '::before').content,
        };
      }),
    );
  for (const l of others) expect(key).toContainEqual({ status: l.status, background: l.background, mark: l.mark });
  await cell.click();
  await expect(page.getByTestId('day-view').getByTestId('entry').filter({ hasText: 'On Hold' })).toHaveCount(2);
  await page.locator('.filters').getByLabel('Status').selectOption('On Hold');
  await expect(page.getByTestId('day-view').getByTestId('entry')).toHaveCount(2);
  await expect(cell).toHaveAccessibleName(`${day}: 2 On Hold`);
});

test('Escape closes an opened entry, and a date far ahead is asked about before it is recorded', async ({ page }) => {
  await openProgress(page);
  const today = localDay();
  const past = app.h.svc.store.state.progress.filter((p) => p.date < today).at(-1)!;
  await browseTo(page, past.date);
  await page
    .getByTestId('day-view')
    .getByRole('button', { name: `Open entry ${past.id}` })
    .click();
  await expect(page.getByTestId('entry-detail')).toBeVisible();
  await page.keyboard.press('Escape');
  await expect(page.getByTestId('entry-detail')).toHaveCount(0);

  const form = page.getByRole('region', { name: 'Record progress' });
  const details = `Tower F level 1 typo of the year ${Date.now()}`;
  const recordFor = async (day: string) => {
    await form.getByLabel('Date').fill(day);
    await form.getByLabel('Details').fill(details);
    await form.getByRole('button', { name: 'Record entry' }).click();
  };
  // An emptied date is a sentence with its fix at the field, and nothing is sent.
  await recordFor('');
  await expect(form.getByTestId('date-refusal')).toHaveText(
    'Choose the day this entry is for: the date is empty or not a whole date.',
  );
  expect(app.h.svc.store.state.progress.filter((p) => p.details === details)).toEqual([]);
  await recordFor('2062-11-26');
  await expect(form.getByTestId('date-refusal')).toContainText(
    'days from today, and a recorded entry cannot be changed',
  );
  expect(app.h.svc.store.state.progress.filter((p) => p.details === details)).toEqual([]);
  await form.getByRole('button', { name: 'Record entry' }).click();
  await expect(form).toContainText(`for ${date('2062-11-26')}.`);
  expect(app.h.svc.store.state.progress.filter((p) => p.details === details).map((p) => p.date)).toEqual([
    '2062-11-26',
  ]);
});
