import { expect, test, type Page } from '@playwright/test';
import { ADMIN_STATE } from './env';
import { choose, snap } from './helpers';
import { seed, type SeededItem } from './seed';

const PREFIX = 'e2e-cat-rel-';
const BIG = 'e2e-relbig-';
const RELATED = 500;

// No traces: the trace's DOM snapshots after each action would run while the
// graph renders and blur the timing (failures still keep a screenshot).
test.use({ storageState: ADMIN_STATE, trace: 'off' });

let items: SeededItem[] = [];
let chain: SeededItem[] = [];
let bigHub = '';

test.beforeAll(async () => {
  // The hub (item 0) relates to items 2 and 4 and is related to by 1 and 3;
  // item 5 has no relationships; chain-0 is the parent of chain-1, and so on.
  const world = await seed('catalog-world', {
    prefix: PREFIX,
    types: ['Kubernetes::Deployment', 'Kubernetes::Pod'],
    items: 6,
    related: 4,
    parents: 4,
  });
  items = world.items;
  chain = world.chain;
  const big = await seed('catalog-world', { prefix: BIG, types: ['Kubernetes::Pod'], items: RELATED + 1, related: RELATED });
  bigHub = big.hub;
});

test.afterAll(async () => {
  await seed('remove', { what: 'catalog', prefix: PREFIX });
  await seed('remove', { what: 'catalog', prefix: BIG });
});

const item = (i: number) => {
  const found = items[i];
  if (!found) throw new Error(`no item ${i}`);
  return found;
};
const level = (l: number) => {
  const found = chain[l];
  if (!found) throw new Error(`no chain level ${l}`);
  return found;
};
const graph = (page: Page) => page.getByRole('list', { name: 'Related items' });
/** A node by the item's exact name (its link also names its health and type). */
const node = (page: Page, name: string) => graph(page).getByRole('link', { name: new RegExp(`^${name} `) });

test('the graph shows the related items around the item, each linking to its page', async ({ page }) => {
  await page.goto(`/catalog/${item(0).id}/relationships`);
  const region = page.getByRole('region', { name: 'Relationships graph' });
  await expect(region).toBeVisible();
  for (const i of [1, 2, 3, 4]) await expect(node(page, item(i).name)).toBeVisible();
  await expect(node(page, item(5).name)).toHaveCount(0);
  // The item itself, highlighted as the current page.
  await expect(node(page, item(0).name)).toHaveAttribute('aria-current', 'page');
  await expect(region.getByText('Incoming, 1 hop')).toBeVisible();
  await expect(region.getByText('Outgoing, 1 hop')).toBeVisible();
  await expect(page.getByText('4 related items')).toBeVisible();
  await snap(page, 'catalog-relationships');

  await node(page, item(2).name).click();
  await expect(page).toHaveURL(new RegExp(`/catalog/${item(2).id}$`));
  await expect(page.getByRole('heading', { name: item(2).name, exact: true })).toBeVisible();
});

test('the direction control walks incoming, outgoing or both ways and is kept in the URL', async ({ page }) => {
  await page.goto(`/catalog/${item(0).id}/relationships`);
  await expect(node(page, item(1).name)).toBeVisible();
  const direction = page.getByRole('group', { name: 'Direction' });

  await direction.getByRole('button', { name: 'Outgoing' }).click();
  await expect(page).toHaveURL(/[?&]direction=outgoing/);
  await expect(node(page, item(2).name)).toBeVisible();
  await expect(node(page, item(4).name)).toBeVisible();
  await expect(node(page, item(1).name)).toHaveCount(0);
  await expect(node(page, item(3).name)).toHaveCount(0);

  await direction.getByRole('button', { name: 'Incoming' }).click();
  await expect(page).toHaveURL(/[?&]direction=incoming/);
  await expect(node(page, item(1).name)).toBeVisible();
  await expect(node(page, item(3).name)).toBeVisible();
  await expect(node(page, item(2).name)).toHaveCount(0);

  // Reloading keeps the choice.
  await page.reload();
  await expect(direction.getByRole('button', { name: 'Incoming' })).toHaveAttribute('aria-pressed', 'true');
  await expect(node(page, item(4).name)).toHaveCount(0);

  await direction.getByRole('button', { name: 'Both' }).click();
  await expect(page).not.toHaveURL(/direction=/);
  await expect(node(page, item(4).name)).toBeVisible();
});

test('the depth control limits the hops walked and is kept in the URL', async ({ page }) => {
  await page.goto(`/catalog/${level(0).id}/relationships`);
  for (const l of [1, 2, 3]) await expect(node(page, level(l).name)).toBeVisible();
  await expect(page.getByText('Outgoing, 3 hops')).toBeVisible();

  await choose(page, page, 'Depth', '1 hop');
  await expect(page).toHaveURL(/[?&]depth=1(&|$)/);
  await expect(node(page, level(1).name)).toBeVisible();
  await expect(node(page, level(2).name)).toHaveCount(0);
  await expect(node(page, level(3).name)).toHaveCount(0);

  await page.goto(`/catalog/${level(3).id}/relationships?depth=2`);
  await expect(page.getByRole('button', { name: 'Depth' })).toHaveText('2 hops');
  await expect(node(page, level(2).name)).toBeVisible();
  await expect(node(page, level(1).name)).toBeVisible();
  await expect(node(page, level(0).name)).toHaveCount(0);
});

test('the list view shows the same items as a table', async ({ page }) => {
  await page.goto(`/catalog/${item(0).id}/relationships`);
  await page.getByRole('group', { name: 'View' }).getByRole('button', { name: 'List' }).click();
  await expect(page).toHaveURL(/[?&]view=list/);
  const table = page.getByRole('grid', { name: 'Related items' });
  await expect(table.getByRole('row')).toHaveCount(5);
  const row = table.getByRole('row', { name: new RegExp(item(1).name) });
  await expect(row.getByRole('gridcell', { name: 'Incoming' })).toBeVisible();
  await expect(row.getByRole('img', { name: 'Unhealthy' })).toBeVisible();
  await row.getByRole('link', { name: item(1).name }).click();
  await expect(page).toHaveURL(new RegExp(`/catalog/${item(1).id}$`));
});

test('an item without relationships shows No data available', async ({ page }) => {
  await page.goto(`/catalog/${item(5).id}/relationships`);
  await expect(page.getByRole('heading', { name: 'No data available' })).toBeVisible();
  await expect(page.getByRole('region', { name: 'Relationships graph' })).toHaveCount(0);
});

test(`the graph of an item with ${RELATED} relationships shows every one of them`, async ({ page }) => {
  // Its render time is a figure printed by catalog-perf.spec.ts, never a test's pass mark.
  await page.goto(`/catalog/${bigHub}/relationships`);
  await expect(page.getByText(`${RELATED} related items`)).toBeVisible();
  await expect(graph(page).getByRole('link')).toHaveCount(RELATED + 1);
});
