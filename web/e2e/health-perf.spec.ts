import { expect, test, type Page } from '@playwright/test';
import { seed } from './seed';
import { ADMIN_STATE } from './env';
import { snap } from './helpers';

test.use({ storageState: ADMIN_STATE });

const CANARY = 'e2e-perf-health';
const COUNT = 10_000;

type Marks = Record<string, number>;

/** Records, inside the page, when the first check row appears in the DOM
 * (MutationObserver, so Playwright's polling does not blur the figure). */
function installMarks(): void {
  const marks: Marks = {};
  (window as unknown as { __marks: Marks }).__marks = marks;
  new MutationObserver(() => {
    if (!marks.rows && document.querySelector('td[data-label="Checks"]')?.textContent) marks.rows = performance.now();
  }).observe(document, { childList: true, subtree: true });
}

const marks = (page: Page) => page.evaluate(() => (window as unknown as { __marks: Marks }).__marks);

test.beforeAll(async () => {
  await seed('canary', {
    name: CANARY,
    namespace: CANARY,
    checks: Array.from({ length: COUNT }, (_, i) => {
      const g = i + 1;
      return {
        name: `perf-health-${String(g).padStart(5, '0')}`,
        type: 'http',
        description: `Perf check ${g}`,
        endpoint: `https://perf-${g}.test`,
        labels: { env: ['prod', 'dev', 'qa'][g % 3] ?? 'prod', team: `team-${g % 7}` },
        status: g % 2 === 0 ? ('healthy' as const) : ('unhealthy' as const),
        lastRunSecsAgo: 5 * 60,
        transitionedSecsAgo: 3600,
        hourly: { passed: 50, failed: 10, bucket: 20 },
      };
    }),
  });
});

test.afterAll(async () => {
  // Checks and their rollups go with the canary.
  await seed('remove', { what: 'canaries', prefix: CANARY });
});

test(`the Health page with ${COUNT} checks becomes interactive`, async ({ page }) => {
  await page.addInitScript(installMarks);
  await page.goto('/health?groupBy=no-group&hidePassing=false');
  // Polls the mark only: role locators, evaluated over and over, would slow the page down.
  await page.waitForFunction(() => (window as unknown as { __marks: Marks }).__marks.rows, null, { polling: 100, timeout: 30_000 });
  const rows = Math.round((await marks(page)).rows ?? NaN);
  await expect(page.getByRole('row', { name: /perf-health-\d{5}/ }).first()).toBeVisible();
  // Only the rows in view are in the DOM.
  expect(await page.locator('tbody tr').count()).toBeLessThan(100);

  const search = page.getByRole('textbox', { name: 'Search checks' });
  const typed = await page.evaluate(() => performance.now());
  await search.fill('perf-health-04321');
  await expect(page.getByRole('row', { name: /perf-health-04321/ })).toBeVisible();
  await expect(page.getByRole('row', { name: /perf-health-04320/ })).toHaveCount(0);
  const filtered = Math.round((await page.evaluate(() => performance.now())) - typed);
  await snap(page, 'health-perf');

  const api = await page.evaluate(() =>
    performance
      .getEntriesByType('resource')
      .filter((e) => e.name.includes('/api/'))
      .map((e) => `${new URL(e.name).pathname} @${Math.round(e.startTime)}+${Math.round(e.duration)}`),
  );
  console.log(`health page API calls (ms): ${api.join(', ')}`);
  console.log(`health page interactive with ${COUNT} checks: ${rows} ms`);
  console.log(`health page search with ${COUNT} checks: filtered ${filtered} ms after typing (400 ms of it the debounce)`);
});
