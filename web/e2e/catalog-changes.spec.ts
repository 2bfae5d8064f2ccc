import { expect, test, type Locator, type Page } from '@playwright/test';
import { ADMIN_STATE } from './env';
import { option } from './helpers';
import { seed, type SeededItem } from './seed';

// The changes feed (/catalog/changes), a change's details with its diff, the
// insights list (/catalog/insights) and both on an item's tabs. Other specs seed
// into the same database at the same time, so this one filters by its own
// config types and never counts what it did not seed.

const PREFIX = 'e2e-cat-chg-';
const DEPLOYMENT = 'E2EChg::Deployment';
const POD = 'E2EChg::Pod';
/** Changes per item, the newest of item n n minutes ago and one every 2.5 days (the fixture). */
const CHANGES = 12;
const ITEMS = 6;
/** One item with more changes than the search counts past a page (1,000): its total is capped. */
const BUSY_PREFIX = 'e2e-cat-chg-busy-';
const BUSY = 'E2EChg::Busy';

test.use({ storageState: ADMIN_STATE });

let items: SeededItem[] = [];

test.beforeAll(async () => {
  ({ items } = await seed('catalog-world', { prefix: PREFIX, types: [DEPLOYMENT, POD], items: ITEMS, changes: CHANGES, insights: 3 }));
  await seed('catalog-world', { prefix: BUSY_PREFIX, types: [BUSY], items: 1, changes: 1100 });
});

test.afterAll(async () => {
  await seed('remove', { what: 'catalog', prefix: BUSY_PREFIX });
  await seed('remove', { what: 'catalog', prefix: PREFIX });
});

function table(page: Page, name: string): Locator {
  return page.getByRole('grid', { name }).or(page.getByRole('table', { name, exact: true }));
}

/** The data rows (not the header, not the empty state). */
function dataRows(page: Page, name: string): Locator {
  return table(page, name).locator('tbody').getByRole('row');
}

function cell(row: Locator, index: number): Locator {
  return row.getByRole('gridcell').or(row.getByRole('cell')).nth(index);
}

/** The text of one column over every row shown, read at one instant (a
 * table showing the previous page while the next loads changes under a
 * row-by-row read). */
async function column(page: Page, name: string, index: number): Promise<string[]> {
  return dataRows(page, name).evaluateAll(
    (rows, i) => rows.map((row) => ((row as HTMLTableRowElement).cells[i] as HTMLElement | undefined)?.innerText.trim() ?? ''),
    index,
  );
}

/** The distinct values of a column, for expect.poll. */
const distinct = async (page: Page, name: string, index: number) => [...new Set(await column(page, name, index))];

function filters(page: Page): Locator {
  return page.getByRole('group', { name: 'Filters' });
}

/** Ticks `value` in the multi-select `label` of the filters, then closes it. */
async function pick(page: Page, label: string, value: string): Promise<void> {
  await filters(page).getByRole('button', { name: label, exact: true }).click();
  await option(page, value).click();
  await page.keyboard.press('Escape');
}

function param(page: Page, name: string): string | null {
  return new URL(page.url()).searchParams.get(name);
}

const pagination = (page: Page, name: string) => page.getByRole('navigation', { name: `${name} pagination` });

test('the feed filters by config type, severity and time range with the URL carrying them, sorts and pages', async ({ page }) => {
  await page.goto('/catalog/changes');
  await expect(table(page, 'Changes')).toBeVisible();

  await pick(page, 'Config type', DEPLOYMENT);
  await expect.poll(() => param(page, 'configType')).toBe(DEPLOYMENT);
  // Items 0, 2 and 4 are deployments; in the last 7 days each has its 3 newest changes.
  await expect(dataRows(page, 'Changes')).toHaveCount(9);
  await expect.poll(() => distinct(page, 'Changes', 1)).toEqual([DEPLOYMENT]);

  await page.getByRole('button', { name: 'Time range: Last 7 days' }).click();
  await page.getByRole('menuitem', { name: 'Last 30 days' }).click();
  await expect.poll(() => param(page, 'range')).toBe('now-30d');
  await expect(pagination(page, 'Changes').first()).toBeVisible();
  await expect(page.getByText(`of ${3 * CHANGES}`).first()).toBeVisible();

  await pick(page, 'Severity', 'critical');
  await expect.poll(() => param(page, 'severity')).toBe('critical');
  await expect.poll(() => distinct(page, 'Changes', 4)).toEqual(['critical']);
  await pick(page, 'Severity', 'critical');
  await expect.poll(() => param(page, 'severity')).toBeNull();

  // Severities are lowercase words: every collation orders them alike.
  await table(page, 'Changes').getByRole('button', { name: 'Severity' }).click();
  await expect.poll(() => param(page, 'sortBy')).toBe('-severity');
  await expect(dataRows(page, 'Changes')).toHaveCount(3 * CHANGES);
  await expect
    .poll(async () => {
      const severities = await column(page, 'Changes', 4);
      return severities.every((value, i) => i === 0 || (severities[i - 1] as string) >= value);
    })
    .toBe(true);

  // Paging: the page size and page are in the URL, and a filter change returns to the first page.
  const url = new URL(page.url());
  url.searchParams.set('pageSize', '10');
  await page.goto(url.pathname + url.search);
  await expect(dataRows(page, 'Changes')).toHaveCount(10);
  const first = await column(page, 'Changes', 3);
  await pagination(page, 'Changes').getByRole('button', { name: 'Go to next page' }).click();
  await expect.poll(() => param(page, 'page')).toBe('2');
  await expect(dataRows(page, 'Changes')).toHaveCount(10);
  await expect.poll(() => column(page, 'Changes', 3)).not.toEqual(first);
  await pick(page, 'Config type', POD);
  await expect.poll(() => param(page, 'page')).toBeNull();
  expect(param(page, 'configType')).toBe(`${DEPLOYMENT},${POD}`);
});

test('a total the search stopped counting shows as a lower bound, and paging goes on', async ({ page }) => {
  await page.goto(`/catalog/changes?configType=${encodeURIComponent(BUSY)}&rangeType=relative&range=now-30d&pageSize=100`);
  await expect(dataRows(page, 'Changes')).toHaveCount(100, { timeout: 30_000 });
  const pager = pagination(page, 'Changes');
  // The pager's caption sits beside its navigation.
  await expect(page.getByText(/of [\d,]+\+$/).first()).toBeVisible();
  await pager.getByRole('button', { name: 'Go to last page' }).click();
  // Counted from page 10 on, the item's 1,100 changes are counted exactly.
  await expect(page.getByText(/of 1,100$/).first()).toBeVisible({ timeout: 30_000 });
  await pager.getByRole('button', { name: 'Go to next page' }).click();
  await expect.poll(() => param(page, 'page')).toBe('11');
  await expect(dataRows(page, 'Changes')).toHaveCount(100);
  await expect(pager.getByRole('button', { name: 'Go to next page' })).toBeDisabled();
});

test('a change opens its details with the diff unified and side by side', async ({ page }) => {
  const hub = items[0] as SeededItem;
  await page.goto(`/catalog/changes?configType=${encodeURIComponent(DEPLOYMENT)}&rangeType=relative&range=now-30d`);
  const row = dataRows(page, 'Changes').filter({ hasText: hub.name }).first();
  await expect(row).toBeVisible();
  await cell(row, 3).click();

  const dialog = page.getByRole('dialog', { name: 'Change details' });
  await expect(dialog).toBeVisible();
  expect(param(page, 'change')).toMatch(/^[0-9a-f-]{36}$/);
  await expect(dialog.getByRole('link', { name: hub.name })).toHaveAttribute('href', `/catalog/${hub.id}`);
  const unified = dialog.getByRole('table', { name: 'Unified diff' });
  await expect(unified).toBeVisible();
  await expect(unified.getByText(/^replicas: \d$/).first()).toBeVisible();
  await dialog.getByRole('button', { name: 'Side by side' }).click();
  const split = dialog.getByRole('table', { name: 'Side by side diff' });
  await expect(split).toBeVisible();
  // The removed and the added line share a row.
  await expect(split.getByRole('row').filter({ hasText: /replicas: \d.*replicas: \d/ })).toHaveCount(1);
  await dialog.getByRole('button', { name: 'Unified' }).click();
  await expect(unified).toBeVisible();

  await dialog.getByRole('tab', { name: 'Details' }).click();
  await expect(dialog.getByRole('tabpanel').getByText('"reason"')).toBeVisible();
  await dialog.getByRole('tab', { name: 'Patches' }).click();
  await expect(dialog.getByRole('tabpanel').getByText('"replicas"')).toBeVisible();

  // Back closes the details.
  await page.goBack();
  await expect(dialog).toBeHidden();
  expect(param(page, 'change')).toBeNull();
});

test("an item's changes tab shows its own changes, with the same URL parameters", async ({ page }) => {
  const item = items[1] as SeededItem;
  await page.goto(`/catalog/${item.id}/changes?rangeType=relative&range=now-30d&pageSize=25`);
  await expect(dataRows(page, 'Changes')).toHaveCount(CHANGES);
  await expect.poll(() => distinct(page, 'Changes', 0)).toEqual([item.name]);
  await expect(filters(page).getByRole('button', { name: 'Related changes' })).toBeVisible();
});

test('insights filter by severity and status with the URL carrying them, on the list and an item', async ({ page }) => {
  await page.goto('/catalog/insights');
  await expect(table(page, 'Insights')).toBeVisible();
  await pick(page, 'Severity', 'high');
  await expect.poll(() => param(page, 'severity')).toBe('high');
  await expect.poll(() => distinct(page, 'Insights', 3)).toEqual(['high']);
  await pick(page, 'Status', 'open');
  await expect.poll(() => param(page, 'status')).toBe('open');
  await expect.poll(() => distinct(page, 'Insights', 4)).toEqual(['open']);
  await table(page, 'Insights').getByRole('button', { name: 'Analyzer' }).click();
  await expect.poll(() => param(page, 'sortBy')).toBe('-analyzer');

  // One item: its three insights, then those of one analysis type.
  const item = items[2] as SeededItem;
  await page.goto(`/catalog/${item.id}/insights`);
  await expect(dataRows(page, 'Insights')).toHaveCount(3);
  await expect.poll(() => distinct(page, 'Insights', 0)).toEqual([item.name]);
  const types = await column(page, 'Insights', 2);
  await pick(page, 'Analysis type', types[0] as string);
  await expect.poll(() => param(page, 'analysisType')).toBe(types[0]);
  await expect(dataRows(page, 'Insights')).toHaveCount(types.filter((t) => t === types[0]).length);
});
