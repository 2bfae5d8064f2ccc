import { expect as baseExpect, test, type Page } from '@playwright/test';
import { ADMIN_STATE } from './env';
import { seed } from './seed';

// No traces: their DOM snapshots would run while the pages render and blur the figures.
test.use({ storageState: ADMIN_STATE, trace: 'off' });

/** Generous waits: the machine is small and other specs seed at the same time. */
const expect = baseExpect.configure({ timeout: 30_000 });

const PREFIX = 'e2e-perf-topo-';
const ROOT = `${PREFIX}topology`;
const BIG = `${PREFIX}big`;
const COMPONENTS = 5_000;
const CHILDREN = 500;
const DEPTH = 4;
/** The root, its four children and big's pods are the world's fixed part. */
const BULK = COMPONENTS - 5 - CHILDREN;

let root = '';
let big = '';

type Marks = Record<string, number>;

/** Records, inside the page, when what the user waits for is in the DOM
 * (MutationObserver, so Playwright's polling does not blur the figure): `root`
 * the world's root card on the dashboard (all cards come in one render, so it
 * is the last), `children` the `children`-th card of a component page. */
function installMarks({ root, children }: { root: string; children: number }): void {
  const marks: Marks = {};
  (window as unknown as { __marks: Marks }).__marks = marks;
  const now = () => performance.now();
  new MutationObserver(() => {
    const cards = document.querySelector('ul[aria-label="Components"]');
    if (!marks.root && cards?.querySelector(`article[aria-label="${root}"]`)) marks.root = now();
    if (!marks.children && (cards?.children.length ?? 0) >= children) {
      marks.children = now();
      // The first frame with them: styles and layout are done by the next frame's callback,
      // and the task after it runs once that frame is painted.
      requestAnimationFrame(() => setTimeout(() => (marks.painted = now())));
    }
  }).observe(document, { childList: true, subtree: true });
  const long: string[] = [];
  (window as unknown as { __long: string[] }).__long = long;
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) long.push(`@${Math.round(e.startTime)}+${Math.round(e.duration)}`);
  }).observe({ type: 'longtask', buffered: true });
}

async function mark(page: Page, name: 'root' | 'children' | 'painted'): Promise<number> {
  // Polls the mark only: role locators, evaluated over and over, would slow the page down.
  await page.waitForFunction((m) => (window as unknown as { __marks: Marks }).__marks[m], name, { polling: 100, timeout: 60_000 });
  return Math.round(await page.evaluate((m) => (window as unknown as { __marks: Marks }).__marks[m] ?? NaN, name));
}

/** The page's scripts' and styles' timings (ms after navigation start), for a page load. */
function assets(page: Page): Promise<string> {
  return page.evaluate(() =>
    performance
      .getEntriesByType('resource')
      .filter((e) => /\/assets\/.*\.(js|css)$/.test(e.name))
      .map(
        (e) =>
          `${new URL(e.name).pathname.replace('/assets/', '').replace(/-[\w-]{8}\./, '.')} @${Math.round(e.startTime)}+${Math.round(e.duration)}`,
      )
      .join(', '),
  );
}

/** The API calls' timings after `since` (ms after navigation start). */
function apiCalls(page: Page, since = 0): Promise<string> {
  return page.evaluate(
    (since) =>
      performance
        .getEntriesByType('resource')
        .filter((e) => e.name.includes('/api/') && e.startTime >= since)
        .map((e) => `${new URL(e.name).pathname} @${Math.round(e.startTime - since)}+${Math.round(e.duration)}`)
        .join(', '),
    since,
  );
}

test.beforeAll(async () => {
  test.setTimeout(300_000);
  const started = Date.now();
  const world = await seed('topology-world', { prefix: PREFIX, children: CHILDREN, bulk: BULK, depth: DEPTH });
  root = world.root.id;
  big = world.big.id;
  console.log(`topology perf seed: ${COMPONENTS} components (depth ${DEPTH}, ${CHILDREN} under ${BIG}) in ${Date.now() - started} ms`);
});

test.afterAll(async () => {
  test.setTimeout(300_000);
  await seed('remove', { what: 'topologies', prefix: PREFIX });
});

test(`the dashboard with a topology of ${COMPONENTS} components shows its card`, async ({ page }) => {
  await page.addInitScript(installMarks, { root: ROOT, children: Number.MAX_SAFE_INTEGER });
  await page.goto('/topology');
  const ms = await mark(page, 'root');
  await expect(page.getByRole('article', { name: ROOT })).toBeVisible();
  const cards = await page.getByRole('list', { name: 'Components' }).getByRole('listitem').count();
  console.log(`topology dashboard API calls (ms): ${await apiCalls(page)}`);
  console.log(`topology dashboard with ${COMPONENTS} components: all ${cards} root cards at ${ms} ms after navigation`);
});

test(`the page of a component with ${CHILDREN} children renders them all`, async ({ page }) => {
  await page.addInitScript(installMarks, { root: ROOT, children: CHILDREN });
  await page.goto(`/topology/${big}`);
  const ms = await mark(page, 'children');
  await expect(page.getByRole('list', { name: 'Components' }).getByRole('listitem')).toHaveCount(CHILDREN);
  console.log(`topology component page API calls (ms): ${await apiCalls(page)}`);
  console.log(`topology component page assets (ms): ${await assets(page)}`);
  console.log(
    `topology component page long tasks (ms): ${await page.evaluate(() => (window as unknown as { __long: string[] }).__long.join(', '))}`,
  );
  console.log(
    `topology component page with ${CHILDREN} children (page load): last card at ${ms} ms after navigation, painted at ${await mark(page, 'painted')} ms`,
  );
});

test(`opening the component of ${CHILDREN} children from its parent renders them all`, async ({ page }) => {
  await page.goto(`/topology/${root}`);
  const card = page.getByRole('article', { name: BIG });
  await expect(card).toBeVisible();
  await page.evaluate((children) => {
    const w = window as unknown as { __marks: Marks; __clicked: number };
    w.__marks = {};
    new MutationObserver(() => {
      if (!w.__marks.children && (document.querySelector('ul[aria-label="Components"]')?.children.length ?? 0) >= children)
        w.__marks.children = performance.now() - w.__clicked;
    }).observe(document, { childList: true, subtree: true });
    document.addEventListener('click', () => (w.__clicked = performance.now()), { capture: true, once: true });
  }, CHILDREN);
  await card.getByRole('link', { name: BIG }).click();
  const ms = await mark(page, 'children');
  await expect(page.getByRole('list', { name: 'Components' }).getByRole('listitem')).toHaveCount(CHILDREN);
  const clicked = await page.evaluate(() => (window as unknown as { __clicked: number }).__clicked);
  console.log(`topology component page (in-app) API calls (ms after the click): ${await apiCalls(page, clicked)}`);
  console.log(`topology component page with ${CHILDREN} children (in-app navigation): last card at ${ms} ms after the click`);
});

test(`opening the dashboard from a component page shows the topology's card`, async ({ page }) => {
  await page.goto(`/topology/${big}`);
  await expect(page.getByRole('list', { name: 'Components' }).getByRole('listitem')).toHaveCount(CHILDREN);
  await page.evaluate((root) => {
    const w = window as unknown as { __marks: Marks; __clicked: number };
    w.__marks = {};
    new MutationObserver(() => {
      if (!w.__marks.root && document.querySelector(`ul[aria-label="Components"] article[aria-label="${root}"]`))
        w.__marks.root = performance.now() - w.__clicked;
    }).observe(document, { childList: true, subtree: true });
    document.addEventListener('click', () => (w.__clicked = performance.now()), { capture: true, once: true });
  }, ROOT);
  await page.getByRole('navigation', { name: 'Breadcrumbs' }).getByRole('link', { name: 'Topology', exact: true }).click();
  const ms = await mark(page, 'root');
  await expect(page.getByRole('article', { name: ROOT })).toBeVisible();
  const clicked = await page.evaluate(() => (window as unknown as { __clicked: number }).__clicked);
  console.log(`topology dashboard (in-app) API calls (ms after the click): ${await apiCalls(page, clicked)}`);
  console.log(`topology dashboard with ${COMPONENTS} components (in-app navigation): the root cards at ${ms} ms after the click`);
});
