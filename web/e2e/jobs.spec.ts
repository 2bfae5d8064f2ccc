import { expect, test, type Locator, type Page } from '@playwright/test';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { seed, type SeedJob } from './seed';
import { ADMIN_STATE } from './env';
import { allowConsoleScripts, choose, dbRows, expectToast, snap } from './helpers';

const LIST = '/settings/jobs';
const CANARY = 'e2e-jobs-canary';
const DAY = 86_400_000;

// The browser and the seeded instants agree on UTC, so quick ranges land on known days.
test.use({ storageState: ADMIN_STATE, timezoneId: 'UTC' });

/** Midnight UTC `days` ago. */
function utcDay(days: number): Date {
  const now = new Date();
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()) - days * DAY);
}

const isoDate = (d: Date) => d.toISOString().slice(0, 10);

function table(page: Page): Locator {
  return page.getByRole('grid', { name: 'Job history' }).or(page.getByRole('table', { name: 'Job history' }));
}

/** Rows of the seeded jobs: the server's own jobs write rows too. */
function rows(page: Page, name: string | RegExp = /^e2e-job-/): Locator {
  const exact = typeof name === 'string';
  return table(page)
    .getByRole('row')
    .filter({ has: page.getByRole('gridcell', { name, exact }).or(page.getByRole('cell', { name, exact })) });
}

function seeded(page: Page): Locator {
  return rows(page, /^e2e-job-/);
}

function filters(page: Page): Locator {
  return page.getByRole('group', { name: 'Filters' });
}

function params(page: Page): URLSearchParams {
  return new URL(page.url()).searchParams;
}

let canaryId = '';
const now = Date.now();
const fiveDaysAgoNoon = new Date(utcDay(5).getTime() + 12 * 3_600_000);
const yesterdayNoon = new Date(utcDay(1).getTime() + 12 * 3_600_000);

test.beforeAll(async () => {
  await seed('remove', { what: 'job_history', prefix: 'e2e-job-' });
  ({ id: canaryId } = await seed('canary', { name: CANARY }));
  const jobs: SeedJob[] = [
    {
      name: 'e2e-job-sync',
      status: 'FAILED',
      resourceType: 'canary',
      resourceId: canaryId,
      durationMillis: 1500,
      details: { errors: ['connection refused', 'timed out after 30s'] },
      at: new Date(now - 10 * 60_000),
      successCount: 3,
      errorCount: 2,
    },
    {
      name: 'e2e-job-sync',
      status: 'SUCCESS',
      resourceType: 'canary',
      resourceId: canaryId,
      durationMillis: 900,
      at: new Date(now - 20 * 60_000),
    },
    {
      name: 'e2e-job-scrape',
      status: 'WARNING',
      resourceType: 'config_scraper',
      resourceId: 'scraper-1',
      durationMillis: 200,
      details: { errors: { 'aws/ec2': { error: 'access denied' } }, scrape_summary: { 'AWS::EC2::Instance': { added: 2, updated: 1 } } },
      at: new Date(now - 30 * 60_000),
    },
    {
      name: 'e2e-job-topo',
      status: 'RUNNING',
      resourceType: 'topology',
      resourceId: 'topology-1',
      durationMillis: 50,
      at: new Date(now - 40 * 60_000),
    },
    {
      name: 'e2e-job-topo',
      status: 'STOPPED',
      resourceType: 'topology',
      resourceId: 'topology-1',
      durationMillis: 70,
      details: { errors: [], summary: { reconciled: 3 } },
      at: new Date(now - 50 * 60_000),
    },
    { name: 'e2e-job-old', status: 'FAILED', durationMillis: 10, at: fiveDaysAgoNoon },
    { name: 'e2e-job-yesterday', status: 'FAILED', durationMillis: 10, at: yesterdayNoon },
    ...Array.from({ length: 12 }, (_, i) => ({
      name: 'e2e-job-bulk',
      status: 'FAILED',
      durationMillis: 100 * (i + 1),
      at: new Date(now - (60 + i) * 60_000),
    })),
  ];
  await seed('job-history', jobs);
});

test('defaults: SUCCESS excluded, last 2 days, newest first; status colours', async ({ page }) => {
  await page.goto(LIST);
  await expect(page.getByRole('heading', { name: 'Job History' })).toBeVisible();
  await expect(filters(page).getByRole('button', { name: 'Status' })).toHaveText('not SUCCESS');
  await expect(page.getByRole('button', { name: /^Time range/ })).toHaveAccessibleName('Time range: Last 2 days');
  await expect(rows(page, 'e2e-job-sync')).toHaveCount(1);
  await expect(rows(page, 'e2e-job-old')).toHaveCount(0);
  await expect(rows(page, 'e2e-job-yesterday')).toHaveCount(1);
  await expect(rows(page, 'e2e-job-bulk')).toHaveCount(12);

  // Newest first: the seeded rows in creation order.
  await expect(seeded(page).first().locator('td').first()).toHaveText('e2e-job-sync');
  const names = await seeded(page).locator('td:first-child').allTextContents();
  expect(names.slice(0, 4)).toEqual(['e2e-job-sync', 'e2e-job-scrape', 'e2e-job-topo', 'e2e-job-topo']);

  const sync = rows(page, 'e2e-job-sync');
  await expect(sync).toContainText(CANARY);
  await expect(sync).toContainText('local');
  await expect(sync).toContainText('1.5s');
  await expect(sync.getByRole('link', { name: CANARY })).toHaveAttribute('href', `/settings/canaries/${canaryId}`);

  const colours: Record<string, [Locator, string]> = {
    FAILED: [sync, 'red'],
    WARNING: [rows(page, 'e2e-job-scrape'), 'orange'],
    RUNNING: [rows(page, 'e2e-job-topo').filter({ hasText: 'RUNNING' }), 'yellow'],
    STOPPED: [rows(page, 'e2e-job-topo').filter({ hasText: 'STOPPED' }), 'red'],
  };
  for (const [status, [row, colour]] of Object.entries(colours)) {
    await expect(row.locator('.pf-v6-c-label').filter({ hasText: status })).toHaveClass(new RegExp(`pf-m-${colour}`));
  }
  await snap(page, 'job-history');

  // SUCCESS shows green once included.
  await page.goto(`${LIST}?status=SUCCESS:1&name=e2e-job-sync`);
  await expect(rows(page, 'e2e-job-sync')).toHaveCount(1);
  await expect(rows(page, 'e2e-job-sync').locator('.pf-v6-c-label').filter({ hasText: 'SUCCESS' })).toHaveClass(/pf-m-green/);
});

test('name and resource type filters are kept in the URL and survive a reload', async ({ page }) => {
  await page.goto(`${LIST}?pageIndex=1&pageSize=5`);

  // Name: from the names list; pagination goes back to the first page.
  await choose(filters(page), page, 'Name', 'e2e-job-topo');
  await expect.poll(() => params(page).get('name')).toBe('e2e-job-topo');
  expect(params(page).get('pageIndex')).toBeNull();
  expect(params(page).get('pageSize')).toBe('5');
  await expect(seeded(page)).toHaveCount(2);
  await page.reload();
  await expect(filters(page).getByRole('button', { name: 'Name' })).toHaveText('e2e-job-topo');
  await expect(seeded(page)).toHaveCount(2);
  await choose(filters(page), page, 'Name', 'All');
  await expect.poll(() => params(page).has('name')).toBe(false);

  // Resource type.
  await choose(filters(page), page, 'Resource Type', 'config_scraper');
  await expect.poll(() => params(page).get('resource_type')).toBe('config_scraper');
  await expect(seeded(page)).toHaveCount(1);
  await expect(rows(page, 'e2e-job-scrape')).toContainText('scraper-1');
  await page.reload();
  await expect(filters(page).getByRole('button', { name: 'Resource Type' })).toHaveText('config_scraper');
  await expect(seeded(page)).toHaveCount(1);
  await choose(filters(page), page, 'Resource Type', 'All');
  await expect.poll(() => params(page).has('resource_type')).toBe(false);
});

test('the status filter includes and excludes, kept in the URL', async ({ page }) => {
  await page.goto(LIST);
  // Lift the default exclusion, then include FAILED only.
  await filters(page).getByRole('button', { name: 'Status' }).click();
  await page.getByRole('menuitem', { name: 'Exclude SUCCESS' }).click();
  await expect.poll(() => params(page).get('status')).toBe('');
  await expect(rows(page, 'e2e-job-sync')).toHaveCount(2);
  await page.getByRole('menuitem', { name: 'Include FAILED' }).click();
  await expect.poll(() => params(page).get('status')).toBe('FAILED:1');
  await snap(page, 'job-history-status-menu');
  await page.keyboard.press('Escape');
  await expect(filters(page).getByRole('button', { name: 'Status' })).toHaveText('FAILED');
  await expect(rows(page, 'e2e-job-topo')).toHaveCount(0);
  await expect(rows(page, 'e2e-job-sync')).toHaveCount(1);
  await page.reload();
  await expect(filters(page).getByRole('button', { name: 'Status' })).toHaveText('FAILED');
  await expect(rows(page, 'e2e-job-sync')).toHaveCount(1);
  await expect(rows(page, 'e2e-job-scrape')).toHaveCount(0);
  // Excluding FAILED as well.
  await filters(page).getByRole('button', { name: 'Status' }).click();
  await page.getByRole('menuitem', { name: 'Include FAILED' }).click();
  await page.getByRole('menuitem', { name: 'Exclude FAILED' }).click();
  await expect.poll(() => params(page).get('status')).toBe('FAILED:-1');
  await page.keyboard.press('Escape');
  await expect(rows(page, 'e2e-job-sync')).toHaveCount(1);
  await expect(rows(page, 'e2e-job-sync')).toContainText('SUCCESS');
  await expect(rows(page, 'e2e-job-bulk')).toHaveCount(0);
  await snap(page, 'job-history-status-filter');
});

test('the duration filter takes presets and custom values, kept in the URL', async ({ page }) => {
  // A preset.
  await page.goto(`${LIST}?status=`);
  await choose(filters(page), page, 'Duration', '1s');
  await expect.poll(() => params(page).get('duration')).toBe('1000');
  await expect(rows(page, 'e2e-job-sync')).toHaveCount(1);
  await expect(rows(page, 'e2e-job-sync')).toContainText('1.5s');
  await expect(rows(page, 'e2e-job-scrape')).toHaveCount(0);
  await expect(rows(page, 'e2e-job-bulk')).toHaveCount(3);
  await page.reload();
  await expect(filters(page).getByRole('button', { name: 'Duration' })).toHaveText('1s');
  await expect(rows(page, 'e2e-job-scrape')).toHaveCount(0);

  // A custom value must be in ms or s.
  await choose(filters(page), page, 'Duration', 'Custom');
  const custom = page.getByRole('textbox', { name: 'Custom duration' });
  await custom.fill('2 minutes');
  await custom.press('Enter');
  // The message as the spec words it (PatternFly adds a screen-reader status after it).
  await expect(filters(page).getByText(/^duration is allowed only in milli seconds & seconds\b/)).toBeVisible();
  expect(params(page).get('duration')).toBe('1000');
  await snap(page, 'job-history-duration-error');
  await custom.fill('1.2s');
  await custom.press('Enter');
  await expect.poll(() => params(page).get('duration')).toBe('1200');
  await expect(page.getByText('duration is allowed only in milli seconds & seconds')).toHaveCount(0);
  await expect(rows(page, 'e2e-job-bulk')).toHaveCount(1);
  await expect(rows(page, 'e2e-job-sync')).toHaveCount(1);
  await page.reload();
  await expect(page.getByRole('textbox', { name: 'Custom duration' })).toHaveValue('1200ms');
  await choose(filters(page), page, 'Duration', 'All');
  await expect.poll(() => params(page).has('duration')).toBe(false);
});

test('columns sort, kept in the URL', async ({ page }) => {
  await page.goto(`${LIST}?name=e2e-job-bulk`);
  const duration = table(page).getByRole('columnheader', { name: 'Duration' });
  await duration.getByRole('button').click();
  await expect.poll(() => params(page).get('sortBy')).toBe('duration_millis');
  expect(params(page).get('sortDesc')).toBe('true');
  await expect(seeded(page).first()).toContainText('1.2s');
  await duration.getByRole('button').click();
  await expect.poll(() => params(page).get('sortDesc')).toBe('false');
  await expect(seeded(page).first()).toContainText('100ms');
  await page.reload();
  await expect(duration).toHaveAttribute('aria-sort', 'ascending');
  await expect(seeded(page).first()).toContainText('100ms');
});

test('pagination comes from the URL', async ({ page }) => {
  await page.goto(`${LIST}?name=e2e-job-bulk&pageSize=5&pageIndex=2`);
  await expect(seeded(page)).toHaveCount(2);
  await expect(page.getByText('11 - 12', { exact: false }).first()).toBeVisible();
  await page.goto(`${LIST}?name=e2e-job-bulk&pageSize=5`);
  await expect(seeded(page)).toHaveCount(5);
  await page.getByRole('button', { name: 'Go to next page' }).first().click();
  await expect.poll(() => params(page).get('pageIndex')).toBe('1');
  await expect(seeded(page)).toHaveCount(5);
  await snap(page, 'job-history-pagination');
  await page.reload();
  await expect(seeded(page)).toHaveCount(5);
  expect(params(page).get('pageIndex')).toBe('1');
  // A filter change resets the page.
  await choose(filters(page), page, 'Resource Type', 'topology');
  await expect.poll(() => params(page).has('pageIndex')).toBe(false);
});

test('details modal shows only the tabs with content, and none without details', async ({ page }) => {
  await page.goto(LIST);
  await rows(page, 'e2e-job-sync').click();
  let modal = page.getByRole('dialog', { name: 'Details for job e2e-job-sync' });
  await expect(modal).toBeVisible();
  await expect(modal.getByRole('tab')).toHaveText(['Errors']);
  await expect(modal.getByRole('row')).toContainText(['Message', 'connection refused', 'timed out after 30s']);
  await snap(page, 'job-details-errors');
  await modal.getByRole('button', { name: 'Close' }).click();
  await expect(modal).toHaveCount(0);

  await rows(page, 'e2e-job-scrape').click();
  modal = page.getByRole('dialog', { name: 'Details for job e2e-job-scrape' });
  await expect(modal.getByRole('tab')).toHaveText(['Errors', 'Scrape Summary']);
  await expect(modal.getByRole('row').filter({ hasText: 'aws/ec2' })).toContainText('access denied');
  await modal.getByRole('tab', { name: 'Scrape Summary' }).click();
  await expect(modal.getByRole('row').filter({ hasText: 'AWS::EC2::Instance' })).toContainText('2');
  await snap(page, 'job-details-scrape');
  await page.keyboard.press('Escape');
  await expect(modal).toHaveCount(0);

  await rows(page, 'e2e-job-topo').filter({ hasText: 'STOPPED' }).click();
  modal = page.getByRole('dialog', { name: 'Details for job e2e-job-topo' });
  await expect(modal.getByRole('tab')).toHaveText(['Reconcile Summary']);
  await expect(modal.getByRole('row').filter({ hasText: 'reconciled' })).toContainText('3');
  await page.keyboard.press('Escape');
  await expect(modal).toHaveCount(0);

  // No details: no modal. Rather than sleep to give one time to show, a
  // second click opens a modal with details, and it is the only dialog.
  await rows(page, 'e2e-job-topo').filter({ hasText: 'RUNNING' }).locator('td').first().click();
  await expect(page.getByRole('dialog')).toHaveCount(0);
  await rows(page, 'e2e-job-topo').filter({ hasText: 'STOPPED' }).click();
  await expect(modal).toBeVisible();
  await expect(page.getByRole('dialog')).toHaveCount(1);
});

test('time range picker: relative and quick ranges; invalid ones are ignored', async ({ page }) => {
  const errors: string[] = [];
  page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
  const picker = page.getByRole('button', { name: /^Time range/ });
  const dialog = page.getByRole('dialog', { name: 'Time range' });

  // An invalid range in the URL is logged and the default applies.
  await page.goto(`${LIST}?rangeType=relative&range=bogus`);
  await expect(picker).toHaveAccessibleName('Time range: Last 2 days');
  await expect(rows(page, 'e2e-job-sync')).toHaveCount(1);
  expect(errors.some((e) => e.includes("Invalid relative time range: 'bogus'"))).toBe(true);
  await page.goto(`${LIST}?rangeType=mapped&timeRange=Someday`);
  await expect(picker).toHaveAccessibleName('Time range: Last 2 days');
  expect(errors.some((e) => e.includes("Invalid mapped time range: 'Someday'"))).toBe(true);

  // Relative.
  await page.goto(`${LIST}?pageIndex=1`);
  await picker.click();
  await expect(dialog.getByRole('menuitem')).toHaveCount(16 + 14);
  await snap(page, 'time-range-picker');
  await dialog.getByRole('menuitem', { name: 'Last 7 days' }).click();
  await expect(dialog).toHaveCount(0);
  await expect.poll(() => params(page).get('range')).toBe('now-7d');
  expect(params(page).get('rangeType')).toBe('relative');
  expect(params(page).get('display')).toBe('Last 7 days');
  expect(params(page).has('pageIndex')).toBe(false);
  await expect(rows(page, 'e2e-job-old')).toHaveCount(1);
  await page.reload();
  await expect(picker).toHaveAccessibleName('Time range: Last 7 days');
  await expect(rows(page, 'e2e-job-old')).toHaveCount(1);

  // Quick (mapped).
  await picker.click();
  await dialog.getByRole('menuitem', { name: 'Yesterday', exact: true }).click();
  await expect.poll(() => params(page).get('rangeType')).toBe('mapped');
  expect(params(page).get('timeRange')).toBe('Yesterday');
  await expect(rows(page, 'e2e-job-yesterday')).toHaveCount(1);
  await expect(rows(page, 'e2e-job-old')).toHaveCount(0);
  await page.reload();
  await expect(picker).toHaveAccessibleName('Time range: Yesterday');
  await expect(rows(page, 'e2e-job-yesterday')).toHaveCount(1);
});

test('time range picker: absolute ranges, recent ones and the calendar', async ({ page }) => {
  const picker = page.getByRole('button', { name: /^Time range/ });
  const dialog = page.getByRole('dialog', { name: 'Time range' });
  await page.goto(LIST);

  // Submit waits for both From and To; Clear empties them.
  await picker.click();
  const submit = dialog.getByRole('button', { name: 'Submit' });
  await expect(submit).toBeDisabled();
  const day = isoDate(fiveDaysAgoNoon);
  await dialog.getByRole('textbox', { name: 'From date' }).fill(day);
  await expect(submit).toBeDisabled();
  await dialog.getByRole('textbox', { name: 'To date' }).fill(day);
  await expect(submit).toBeEnabled();
  await dialog.getByRole('button', { name: 'Clear' }).click();
  await expect(dialog.getByRole('textbox', { name: 'From date' })).toHaveValue('');
  await expect(submit).toBeDisabled();
  await dialog.getByRole('textbox', { name: 'From date' }).fill(day);
  await dialog.getByRole('textbox', { name: 'To date' }).fill(day);
  await expect(dialog.getByRole('textbox', { name: 'From time' })).toHaveValue('00:00');
  await expect(dialog.getByRole('textbox', { name: 'To time' })).toHaveValue('23:59');
  await snap(page, 'time-range-absolute');
  await submit.click();
  await expect(dialog).toHaveCount(0);
  await expect.poll(() => params(page).get('rangeType')).toBe('absolute');
  expect(params(page).get('from')).toBe(`${day}T00:00:00.000Z`);
  expect(params(page).get('to')).toBe(`${day}T23:59:00.000Z`);
  await expect(picker).toHaveAccessibleName(`Time range: ${day} 00:00 to ${day} 23:59`);
  await expect(rows(page, 'e2e-job-old')).toHaveCount(1);
  await expect(rows(page, 'e2e-job-sync')).toHaveCount(0);
  await page.reload();
  await expect(rows(page, 'e2e-job-old')).toHaveCount(1);

  // The range is now among the recent ones, which survive a reload.
  await picker.click();
  const recent = dialog.getByRole('menu', { name: 'Recently used absolute ranges' });
  await expect(recent.getByRole('menuitem')).toHaveText([`${day} 00:00 to ${day} 23:59`]);
  await dialog.getByRole('menuitem', { name: 'Last 2 days' }).click();
  await expect(rows(page, 'e2e-job-old')).toHaveCount(0);
  await picker.click();
  await recent.getByRole('menuitem').first().click();
  await expect.poll(() => params(page).get('rangeType')).toBe('absolute');
  await expect(rows(page, 'e2e-job-old')).toHaveCount(1);

  // The calendar also picks dates.
  await picker.click();
  await dialog.getByRole('button', { name: 'Clear' }).click();
  await dialog.getByRole('button', { name: 'Toggle From calendar' }).click();
  const firstOfMonth = dialog.getByRole('button', { name: /^1 [A-Z][a-z]+ \d{4}$/ }).first();
  await expect(firstOfMonth).toBeVisible();
  await snap(page, 'time-range-calendar');
  await firstOfMonth.click();
  await expect(dialog.getByRole('textbox', { name: 'From date' })).toHaveValue(/^\d{4}-\d{2}-01$/);
});

/** The sample world's ScrapeConfig (config/samples/scrapeconfig.yaml), its
 * paths made absolute: the engine reads them from its own working directory. */
function sampleSpec(): { file: { paths: string[] }[] } {
  const root = new URL('../../', import.meta.url);
  const manifest = parse(readFileSync(new URL('config/samples/scrapeconfig.yaml', root), 'utf8')) as {
    spec: { file: { paths: string[] }[] };
  };
  const spec = manifest.spec;
  for (const entry of spec.file) entry.paths = entry.paths.map((p) => fileURLToPath(new URL(p, root)));
  return spec;
}

test('Scrape now on the sample scraper writes a ScraperRun whose Scrape Summary counts the estate', async ({ page }) => {
  const name = 'e2e-sample-estate';
  const origin = { Origin: new URL(test.info().project.use.baseURL ?? '').origin };
  const runs = async (id: string) =>
    (await dbRows(page.request, `job_histories?name=eq.ScraperRun&resource_id=eq.${id}&status=neq.RUNNING&select=id`)).length;
  // A console scraper reads local files only while console scripts are allowed.
  await allowConsoleScripts(page, true);
  let id = '';
  try {
    const created = await page.request.post('/api/db/config_scrapers', {
      data: { name, spec: sampleSpec() },
      headers: { ...origin, Prefer: 'return=representation' },
    });
    expect(created.ok(), await created.text()).toBe(true);
    [{ id }] = (await created.json()) as { id: string }[];
    // A new scraper is due at once: its first run adds the estate.
    await expect.poll(() => runs(id), { timeout: 30_000 }).toBe(1);

    await page.goto('/settings/integrations');
    const scraper = page.getByRole('row', { name: new RegExp(`^${name}\\b`) });
    await scraper.getByRole('button', { name: 'Scrape now' }).click();
    await expectToast(page, 'Scrape queued');
    await expect(page).toHaveURL(/\/settings\/integrations$/);
    await expect.poll(() => runs(id), { timeout: 30_000 }).toBe(2);

    await page.goto(`${LIST}?name=ScraperRun&status=`);
    const scrapes = rows(page, 'ScraperRun').filter({ hasText: name });
    await expect(scrapes).toHaveCount(2);
    await expect(scrapes.first()).toContainText('SUCCESS');
    await scrapes.first().click();
    const modal = page.getByRole('dialog', { name: 'Details for job ScraperRun' });
    await expect(modal.getByRole('tab')).toHaveText(['Scrape Summary']);
    const summary = modal.getByRole('grid', { name: 'Scrape Summary' }).or(modal.getByRole('table', { name: 'Scrape Summary' }));
    await expect(summary.getByRole('columnheader')).toHaveText(['Name', 'added', 'updated', 'unchanged', 'deleted', 'changes']);
    // The second run finds what the first one added, unchanged.
    await expect(summary.getByRole('row').filter({ hasText: 'Kubernetes::Deployment' }).locator('td')).toHaveText([
      'Kubernetes::Deployment',
      '0',
      '0',
      '5',
      '0',
      '0',
    ]);
    await expect(summary.getByRole('row').filter({ hasText: 'Kubernetes::Namespace' }).locator('td')).toHaveText([
      'Kubernetes::Namespace',
      '0',
      '0',
      '3',
      '0',
      '0',
    ]);
    await snap(page, 'job-details-scrape-now');
  } finally {
    await allowConsoleScripts(page, false);
    if (id)
      await page.request.patch(`/api/db/config_scrapers?id=eq.${id}`, { data: { deleted_at: new Date().toISOString() }, headers: origin });
  }
});
