import { expect, test, type Locator, type Page } from '@playwright/test';
import { seed } from './seed';
import { ADMIN_STATE, AGENT } from './env';
import { choose, dbRows, option, snap } from './helpers';

test.use({ storageState: ADMIN_STATE });

const PREFIX = 'e2e-health';
const NS_A = 'e2e-hns-a';
const NS_B = 'e2e-hns-b';

interface SeedCheck {
  name: string;
  type: string;
  status: 'healthy' | 'unhealthy';
  labels: Record<string, string>;
  passed: number;
  failed: number;
  /** Latency bucket of every run: bucket i holds runs of at most 1.25^i ms. */
  bucket: number;
  description?: string;
  endpoint?: string;
  agent?: boolean;
}

/** Two canaries; checks that stay as seeded (next run a year away) with
 * hourly rollups for their uptime and latency. */
const SEED: { canary: string; namespace: string; checks: SeedCheck[] }[] = [
  {
    canary: `${PREFIX}-shop`,
    namespace: NS_A,
    checks: [
      // p95 of bucket 21 is 1.25^20.5 = 97 ms.
      {
        name: `${PREFIX}-api`,
        type: 'http',
        status: 'healthy',
        labels: { env: 'prod', team: 'core', critical: 'true' },
        passed: 99,
        failed: 1,
        bucket: 21,
        endpoint: 'https://api.e2e-health.test',
      },
      // Bucket 33: 1.25^32.5 = 1.4 s.
      {
        name: `${PREFIX}-cart`,
        type: 'http',
        status: 'unhealthy',
        labels: { env: 'dev', team: 'core', critical: 'false' },
        passed: 50,
        failed: 50,
        bucket: 33,
        description: 'Shopping cart',
      },
      // Bucket 14: 1.25^13.5 = 20 ms.
      {
        name: `${PREFIX}-pay`,
        type: 'tcp',
        status: 'unhealthy',
        labels: { env: 'qa', team: 'edge' },
        passed: 0,
        failed: 10,
        bucket: 14,
        agent: true,
      },
    ],
  },
  {
    canary: `${PREFIX}-blog`,
    namespace: NS_B,
    checks: [
      { name: `${PREFIX}-home`, type: 'http', status: 'healthy', labels: { env: 'prod', team: 'edge' }, passed: 10, failed: 0, bucket: 18 },
      {
        name: `${PREFIX}-feed`,
        type: 'dns',
        status: 'unhealthy',
        labels: { env: 'staging', team: 'web' },
        passed: 3,
        failed: 1,
        bucket: 10,
        description: 'RSS feed',
      },
    ],
  },
];

test.beforeAll(async () => {
  await seed('remove', { what: 'canaries', prefix: `${PREFIX}-` });
  for (const { canary, namespace, checks } of SEED) {
    await seed('canary', {
      name: canary,
      namespace,
      checks: checks.map((c) => ({
        name: c.name,
        type: c.type,
        status: c.status,
        labels: c.labels,
        description: c.description,
        endpoint: c.endpoint,
        agent: c.agent ? AGENT : undefined,
        lastRunSecsAgo: 2 * 3600,
        transitionedSecsAgo: 3 * 3600,
        hourly: { passed: c.passed, failed: c.failed, bucket: c.bucket },
      })),
    });
  }
});

test.afterAll(async () => {
  await seed('remove', { what: 'canaries', prefix: `${PREFIX}-` });
});

function table(page: Page): Locator {
  return page.getByRole('grid', { name: 'Health checks' });
}

function row(page: Page, name: string): Locator {
  return table(page).getByRole('row', { name: new RegExp(`${name}\\b`) });
}

/** The names in the Checks column, top to bottom. */
async function names(page: Page): Promise<string[]> {
  return (await table(page).locator('tbody tr td[data-label="Checks"]').allInnerTexts()).map((t) => t.split('\n')[0]?.trim() ?? '');
}

async function search(page: Page, text: string) {
  await page.getByRole('textbox', { name: 'Search checks' }).fill(text);
  await expect(page).toHaveURL(new RegExp(`query=${text}`));
}

test('filters, grouping, tabs and sorting round-trip through the URL', async ({ page }) => {
  await page.goto('/health');
  await expect(page.getByRole('heading', { name: 'Health', level: 1 })).toBeVisible();
  await expect(page.getByRole('textbox', { name: 'Search checks' })).toHaveAttribute(
    'placeholder',
    'Search by name, description, or endpoint',
  );
  await expect(page.getByRole('switch', { name: 'Hide Passing' })).toBeChecked();
  await search(page, PREFIX);

  // Group Name by default; passing checks hidden; a group of one shows as its check.
  await expect(page.getByRole('button', { name: 'Group By' })).toHaveText('Group Name');
  for (const caption of ['Group By', 'Tab By']) await expect(page.getByText(caption, { exact: true })).toBeVisible();
  await expect(row(page, `${PREFIX}-shop`)).toBeVisible();
  await expect(row(page, `${PREFIX}-shop`).locator('td[data-label="Uptime"]')).toHaveText('0/2');
  await expect(row(page, `${PREFIX}-feed`)).toBeVisible();
  await expect(row(page, `${PREFIX}-api`)).toHaveCount(0);
  await page.getByRole('button', { name: `Expand ${PREFIX}-shop` }).click();
  await expect(row(page, `${PREFIX}-cart`)).toBeVisible();
  const cart = row(page, `${PREFIX}-cart`);
  await expect(cart.locator('td[data-label="Uptime"]')).toHaveText('50.0%');
  await expect(cart.locator('td[data-label="Latency"]')).toHaveText('1.4s');
  await expect(cart.locator('td[data-label="Health"]')).toContainText('2h ago');
  await expect(cart.locator('td[data-label="Transition"]')).toHaveText('3h ago');
  await expect(cart.getByRole('img', { name: 'Unhealthy' })).toBeVisible();
  await snap(page, 'health-grouped');

  // Show passing checks: the group counts 1 passing of 3.
  await page.getByText('Hide Passing', { exact: true }).click();
  await expect(page).toHaveURL(/hidePassing=false/);
  await expect(row(page, `${PREFIX}-shop`).locator('td[data-label="Uptime"]')).toHaveText('1/3');
  await expect(row(page, `${PREFIX}-api`).locator('td[data-label="Latency"]')).toHaveText('97ms');
  await expect(row(page, `${PREFIX}-api`).locator('td[data-label="Uptime"]')).toHaveText('99.0%');

  // No grouping, a namespace tab, sorting by latency (then descending).
  await choose(page, page, 'Group By', 'No Grouping');
  await expect(page).toHaveURL(/groupBy=no-group/);
  const tabs = page.getByRole('tab');
  await expect(tabs.first()).toHaveText('All');
  const titles = await tabs.allInnerTexts();
  expect(titles.slice(1)).toEqual([...titles.slice(1)].sort((a, b) => a.localeCompare(b)));
  await page.getByRole('tab', { name: NS_A }).click();
  await expect(page).toHaveURL(new RegExp(`tab=${NS_A}`));
  await expect.poll(() => names(page)).toEqual([`${PREFIX}-api`, `${PREFIX}-cart`, `${PREFIX}-pay`]);
  await table(page).getByRole('button', { name: 'Latency' }).click();
  await expect(page).toHaveURL(/sortBy=latency/);
  await expect.poll(() => names(page)).toEqual([`${PREFIX}-pay`, `${PREFIX}-api`, `${PREFIX}-cart`]);
  await table(page).getByRole('button', { name: 'Latency' }).click();
  await expect(page).toHaveURL(/sortDesc=true/);
  await expect.poll(() => names(page)).toEqual([`${PREFIX}-cart`, `${PREFIX}-api`, `${PREFIX}-pay`]);
  await table(page).getByRole('button', { name: 'Health' }).click();
  await expect(page).toHaveURL(/sortBy=health/);
  await expect(page).not.toHaveURL(/sortDesc/);
  await expect.poll(() => names(page)).toEqual([`${PREFIX}-cart`, `${PREFIX}-pay`, `${PREFIX}-api`]);
  await choose(page, page, 'Time range', 'Last 1 week');
  await expect(page).toHaveURL(/timeRange=1w/);
  await snap(page, 'health-tab-sorted');

  // Everything survives a reload.
  const summary = page.waitForRequest((r) => r.url().includes('/api/canary/api/summary') && r.url().includes('since=10080m'));
  await page.reload();
  await summary;
  await expect(page.getByRole('textbox', { name: 'Search checks' })).toHaveValue(PREFIX);
  await expect(page.getByRole('switch', { name: 'Hide Passing' })).not.toBeChecked();
  await expect(page.getByRole('button', { name: 'Group By' })).toHaveText('No Grouping');
  await expect(page.getByRole('button', { name: 'Time range' })).toHaveText('Last 1 week');
  await expect(page.getByRole('tab', { name: NS_A })).toHaveAttribute('aria-selected', 'true');
  await expect.poll(() => names(page)).toEqual([`${PREFIX}-cart`, `${PREFIX}-pay`, `${PREFIX}-api`]);

  // Search matches descriptions and endpoints too.
  await page.getByRole('tab', { name: 'All' }).click();
  await expect(page).not.toHaveURL(/tab=/);
  await search(page, 'rss');
  await expect.poll(() => names(page)).toEqual([`${PREFIX}-feed`]);
  await search(page, 'api.e2e-health');
  await expect.poll(() => names(page)).toEqual([`${PREFIX}-api`]);
  await page.getByRole('textbox', { name: 'Search checks' }).fill('no-such-check-anywhere');
  await expect(table(page).getByText('No data available')).toBeVisible();
});

test('label filters include, exclude and collapse to a count', async ({ page }) => {
  await page.goto(`/health?query=${PREFIX}&hidePassing=false&groupBy=no-group`);
  await expect.poll(() => names(page)).toHaveLength(5);

  await page.getByRole('button', { name: 'Filter by env' }).click();
  await option(page, 'prod').click();
  await expect.poll(() => names(page)).toEqual([`${PREFIX}-api`, `${PREFIX}-home`]);
  await option(page, 'qa').click();
  await expect.poll(() => names(page)).toEqual([`${PREFIX}-api`, `${PREFIX}-home`, `${PREFIX}-pay`]);
  await expect(page.getByRole('button', { name: 'Filter by env' })).toHaveText('prod, qa');
  await page.keyboard.press('Escape');

  await page.getByRole('button', { name: 'Filter by team' }).click();
  await page.getByRole('menuitem', { name: 'Exclude edge', exact: true }).click();
  await expect.poll(() => names(page)).toEqual([`${PREFIX}-api`]);
  await page.keyboard.press('Escape');
  await snap(page, 'health-labels');

  await page.getByRole('group', { name: 'critical' }).getByRole('button', { name: 'Exclude' }).click();
  await expect.poll(() => names(page)).toEqual([]);
  await page.getByRole('group', { name: 'critical' }).getByRole('button', { name: 'Include' }).click();
  await expect.poll(() => names(page)).toEqual([`${PREFIX}-api`]);
  const url = new URL(page.url());
  expect(JSON.parse(url.searchParams.get('labels') ?? '')).toEqual({ 'critical=true': 1, 'env=prod': 1, 'env=qa': 1, 'team=edge': -1 });

  await page.reload();
  await expect.poll(() => names(page)).toEqual([`${PREFIX}-api`]);
  await expect(page.getByRole('button', { name: 'Filter by env' })).toHaveText('prod, qa');
  await expect(page.getByRole('button', { name: 'Filter by team' })).toHaveText('!edge');
  await expect(page.getByRole('group', { name: 'critical' }).getByRole('button', { name: 'Include' })).toHaveAttribute(
    'aria-pressed',
    'true',
  );

  // Four or more chosen values collapse to a count.
  await page.getByRole('button', { name: 'Filter by env' }).click();
  await option(page, 'dev').click();
  await option(page, 'staging').click();
  await expect(page.getByRole('button', { name: 'Filter by env' })).toHaveText('including 4 labels');
  await page.keyboard.press('Escape');

  // __proto__ and constructor in the URL are ignored.
  await page.goto(
    `/health?query=${PREFIX}&hidePassing=false&groupBy=no-group&labels=${encodeURIComponent('{"__proto__":1,"constructor":-1,"env=dev":1}')}`,
  );
  await expect.poll(() => names(page)).toEqual([`${PREFIX}-cart`]);
});

test('tabs by agent and by label', async ({ page }) => {
  await page.goto(`/health?query=${PREFIX}&hidePassing=false`);
  await expect(row(page, `${PREFIX}-shop`)).toBeVisible();
  await choose(page, page, 'Tab By', 'Agent');
  await expect(page).toHaveURL(/tabBy=agent/);
  await page.getByRole('tab', { name: AGENT }).click();
  await expect.poll(() => names(page)).toEqual([`${PREFIX}-pay`]);
  await expect(page.getByRole('tab', { name: 'local' })).toBeVisible();

  await choose(page, page, 'Tab By', /^team/);
  await expect(page).toHaveURL(/tabBy=label%3Ateam/);
  await expect(page).not.toHaveURL(/tab=/);
  await page.getByRole('tab', { name: 'web' }).click();
  await expect.poll(() => names(page)).toEqual([`${PREFIX}-feed`]);
  await choose(page, page, 'Group By', /^env/);
  await expect(page).toHaveURL(/groupBy=label%3Aenv/);
  await page.getByRole('tab', { name: 'core' }).click();
  // Groups of one show as their check, in group order: dev, prod.
  await expect.poll(() => names(page)).toEqual([`${PREFIX}-cart`, `${PREFIX}-api`]);
  await snap(page, 'health-tabs-by-label');
});

test('the card layout opens the check detail', async ({ page }) => {
  await page.goto(`/health?query=${PREFIX}`);
  await page.getByRole('button', { name: 'Cards' }).click();
  await expect(page).toHaveURL(/layout=card/);
  const cards = page.getByRole('list', { name: 'Health checks' });
  await expect(cards.getByRole('button')).toHaveCount(3);
  await expect(cards.getByRole('button', { name: `${PREFIX}-cart: Unhealthy` })).toBeVisible();
  await snap(page, 'health-cards');
  await page.reload();
  await expect(cards.getByRole('button', { name: `${PREFIX}-cart: Unhealthy` })).toBeVisible();
  await cards.getByRole('button', { name: `${PREFIX}-cart: Unhealthy` }).click();
  await expect(page).toHaveURL(/checkId=/);
  await expect(page.getByRole('dialog')).toBeVisible();
});

test('a table row opens the check detail', async ({ page }) => {
  await page.goto(`/health?query=${PREFIX}&groupBy=no-group`);
  await row(page, `${PREFIX}-feed`).click();
  const [check] = await dbRows<{ id: string }>(page.request, `checks?name=eq.${PREFIX}-feed&select=id`);
  await expect(page).toHaveURL(new RegExp(`checkId=${check?.id}`));
  await expect(page.getByRole('dialog')).toBeVisible();
});

test('the pivot view', async ({ page }) => {
  await page.goto(`/health?query=${PREFIX}&hidePassing=false&pivotBy=name&pivotLabel=env&pivotCellType=uptime`);
  const pivot = page.getByRole('grid', { name: 'Health pivot' });
  await expect(pivot.getByRole('columnheader')).toHaveText(['name', 'dev', 'prod', 'qa', 'staging']);
  await expect(pivot.getByRole('row', { name: new RegExp(`${PREFIX}-cart`) })).toContainText('50.0%');
  await snap(page, 'health-pivot');
  await page.getByRole('button', { name: 'Leave the pivot view' }).click();
  await expect(page).not.toHaveURL(/pivot/);
  await expect(table(page)).toBeVisible();
});

test('narrow screens open the filters from a button with a count', async ({ page }) => {
  await page.setViewportSize({ width: 900, height: 800 });
  await page.goto(`/health?query=${PREFIX}&labels=${encodeURIComponent('{"env=prod":1}')}`);
  const toggle = page.getByRole('button', { name: /^Filters/ });
  await expect(toggle).toHaveText('Filters 2');
  await expect(page.getByRole('switch', { name: 'Hide Passing' })).toBeHidden();
  await toggle.click();
  await expect(page.getByRole('switch', { name: 'Hide Passing' })).toBeVisible();
  await snap(page, 'health-narrow-filters');
  await page.getByText('Hide Passing', { exact: true }).click();
  await expect(page.getByRole('switch', { name: 'Hide Passing' })).not.toBeChecked();
  await expect(toggle).toHaveText('Filters 1');
});

test('the embedded view has no shell', async ({ page }) => {
  await page.goto(`/view/health?query=${PREFIX}&hidePassing=false&groupBy=no-group`);
  await expect.poll(() => names(page)).toHaveLength(5);
  await expect(page.getByRole('navigation', { name: 'Main' })).toHaveCount(0);
  await expect(page.getByRole('button', { name: 'User menu' })).toHaveCount(0);
  await snap(page, 'health-embedded');
});

test.describe('signed out', () => {
  test.use({ storageState: { cookies: [], origins: [] } });

  // The browser tests' API publishes health (e2e/serve.mjs); off, the API answers 401 (console-api tests).
  test('published health shows every check to a visitor, without the detail', async ({ page }) => {
    await page.goto(`/view/health?query=${PREFIX}&hidePassing=false&groupBy=no-group`);
    await expect.poll(() => names(page)).toHaveLength(5);
    await expect(page).toHaveURL(/\/view\/health/);
    await row(page, `${PREFIX}-feed`).click();
    await expect(page).not.toHaveURL(/checkId=/);
    await expect(page.getByRole('dialog')).toHaveCount(0);
    // Everything else still asks for sign-in.
    await page.goto('/health');
    await expect(page).toHaveURL(/\/login\?return_to=/);
  });
});

test('the refresh-rate preference refreshes the list', async ({ page }) => {
  await page.clock.install();
  await page.goto(`/health?query=${PREFIX}`);
  await expect(row(page, `${PREFIX}-shop`)).toBeVisible();
  await page.getByRole('button', { name: 'Preferences' }).click();
  const rate = page.getByRole('dialog', { name: 'Preferences' }).getByRole('combobox', { name: 'Refresh rate' });
  await expect(rate).toHaveValue('');
  await expect(rate.locator('option')).toHaveText(['None', '15s', '30s', '60s', '2m', '3m', '5m', '10m', '15m']);
  await rate.selectOption('15s');
  await page.keyboard.press('Escape');
  const refreshed = page.waitForRequest((r) => r.url().includes('/api/canary/api/summary'));
  await page.clock.runFor(16_000);
  await refreshed;
  await rate.page().getByRole('button', { name: 'Preferences' }).click();
  await page.getByRole('dialog', { name: 'Preferences' }).getByRole('combobox', { name: 'Refresh rate' }).selectOption('');
});
