import { expect, test, type Page } from '@playwright/test';
import { seed } from './seed';
import { ADMIN_STATE, GUEST } from './env';

test.use({ storageState: ADMIN_STATE });

type Marks = Record<string, number>;

/** Records, inside the page, when seeded rows and the editor dialog first appear
 * in the DOM (MutationObserver, so Playwright's polling does not blur the figures). */
function installMarks(): void {
  const marks: Marks = {};
  (window as unknown as { __marks: Marks }).__marks = marks;
  new MutationObserver(() => {
    const now = performance.now();
    if (!marks.rows && [...document.querySelectorAll('tbody tr')].some((r) => r.textContent?.includes('perf-'))) marks.rows = now;
    if (marks.clicked && !marks.editor && document.querySelector('[role="dialog"]')) marks.editor = now;
  }).observe(document, { childList: true, subtree: true });
}

const marks = (page: Page) => page.evaluate(() => (window as unknown as { __marks: Marks }).__marks);

/** Clicks the first seeded row from inside the page; returns ms until the editor shows. */
async function clickToEditor(page: Page): Promise<number> {
  await page.evaluate(() => {
    const m = (window as unknown as { __marks: Marks }).__marks;
    m.clicked = performance.now();
    const row = [...document.querySelectorAll<HTMLElement>('tbody tr')].find((r) => r.textContent?.includes('perf-'));
    row?.click();
  });
  await expect(page.getByRole('dialog', { name: 'Edit Access Scope' })).toBeVisible();
  const m = await marks(page);
  return Math.round((m.editor ?? NaN) - (m.clicked ?? NaN));
}

test('the Access Scopes table with 1,000 rows becomes interactive', async ({ page }) => {
  await seed(
    'access-scopes',
    Array.from({ length: 1000 }, (_, i) => ({
      name: `perf-${String(i + 1).padStart(4, '0')}`,
      subject: { email: GUEST.email },
      resources: ['config'],
      scopes: [{ names: ['checkout'] }],
    })),
  );
  try {
    await page.addInitScript(installMarks);

    // Cold: a full page load, with the sign-in check, whoami and flags.
    await page.goto('/settings/access-scopes');
    await expect(page.getByRole('row', { name: /perf-\d{4}/ }).first()).toBeVisible({ timeout: 30_000 });
    await expect(page.locator('.pf-v6-c-pagination').first()).toContainText(/of\s*1\d{3}/);
    const coldRows = Math.round((await marks(page)).rows ?? NaN);
    const listEnd = await page.evaluate(() =>
      Math.max(
        ...performance
          .getEntriesByType('resource')
          .filter((e) => e.name.includes('/api/db/access_scopes'))
          .map((e) => (e as PerformanceResourceTiming).responseEnd),
      ),
    );
    const coldClick = await clickToEditor(page);
    const api = await page.evaluate(() =>
      performance
        .getEntriesByType('resource')
        .filter((e) => e.name.includes('/api/'))
        .map((e) => `${new URL(e.name).pathname} @${Math.round(e.startTime)}+${Math.round(e.duration)}`),
    );

    // Warm: navigating to the screen inside the running console.
    await page.goto('/settings/tokens');
    await expect(page.getByRole('heading', { name: 'Tokens' })).toBeVisible();
    const start = await page.evaluate(() => {
      const now = performance.now();
      document.querySelector<HTMLElement>('a[href="/settings/access-scopes"]')?.click();
      return now;
    });
    await expect(page.getByRole('row', { name: /perf-\d{4}/ }).first()).toBeVisible();
    const warmRows = Math.round(((await marks(page)).rows ?? NaN) - start);
    const warmClick = await clickToEditor(page);

    console.log(`ACCESS_SCOPES_1000_ROWS cold-load API calls (ms): ${api.join(', ')}`);
    console.log(
      `ACCESS_SCOPES_1000_ROWS cold page load: rows rendered ${coldRows} ms after navigation start (${Math.round(coldRows - listEnd)} ms after the list arrived); a row click opens the editor in ${coldClick} ms`,
    );
    console.log(
      `ACCESS_SCOPES_1000_ROWS in-app navigation: rows rendered ${warmRows} ms after the sidebar click; a row click opens the editor in ${warmClick} ms`,
    );
  } finally {
    await seed('remove', { what: 'access_scopes', prefix: 'perf-' });
  }
});
