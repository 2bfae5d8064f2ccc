import { expect as baseExpect, test, type Page } from '@playwright/test';
import { ADMIN_STATE, GUEST, USER_PASSWORD } from './env';
import { option, snap } from './helpers';
import { seed } from './seed';

test.use({ storageState: ADMIN_STATE });

/** Generous waits: the machine is small and other specs seed at the same time. */
const expect = baseExpect.configure({ timeout: 20_000 });

const PREFIX = 'e2e-cat-list-';
const ALPHA = 'E2eCatList::Alpha';
const BETA = 'E2eCatList::Beta';
/** 60 items, even ones Alpha, odd ones Beta; health cycles healthy, unhealthy,
 * warning, unknown by index; 58 and 59 are deleted. */
const ITEMS = 60;
const SCOPE = `${PREFIX}scope`;

test.beforeAll(async () => {
  await seed('catalog-world', { prefix: PREFIX, types: [ALPHA, BETA], items: ITEMS, changes: 2, insights: 1, deleted: 2 });
});

test.afterAll(async () => {
  await seed('remove', { what: 'access_scopes', prefix: SCOPE });
});

const table = (page: Page) => page.getByRole('grid', { name: 'Config items' });
/** The item names the table shows, in order. */
const names = (page: Page) => table(page).getByRole('link');
const search = (page: Page) => page.getByRole('textbox', { name: 'Search config items' });

/** The catalog with the list narrowed to this spec's items by the search box. */
async function open(page: Page, query = '') {
  await page.goto(`/catalog?q=${encodeURIComponent(`${PREFIX} ${query}`.trim())}`);
  await expect(table(page)).toBeVisible();
}

test('the sidebar entry lands on /catalog; /configs redirects there', async ({ page }) => {
  await page.goto('/health');
  await page.getByRole('navigation').getByRole('link', { name: 'Catalog', exact: true }).click();
  await expect(page).toHaveURL(/\/catalog$/);
  await expect(table(page)).toBeVisible();
  await page.goto('/configs');
  await expect(page).toHaveURL(/\/catalog$/);
  await expect(
    page.getByText('Filter the list using queries e.g: name=grafana type=Kubernetes::Deployment or health=healthy,unhealthy'),
  ).toBeVisible();
});

test("the catalog's sub-navigation leads to its changes, insights and scrapers", async ({ page }) => {
  await page.goto('/catalog');
  const sub = page.getByRole('navigation', { name: 'Catalog' });
  await expect(sub.getByRole('link', { name: 'Items' })).toHaveAttribute('aria-current', 'page');
  for (const [name, path] of [
    ['Changes', '/catalog/changes'],
    ['Insights', '/catalog/insights'],
    ['Scrapers', '/catalog/scrapers'],
  ] as const) {
    await sub.getByRole('link', { name }).click();
    await expect(page).toHaveURL(new RegExp(`${path}$`));
    await expect(page.getByRole('navigation', { name: 'Catalog' }).getByRole('link', { name })).toHaveAttribute('aria-current', 'page');
  }
  await page.getByRole('navigation', { name: 'Catalog' }).getByRole('link', { name: 'Items' }).click();
  await expect(table(page)).toBeVisible();
});

test('types with their counts; choosing one filters, and the URL keeps it', async ({ page }) => {
  await open(page);
  const alpha = page.getByRole('button', { name: new RegExp(`^${ALPHA}\\s*29$`) });
  await expect(alpha).toBeVisible();
  await expect(page.getByRole('button', { name: new RegExp(`^${BETA}\\s*29$`) })).toBeVisible();
  await snap(page, 'catalog');

  await alpha.click();
  await expect(page).toHaveURL(/type=E2eCatList%3A%3AAlpha/);
  await expect(alpha).toHaveAttribute('aria-pressed', 'true');
  await expect(names(page)).toHaveCount(29);
  await expect(table(page).getByRole('link', { name: `${PREFIX}1`, exact: true })).toHaveCount(0);
  await page.reload();
  await expect(names(page)).toHaveCount(29);
  await expect(alpha).toHaveAttribute('aria-pressed', 'true');

  await page.getByRole('button', { name: /^All types/ }).click();
  await expect(page).not.toHaveURL(/type=/);
  await expect(names(page)).toHaveCount(50);
});

test('filter by health with the control and by the search grammar; reload keeps both', async ({ page }) => {
  await open(page);
  await page.getByRole('button', { name: 'Filter by health' }).click();
  await option(page, 'Unhealthy').click();
  await page.getByRole('button', { name: 'Filter by health' }).click();
  await expect(page).toHaveURL(/health=unhealthy/);
  // 1, 5, ..., 57
  await expect(names(page)).toHaveCount(15);
  await page.reload();
  await expect(names(page)).toHaveCount(15);
  await expect(page.getByRole('button', { name: 'Filter by health' })).toHaveText('Unhealthy');

  await page.goto('/catalog');
  await search(page).fill(`${PREFIX} type=${ALPHA} health=warning,unhealthy`);
  await expect(page).toHaveURL(/q=.*type%3DE2eCatList%3A%3AAlpha/);
  // Alpha (even) and warning: 2, 6, ..., 54 (58 is deleted)
  await expect(names(page)).toHaveCount(14);
  await expect(table(page).getByRole('link', { name: `${PREFIX}2`, exact: true })).toBeVisible();
  await page.reload();
  await expect(search(page)).toHaveValue(`${PREFIX} type=${ALPHA} health=warning,unhealthy`);
  await expect(names(page)).toHaveCount(14);

  // Controls and search narrow together: unknown is not among warning and unhealthy.
  await page.getByRole('button', { name: 'Filter by health' }).click();
  await option(page, 'Unknown').click();
  await expect(page.getByText('No data available')).toBeVisible();
});

test('pages and sorts on the server, in the URL; a filter change goes back to the first page', async ({ page }) => {
  await open(page);
  await expect(names(page)).toHaveCount(50);
  await expect(names(page).first()).toHaveText(`${PREFIX}0`);
  await page.getByRole('button', { name: 'Go to next page' }).first().click();
  await expect(page).toHaveURL(/pageIndex=1/);
  await expect(names(page)).toHaveCount(8);

  await table(page).getByRole('button', { name: 'Name' }).click();
  await expect(page).not.toHaveURL(/pageIndex=/);
  await expect(page).toHaveURL(/sortDesc=true/);
  await expect(names(page).first()).toHaveText(`${PREFIX}9`);
  await page.reload();
  await expect(names(page).first()).toHaveText(`${PREFIX}9`);

  await table(page).getByRole('button', { name: 'Created' }).click();
  await expect(page).toHaveURL(/sortBy=created_at/);
  // Item i was created i hours ago: the oldest first.
  await expect(names(page).first()).toHaveText(`${PREFIX}57`);
});

test('a row opens its item', async ({ page }) => {
  await open(page, `name=${PREFIX}3`);
  await expect(names(page)).toHaveCount(1);
  const id = (await names(page).first().getAttribute('href'))?.split('/').pop();
  await table(page).getByRole('gridcell', { name: BETA, exact: true }).click();
  await expect(page).toHaveURL(new RegExp(`/catalog/${id}$`));
});

test('show deleted, from the preference or the URL', async ({ page }) => {
  await open(page, `name=${PREFIX}59`);
  await expect(page.getByText('No data available')).toBeVisible();
  // The switch's toggle covers its input, so the click goes to the label, as a person's would.
  await page.getByText('Show deleted', { exact: true }).click();
  await expect(page).toHaveURL(/showDeleted=true/);
  await expect(names(page)).toHaveCount(1);
  await expect(table(page).getByText('(deleted)')).toBeVisible();
  await page.reload();
  await expect(page.getByRole('switch', { name: 'Show deleted' })).toBeChecked();
  await expect(names(page)).toHaveCount(1);
});

test('a guest sees exactly the items its access scope matches', async ({ browser }) => {
  await seed('access-scopes', [
    { name: SCOPE, subject: { email: GUEST.email }, resources: ['config'], scopes: [{ names: [`${PREFIX}1`, `${PREFIX}2`] }] },
  ]);
  const context = await browser.newContext({ storageState: undefined });
  try {
    const page = await context.newPage();
    await page.goto(`/catalog?q=${encodeURIComponent(PREFIX)}`);
    await page.getByRole('textbox', { name: 'Email' }).fill(GUEST.email);
    await page.getByLabel('Password').fill(USER_PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect(page).toHaveURL(/\/catalog\?q=/);
    await expect(names(page)).toHaveText([`${PREFIX}1`, `${PREFIX}2`]);
    // 1 is Beta, 2 is Alpha: the guest's counts are its own.
    await expect(page.getByRole('button', { name: new RegExp(`^${ALPHA}\\s*1$`) })).toBeVisible();
    await snap(page, 'catalog-guest');
  } finally {
    await context.close();
  }
});
