import { expect as baseExpect, test, type Page } from '@playwright/test';
import { seed } from './seed';
import { ADMIN_STATE } from './env';

// No traces: their DOM snapshots would run while the pages render and blur the figures.
test.use({ storageState: ADMIN_STATE, trace: 'off' });

/** Generous waits: the machine is small and other specs seed at the same time. */
const expect = baseExpect.configure({ timeout: 30_000 });

const PREFIX = 'e2e-perf-cat-';
const ITEMS = 100_000;
const CHANGES_PER_ITEM = 10;
const RELATED = 500;

let hub = '';

type Marks = Record<string, number>;

/** Records, inside the page, when what the user waits for is in the DOM
 * (MutationObserver, so Playwright's polling does not blur the figure):
 * `list` the catalog's first row, `changes` the feed's first row, `graph` all
 * `related` nodes of the relationships graph besides the item itself. */
function installMarks(related: number): void {
  const marks: Marks = {};
  (window as unknown as { __marks: Marks }).__marks = marks;
  const now = () => performance.now();
  new MutationObserver(() => {
    if (!marks.list && document.querySelector('table[aria-label="Config items"] td[data-label="Name"] a')?.textContent) marks.list = now();
    if (!marks.changes && document.querySelector('table[aria-label="Changes"] td[data-label="Config"]')?.textContent) marks.changes = now();
    if (!marks.graph && document.querySelectorAll('ul[aria-label="Related items"] > li').length > related) marks.graph = now();
  }).observe(document, { childList: true, subtree: true });
}

/** Loads `path` and answers the mark's time after navigation start, and the API calls' timings. */
async function measure(page: Page, path: string, mark: 'list' | 'changes' | 'graph'): Promise<{ ms: number; api: string }> {
  await page.addInitScript(installMarks, RELATED);
  await page.goto(path);
  // Polls the mark only: role locators, evaluated over and over, would slow the page down.
  await page.waitForFunction((m) => (window as unknown as { __marks: Marks }).__marks[m], mark, { polling: 100, timeout: 60_000 });
  const ms = Math.round(await page.evaluate((m) => (window as unknown as { __marks: Marks }).__marks[m] ?? NaN, mark));
  const api = await page.evaluate(() =>
    performance
      .getEntriesByType('resource')
      .filter((e) => e.name.includes('/api/'))
      .map((e) => `${new URL(e.name).pathname} @${Math.round(e.startTime)}+${Math.round(e.duration)}`)
      .join(', '),
  );
  return { ms, api };
}

test.beforeAll(async () => {
  test.setTimeout(600_000);
  const started = Date.now();
  const world = await seed('catalog-world', {
    prefix: PREFIX,
    types: ['Kubernetes::Deployment', 'Kubernetes::Pod', 'Kubernetes::Service', 'AWS::EC2::Instance'],
    items: ITEMS,
    changes: CHANGES_PER_ITEM,
    insights: 2,
    related: RELATED,
    parents: 4,
    deleted: 1000,
    scraper: true,
  });
  hub = world.hub;
  console.log(
    `catalog perf seed: ${ITEMS} items, ${ITEMS * CHANGES_PER_ITEM} changes, ${ITEMS * 2} insights in ${Date.now() - started} ms`,
  );
});

test.afterAll(async () => {
  test.setTimeout(300_000);
  await seed('remove', { what: 'catalog', prefix: PREFIX });
});

test(`the catalog with ${ITEMS} items becomes interactive`, async ({ page }) => {
  const { ms, api } = await measure(page, '/catalog', 'list');
  await expect(page.getByRole('grid', { name: 'Config items' }).getByRole('link').first()).toBeVisible();
  console.log(`catalog list API calls (ms): ${api}`);
  console.log(`catalog list interactive with ${ITEMS} items: first row at ${ms} ms`);
});

test(`the changes feed with ${ITEMS * CHANGES_PER_ITEM} changes shows its first page`, async ({ page }) => {
  const { ms, api } = await measure(page, '/catalog/changes', 'changes');
  await expect(page.getByRole('grid', { name: 'Changes' }).getByRole('row').nth(1)).toBeVisible();
  console.log(`catalog changes API calls (ms): ${api}`);
  console.log(`catalog changes first page with ${ITEMS * CHANGES_PER_ITEM} changes: first row at ${ms} ms`);
});

test(`the relationships tab of an item with ${RELATED} relationships renders them all`, async ({ page }) => {
  const { ms, api } = await measure(page, `/catalog/${hub}/relationships`, 'graph');
  await expect(page.getByRole('region', { name: 'Relationships graph' }).getByRole('link')).toHaveCount(RELATED + 1);
  console.log(`catalog relationships API calls (ms): ${api}`);
  console.log(`catalog relationships tab with ${RELATED} relationships: all rendered at ${ms} ms`);
});
