import { expect, test, type Locator, type Page } from '@playwright/test';
import { checkTitle, formatLatency, uptimePercent } from '../src/lib/healthFormat';
import { seed, type SeedRun } from './seed';
import { ADMIN_STATE, VIEWER, VIEWER_STATE } from './env';
import { allowConsoleScripts, choose, dbRows, expectToast, snap } from './helpers';

const NS = 'e2e-detail';
const CHECK = 'e2e-detail-check';
const CRD_CHECK = 'e2e-detail-crd-check';
/** Run Now's own check: from Kubernetes, so it runs whatever the execution policy. */
const RUN_CHECK = 'e2e-detail-run-check';
/** Runs seeded for CHECK within the last hour; every fifth one failed. */
const RUNS = 60;
const FAILED_RUNS = RUNS / 5;
/** Runs that took 1s or more (durations 50 ms apart, from 20 ms to 2970 ms). */
const SLOW_RUNS = Array.from({ length: RUNS }, (_, i) => 20 + i * 50).filter((d) => d >= 1000).length;

interface Summary {
  checks_summary: {
    id: string;
    name: string;
    uptime: { passed: number; failed: number };
    latency: { p95?: number | null; p97?: number | null; p99?: number | null };
  }[];
}

let checkId = '';
let crdCheckId = '';
let runCheckId = '';

/** A canary with one exec check that passes quickly, scheduled a year away so
 * only Run Now runs it. */
async function seedCheck(opts: {
  canary: string;
  check: string;
  source: 'UI' | 'KubernetesCRD';
  lastRunSecsAgo: number;
  labels: Record<string, string>;
  runs?: SeedRun[];
  rollUpRuns?: boolean;
}): Promise<string> {
  const exec = { name: opts.check, script: 'echo ok' };
  const { checks } = await seed('canary', {
    name: opts.canary,
    namespace: NS,
    spec: { schedule: '@every 1h', exec: [exec] },
    source: opts.source,
    checks: [
      {
        name: opts.check,
        type: 'exec',
        description: 'Seeded for the check detail tests',
        endpoint: 'echo ok',
        spec: exec,
        labels: opts.labels,
        severity: 'high',
        status: 'healthy',
        lastRunSecsAgo: opts.lastRunSecsAgo,
        transitionedSecsAgo: 2 * 3600,
        runs: opts.runs ?? [],
        rollUpRuns: opts.rollUpRuns ?? false,
      },
    ],
  });
  const [id] = checks;
  if (!id) throw new Error(`seeding ${opts.check} failed`);
  return id;
}

test.beforeAll(async () => {
  // A retried worker seeds afresh.
  await seed('remove', { what: 'canaries', prefix: 'e2e-detail-' });
  checkId = await seedCheck({
    canary: 'e2e-detail-canary',
    check: CHECK,
    source: 'UI',
    lastRunSecsAgo: 10 * 60,
    labels: { app: 'payments', env: 'prod', region: 'eu-west', team: 'sre', tier: 'backend' },
    runs: Array.from({ length: RUNS }, (_, i) => ({
      secsAgo: 10 + i * 50,
      passed: i % 5 !== 0,
      durationMs: 20 + i * 50,
      message: `seeded run ${i}`,
      ...(i % 5 === 0 ? { error: `seeded failure ${i}` } : {}),
    })),
    // The hourly rollups the summary reads, as the engine writes them.
    rollUpRuns: true,
  });
  crdCheckId = await seedCheck({
    canary: 'e2e-detail-crd',
    check: CRD_CHECK,
    source: 'KubernetesCRD',
    lastRunSecsAgo: 2 * 86_400,
    labels: {},
  });
  runCheckId = await seedCheck({
    canary: 'e2e-detail-run',
    check: RUN_CHECK,
    source: 'KubernetesCRD',
    lastRunSecsAgo: 10 * 60,
    labels: {},
    runs: [0, 1].map((i) => ({ secsAgo: (10 + i) * 60, passed: true, durationMs: 20, message: `seeded run ${i}` })),
  });
  await seed('component', { name: 'e2e-detail-component', type: 'Service', icon: 'server', check: checkId });
  await seed('config-item', { name: 'e2e-detail-config', configClass: 'Deployment', type: 'Kubernetes::Deployment', check: checkId });
});

function dialog(page: Page): Locator {
  return page.getByRole('dialog');
}

function tile(page: Page, name: string): Locator {
  return dialog(page).getByRole('region', { name, exact: true });
}

function historyRows(page: Page): Locator {
  return dialog(page).getByRole('grid', { name: 'Status history' }).locator('tbody tr');
}

/** The check's recorded runs, as the admin reads them through the data API. */
async function runCount(page: Page, id: string): Promise<number> {
  return (await dbRows(page.request, `check_statuses?check_id=eq.${id}&select=time`)).length;
}

/** The history's total as its pagination shows it ("1 - 50 of 60"). */
async function expectTotal(page: Page, total: number, timeout?: number): Promise<void> {
  await expect(dialog(page).locator('.pf-v6-c-pagination .pf-v6-c-menu-toggle').first()).toContainText(`of ${total}`, { timeout });
}

/** How long a Run Now may take on a busy machine: the API waits up to 60 s
 * for the engine's result. */
const RUN_NOW_WAIT = 90_000;

/** Clicks Run Now and waits for its outcome, the run in the history (the
 * button's busy state is too short-lived to wait on); then the answer must
 * have been a success. */
async function runNow(page: Page, modal: Locator, before: number): Promise<void> {
  test.setTimeout(2 * RUN_NOW_WAIT);
  const answered = page.waitForResponse((r) => r.request().method() === 'POST' && r.url().includes('/api/canary/run/check/'), {
    timeout: RUN_NOW_WAIT,
  });
  await modal.getByRole('button', { name: 'Run Now' }).click();
  await expectTotal(page, before + 1, RUN_NOW_WAIT);
  expect((await answered).ok()).toBe(true);
}

test.describe('as an admin', () => {
  test.use({ storageState: ADMIN_STATE });

  test('the tiles show the check and its summary over the range', async ({ page }) => {
    await page.goto(`/health?checkId=${checkId}&timeRange=1h`);
    const modal = dialog(page);
    await expect(modal.getByRole('heading', { name: CHECK })).toBeVisible();
    await expect(modal).toContainText(NS);
    await expect(modal).toContainText('echo ok');

    const response = await page.request.get(`/api/canary/api/summary?check_id=${checkId}&since=60m`);
    expect(response.ok()).toBe(true);
    const [summary] = ((await response.json()) as Summary).checks_summary;
    if (!summary) throw new Error('no summary for the seeded check');
    expect(checkTitle(summary)).toBe(CHECK);
    expect(summary.uptime).toEqual({ passed: RUNS - FAILED_RUNS, failed: FAILED_RUNS, last_pass: null, last_fail: null });
    await expect(tile(page, 'Uptime')).toContainText(uptimePercent(summary.uptime.passed, summary.uptime.failed));
    await expect(tile(page, 'Uptime')).toContainText(`${summary.uptime.passed} passed, ${summary.uptime.failed} failed`);
    for (const [label, key] of [
      ['95%', 'p95'],
      ['97%', 'p97'],
      ['99%', 'p99'],
    ] as const) {
      await expect(tile(page, 'Latency')).toContainText(`${label}${formatLatency(summary.latency[key])}`);
    }
    await expect(tile(page, 'Severity')).toContainText('high');
    await expect(tile(page, 'Last Run').locator('time')).toBeVisible();
    await expect(tile(page, 'Transitioned').locator('time')).toBeVisible();
    await expect(tile(page, 'Next Run').locator('time')).toBeVisible();
    await expect(tile(page, 'Time Range').getByRole('button', { name: 'Time Range' })).toHaveText('1h');

    // Five labels: three show, the rest behind '+2 more'.
    const labels = modal.getByRole('list', { name: 'Labels' });
    await expect(labels.getByText('app: payments')).toBeVisible();
    await expect(labels.getByText('tier: backend')).toHaveCount(0);
    await labels.getByRole('button', { name: '+2 more' }).click();
    await expect(labels.getByText('tier: backend')).toBeVisible();
    await snap(page, 'check-detail');

    // Another range refetches the summary and is kept in the URL.
    await choose(tile(page, 'Time Range'), page, 'Time Range', '1d');
    await expect(page).toHaveURL(/timeRange=1d/);
    await expect(tile(page, 'Uptime')).toContainText(`${summary.uptime.passed} passed`);
  });

  test('history pages and filters', async ({ page }) => {
    await page.goto(`/health?checkId=${checkId}&timeRange=1h`);
    const modal = dialog(page);
    await expect(modal.getByRole('tab', { name: 'History' })).toHaveAttribute('aria-selected', 'true');
    await expect(historyRows(page)).toHaveCount(50);
    await expect(historyRows(page).first()).toContainText('seeded run 0');
    await expectTotal(page, RUNS);

    await modal.getByRole('button', { name: 'Go to next page' }).first().click();
    await expect(historyRows(page)).toHaveCount(RUNS - 50);
    await expect(historyRows(page).first()).toContainText('seeded run 50');

    // A filter change goes back to the first page.
    await choose(modal, page, 'Status', 'Unhealthy');
    await expect(historyRows(page)).toHaveCount(FAILED_RUNS);
    await expectTotal(page, FAILED_RUNS);
    await expect(historyRows(page).first()).toContainText('Unhealthy');
    await expect(historyRows(page).first()).toContainText('seeded failure 0');
    await choose(modal, page, 'Status', 'Healthy');
    await expectTotal(page, RUNS - FAILED_RUNS);
    await choose(modal, page, 'Status', 'All');
    await expectTotal(page, RUNS);

    await choose(modal, page, 'Duration', '1s');
    await expectTotal(page, SLOW_RUNS);
    // Newest first: run 20 is the newest to take 1s or more (1020 ms).
    await expect(historyRows(page).first()).toContainText('seeded run 20');
    await expect(historyRows(page).first()).toContainText('1s');

    // A custom duration must be a number with ms or s.
    await choose(modal, page, 'Duration', 'Custom');
    const custom = modal.getByRole('textbox', { name: 'Custom duration' });
    await custom.fill('2 minutes');
    await custom.press('Enter');
    // The helper text adds a screen-reader-only status after the message.
    await expect(modal.getByText('duration is allowed only in milli seconds & seconds')).toBeVisible();
    await expectTotal(page, SLOW_RUNS);
    await snap(page, 'check-detail-duration-error');
    await custom.fill('2.5s');
    await custom.press('Enter');
    await expect(modal.getByText('duration is allowed only in milli seconds & seconds')).toHaveCount(0);
    await expectTotal(page, Array.from({ length: RUNS }, (_, i) => 20 + i * 50).filter((d) => d >= 2500).length);
    await custom.fill('1020ms');
    await custom.press('Enter');
    await expectTotal(page, Array.from({ length: RUNS }, (_, i) => 20 + i * 50).filter((d) => d >= 1020).length);
  });

  test('a history fetch error shows the server message', async ({ page }) => {
    await page.route(/\/api\/canary\/api\?/, (route) =>
      route.fulfill({
        status: 500,
        contentType: 'application/json',
        body: JSON.stringify({ error: 'EINTERNAL', message: 'history is down' }),
      }),
    );
    await page.goto(`/health?checkId=${checkId}&timeRange=1h`);
    await expectToast(page, 'history is down');
  });

  test('graph, spec and relationships', async ({ page }) => {
    await page.goto(`/health?checkId=${checkId}&timeRange=1h`);
    const modal = dialog(page);
    // Under 992 px high the chart is a tab.
    await expect(modal.getByRole('heading', { name: 'Health Overview' })).toHaveCount(0);
    await modal.getByRole('tab', { name: 'Graph' }).click();
    await expect(modal.locator('svg').filter({ has: page.locator('title', { hasText: `Graph of ${CHECK}` }) })).toBeVisible();
    await snap(page, 'check-detail-graph');

    await modal.getByRole('tab', { name: 'Spec' }).click();
    const spec = modal.getByRole('region', { name: 'Canary spec' });
    await expect(spec).toContainText('schedule: "@every 1h"');
    await expect(spec).toContainText('script: echo ok');
    await modal.getByRole('button', { name: 'JSON' }).click();
    await expect(spec).toContainText('"script": "echo ok"');
    await expect(modal).toContainText(`Canary ${NS}/e2e-detail-canary, from UI`);
    await snap(page, 'check-detail-spec');

    const relationships = modal.getByRole('tab', { name: /Relationships/ });
    await expect(relationships).toContainText('2');
    await relationships.click();
    await expect(modal.getByRole('link', { name: 'e2e-detail-component' })).toHaveAttribute('href', /^\/topology\/[0-9a-f-]{36}$/);
    await expect(modal.getByRole('link', { name: 'e2e-detail-config' })).toHaveAttribute('href', /^\/catalog\/[0-9a-f-]{36}$/);
    await expect(modal).toContainText('Kubernetes::Deployment');
    await snap(page, 'check-detail-relationships');

    await expect(modal.getByRole('link', { name: 'Edit' })).toHaveAttribute('href', /^\/settings\/canaries\/[0-9a-f-]{36}$/);
  });

  test('on a tall screen the Health Overview chart shows instead of the Graph tab', async ({ page }) => {
    await page.setViewportSize({ width: 1440, height: 1000 });
    await page.goto(`/health?checkId=${checkId}&timeRange=1h`);
    const modal = dialog(page);
    await expect(modal.getByRole('heading', { name: 'Health Overview' })).toBeVisible();
    await expect(modal.locator('svg').filter({ has: page.locator('title', { hasText: `Health Overview of ${CHECK}` }) })).toBeVisible();
    await expect(modal.getByRole('tab', { name: 'Graph' })).toHaveCount(0);
    await snap(page, 'check-detail-overview');
  });

  test('Run Now adds a run to the history', async ({ page }) => {
    await page.goto(`/health?checkId=${runCheckId}&timeRange=1h`);
    const modal = dialog(page);
    const before = await runCount(page, runCheckId);
    await expectTotal(page, before);
    await runNow(page, modal, before);
    await expect(historyRows(page).first()).toContainText('Healthy');
    await expect(historyRows(page).first()).not.toContainText('seeded run');
    await snap(page, 'check-detail-run-now');
  });

  test("with scripts off, Run Now of a console canary's exec check records the refusal", async ({ page }) => {
    await allowConsoleScripts(page, false);
    await page.goto(`/health?checkId=${checkId}&timeRange=1h`);
    const modal = dialog(page);
    const before = await runCount(page, checkId);
    await expectTotal(page, before);
    await runNow(page, modal, before);
    await expect(historyRows(page).first()).toContainText('Unhealthy');
    await expect(historyRows(page).first()).toContainText('exec checks from the console are disabled by the execution policy');
  });

  test('a Kubernetes CRD canary is edited through its resource', async ({ page }) => {
    // Without a range in the URL, the range covers the last run (2 days ago).
    await page.goto(`/health?checkId=${crdCheckId}`);
    const modal = dialog(page);
    await expect(modal.getByRole('heading', { name: CRD_CHECK })).toBeVisible();
    await expect(page).toHaveURL(/timeRange=3d/);
    await expect(tile(page, 'Time Range').getByRole('button', { name: 'Time Range' })).toHaveText('3d');
    await expect(modal).toContainText(`Managed by Kubernetes CRD: Canary ${NS}/e2e-detail-crd`);
    await expect(modal.getByRole('link', { name: 'Edit' })).toHaveCount(0);
    await expect(modal.getByRole('list', { name: 'Labels' })).toHaveCount(0);
  });

  test('closing removes the check from the URL and resets the range', async ({ page }) => {
    await page.goto(`/health?checkId=${checkId}&timeRange=1w`);
    const modal = dialog(page);
    await expect(modal.getByRole('heading', { name: CHECK })).toBeVisible();
    await modal.getByRole('button', { name: 'Close' }).click();
    await expect(modal).toHaveCount(0);
    await expect(page).toHaveURL(/\/health\?timeRange=1h$/);
  });

  test('an unknown check has no details', async ({ page }) => {
    await page.goto('/health?checkId=00000000-0000-4000-8000-000000000001&timeRange=1h');
    await expect(dialog(page).getByText('No details found')).toBeVisible();
    await snap(page, 'check-detail-not-found');
    await page.goto('/health?checkId=not-a-check&timeRange=1h');
    await expect(dialog(page).getByText('No details found')).toBeVisible();
  });
});

test.describe('as a viewer', () => {
  test.use({ storageState: VIEWER_STATE });

  test('there is no Run Now or Edit', async ({ page }) => {
    await page.goto(`/health?checkId=${checkId}&timeRange=1h`);
    const modal = dialog(page);
    await expect(modal.getByRole('heading', { name: CHECK })).toBeVisible();
    await expect(historyRows(page)).toHaveCount(50);
    await expect(modal.getByRole('button', { name: 'Run Now' })).toHaveCount(0);
    await expect(modal.getByRole('link', { name: 'Edit' })).toHaveCount(0);
  });

  test('Run Now shows once a permission rule lets the viewer run checks', async ({ page }) => {
    await seed('permission', { name: 'e2e-detail-viewer-run', subject: { email: VIEWER.email }, object: 'canaries', action: 'run' });
    try {
      await page.goto(`/health?checkId=${checkId}&timeRange=1h`);
      const modal = dialog(page);
      await expect(modal.getByRole('heading', { name: CHECK })).toBeVisible();
      await expect(modal.getByRole('button', { name: 'Run Now' })).toBeVisible();
      await expect(modal.getByRole('link', { name: 'Edit' })).toHaveCount(0);
    } finally {
      await seed('remove', { what: 'permissions', prefix: 'e2e-detail-viewer-run' });
    }
  });
});
