import { expect, test, type Page } from '@playwright/test';
import { ADMIN_STATE } from './env';
import { expectToast } from './helpers';
import { seed } from './seed';

const PREFIX = 'e2e-cat-item-';
const CHANGES = 3;

test.use({ storageState: ADMIN_STATE });

let hub = { id: '', name: '' };
let chain: { id: string; name: string }[] = [];
let checkId = '';

test.beforeAll(async () => {
  await seed('remove', { what: 'canaries', prefix: PREFIX });
  const canary = await seed('canary', {
    name: `${PREFIX}canary`,
    spec: { schedule: '@every 1h', exec: [{ name: `${PREFIX}check`, script: 'echo ok' }] },
    checks: [{ name: `${PREFIX}check`, type: 'exec', status: 'healthy', lastRunSecsAgo: 60 }],
  });
  checkId = canary.checks[0] ?? '';
  const world = await seed('catalog-world', {
    prefix: PREFIX,
    types: ['Kubernetes::Deployment', 'Kubernetes::Pod'],
    items: 4,
    changes: CHANGES,
    insights: 2,
    related: 2,
    parents: 3,
    checks: [checkId],
  });
  const first = world.items[0];
  if (!first || world.chain.length !== 3) throw new Error('seeding the catalog world failed');
  hub = first;
  chain = world.chain;
});

const tab = (page: Page, name: string) => page.getByRole('tab', { name: new RegExp(`^${name}`) });

test('the header shows the item with its type, status, tags, labels and ages', async ({ page }) => {
  await page.goto(`/catalog/${hub.id}`);
  await expect(page.getByRole('heading', { level: 2, name: hub.name, exact: true })).toBeVisible();
  const detail = (term: string) => page.getByRole('group', { name: term, exact: true }).getByRole('definition');
  await expect(detail('Type')).toHaveText('Kubernetes::Deployment');
  await expect(detail('Status')).toHaveText('Running');
  await expect(detail('Created')).toHaveText(/ago$/);
  await expect(page.getByRole('list', { name: 'Tags' }).getByRole('listitem').first()).toHaveText(/^account:account-0/);
  await expect(page.getByRole('list', { name: 'Labels' }).getByText('team:payments')).toBeVisible();
  await expect(page.getByRole('img', { name: 'Healthy' }).first()).toBeVisible();
  // Item 0's changes; counts on the tabs.
  await expect(tab(page, 'Changes')).toHaveText(`Changes ${CHANGES}`);
  await expect(tab(page, 'Checks')).toHaveText('Checks 1');
});

test('the parents breadcrumb links each ancestor, root first', async ({ page }) => {
  const [root, middle, leaf] = chain;
  if (!root || !middle || !leaf) throw new Error('no chain');
  await page.goto(`/catalog/${leaf.id}`);
  const crumbs = page.getByRole('navigation', { name: 'Parents' });
  await expect(crumbs.getByRole('link')).toHaveText([root.name, middle.name]);
  await expect(crumbs).toContainText(leaf.name);
  await crumbs.getByRole('link', { name: root.name }).click();
  await expect(page).toHaveURL(new RegExp(`/catalog/${root.id}$`));
  await expect(page.getByRole('heading', { level: 2, name: root.name, exact: true })).toBeVisible();
  await expect(page.getByRole('navigation', { name: 'Parents' })).toHaveCount(0);
});

test('tabs are URL paths: clicking, deep links and the back button', async ({ page }) => {
  await page.goto(`/catalog/${hub.id}`);
  await expect(tab(page, 'Config')).toHaveAttribute('aria-selected', 'true');
  for (const [name, path] of [
    ['Changes', 'changes'],
    ['Insights', 'insights'],
    ['Relationships', 'relationships'],
    ['Playbooks', 'playbooks'],
    ['Checks', 'checks'],
  ] as const) {
    await tab(page, name).click();
    await expect(page).toHaveURL(new RegExp(`/catalog/${hub.id}/${path}$`));
    await expect(tab(page, name)).toHaveAttribute('aria-selected', 'true');
  }
  await page.goBack();
  await expect(page).toHaveURL(new RegExp(`/catalog/${hub.id}/playbooks$`));
  await expect(tab(page, 'Playbooks')).toHaveAttribute('aria-selected', 'true');
  // No playbook targets these items: the list is empty, and there is no run button.
  await expect(page.getByText('No data available')).toBeVisible();
  await expect(page.getByRole('button', { name: /run/i })).toHaveCount(0);

  for (const [name, path] of [
    ['Insights', 'insights'],
    ['Checks', 'checks'],
    ['Config', ''],
  ] as const) {
    await page.goto(`/catalog/${hub.id}${path ? `/${path}` : ''}`);
    await expect(tab(page, name)).toHaveAttribute('aria-selected', 'true');
  }
});

test('the config shows as YAML or JSON and copies', async ({ page, context }) => {
  await context.grantPermissions(['clipboard-read', 'clipboard-write']);
  await page.goto(`/catalog/${hub.id}`);
  const yaml = page.getByRole('region', { name: 'Config as YAML' });
  await expect(yaml).toContainText(`name: ${hub.name}`);
  await page.getByRole('button', { name: 'JSON', exact: true }).click();
  await expect(page).toHaveURL(/format=json/);
  const json = page.getByRole('region', { name: 'Config as JSON' });
  await expect(json).toContainText(`"name": "${hub.name}"`);
  await page.getByRole('button', { name: 'Copy config' }).click();
  await expectToast(page, 'Copied to clipboard');
  const copied = await page.evaluate(() => navigator.clipboard.readText());
  expect(JSON.parse(copied)).toMatchObject({ metadata: { name: hub.name } });
  // The format survives a reload.
  await page.reload();
  await expect(page.getByRole('region', { name: 'Config as JSON' })).toBeVisible();
});

test('the checks tab links each check to its detail on the Health page', async ({ page }) => {
  await page.goto(`/catalog/${hub.id}/checks`);
  const table = page.getByRole('grid', { name: 'Checks' });
  const link = table.getByRole('link', { name: `${PREFIX}check` });
  await expect(link).toHaveAttribute('href', `/health?checkId=${checkId}&timeRange=1h`);
  await expect(table.getByRole('img', { name: 'Healthy' })).toBeVisible();
  await link.click();
  await expect(page).toHaveURL(new RegExp(`/health\\?checkId=${checkId}&timeRange=1h`));
});

test('an unknown item, a malformed id and a view show No details found', async ({ page }) => {
  for (const path of ['/catalog/00000000-0000-0000-0000-0000000000ab', '/catalog/not-an-id']) {
    await page.goto(path);
    await expect(page.getByRole('heading', { name: 'No details found' })).toBeVisible();
  }
  await page.goto(`/catalog/${hub.id}/view/some-view`);
  await expect(tab(page, 'View')).toHaveAttribute('aria-selected', 'true');
  await expect(page.getByRole('heading', { name: 'No details found' })).toBeVisible();
});
