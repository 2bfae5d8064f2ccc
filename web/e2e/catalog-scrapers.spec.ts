import { expect, test, type Locator, type Page } from '@playwright/test';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ADMIN_STATE, VIEWER_STATE } from './env';
import { allowConsoleScripts, choose, dbRows, expectToast, snap } from './helpers';
import { seed } from './seed';

const LIST = '/catalog/scrapers';
const PREFIX = 'e2e-cat-scr-';
const SCRAPER = `${PREFIX}ui`;
const TYPE = 'E2E::CatScraperThing';

function table(page: Page): Locator {
  return page.getByRole('grid', { name: 'Scrapers' }).or(page.getByRole('table', { name: 'Scrapers' }));
}

function row(page: Page, name: string): Locator {
  return table(page).getByRole('row', { name: new RegExp(`^${name}\\b`) });
}

/** Finished ScraperRun rows of a scraper, read through the data API. */
async function runs(page: Page, id: string): Promise<number> {
  return (await dbRows(page.request, `job_histories?name=eq.ScraperRun&resource_id=eq.${id}&status=neq.RUNNING&select=id`)).length;
}

test.describe('as an admin', () => {
  test.use({ storageState: ADMIN_STATE });

  test('add a scraper, watch it run, edit and save it, Scrape now from the list, its job history, delete it', async ({ page }) => {
    test.setTimeout(180_000);
    // Two documents of the test's own type, read by a file scraper.
    const dir = mkdtempSync(join(tmpdir(), 'qd-e2e-scrapers-'));
    writeFileSync(join(dir, 'things.yaml'), `id: ${PREFIX}a\nname: ${PREFIX}a\n---\nid: ${PREFIX}b\nname: ${PREFIX}b\n`);
    const yaml = ['file:', `  - type: "${TYPE}"`, '    id: $.id', '    name: $.name', '    paths:', `      - ${dir}/*.yaml`].join('\n');
    // A console scraper reads local files only while console scripts are allowed.
    await allowConsoleScripts(page, true);
    try {
      await page.goto(LIST);
      await expect(page.getByRole('heading', { name: 'Scrapers', exact: true })).toBeVisible();
      await page.getByRole('button', { name: 'Add Scraper' }).click();
      const modal = page.getByRole('dialog', { name: 'Add Integration - Catalog Scraper' });
      await expect(modal).toBeVisible();
      await modal.getByRole('textbox', { name: 'Name', exact: true }).fill(SCRAPER);
      await choose(modal, page, 'Type', 'Custom');
      await modal.getByRole('textbox', { name: 'Spec' }).fill(yaml);
      await choose(modal, page, 'Schedule', '@every 4h');
      await snap(page, 'catalog-scrapers-add');
      await modal.getByRole('button', { name: 'Save', exact: true }).click();
      await expectToast(page, `${SCRAPER} created successfully`);

      // The new scraper's page opens; a new scraper runs at once.
      await expect(page).toHaveURL(/\/catalog\/scrapers\/[0-9a-f-]{36}$/);
      const id = page.url().split('/').pop() ?? '';
      await expect(page.getByRole('heading', { name: `Scraper: ${SCRAPER}` })).toBeVisible();
      await expect.poll(() => runs(page, id), { timeout: 60_000 }).toBe(1);
      await page.reload();
      await expect(page.getByText('2 items', { exact: true })).toBeVisible();

      // Edit and save: a file scraper's format and icon are required; the schedule changes, the rest of the spec stays.
      await expect(page.getByRole('textbox', { name: 'Name', exact: true })).toBeDisabled();
      await expect(page.getByRole('button', { name: 'Type', exact: true })).toHaveText('File');
      await expect(page.getByRole('textbox', { name: 'Item type' })).toHaveValue(TYPE);
      await expect(page.getByRole('button', { name: 'Update', exact: true })).toBeDisabled();
      await page.getByRole('textbox', { name: 'Format' }).fill('yaml');
      await page.getByRole('textbox', { name: 'Icon' }).fill('file');
      await choose(page, page, 'Schedule', '@daily');
      await page.getByRole('button', { name: 'Update', exact: true }).click();
      await expectToast(page, `${SCRAPER} updated successfully`);
      await expect
        .poll(async () => (await dbRows<{ spec: unknown }>(page.request, `config_scrapers?id=eq.${id}&select=spec`))[0]?.spec)
        .toEqual({
          schedule: '@daily',
          file: [{ type: TYPE, id: '$.id', name: '$.name', paths: [`${dir}/*.yaml`], format: 'yaml', icon: 'file' }],
        });
      await expect(page.getByRole('button', { name: 'Schedule', exact: true })).toHaveText('@daily');

      // The list: its types, schedule, last run and source; Scrape now runs it again.
      await page.goto(`${LIST}?search=${PREFIX}`);
      const scraper = row(page, SCRAPER);
      await expect(scraper).toContainText('File');
      await expect(scraper).toContainText('@daily');
      await expect(scraper).toContainText('SUCCESS');
      await expect(scraper).toContainText('2 added');
      await expect(scraper).toContainText('UI');
      await snap(page, 'catalog-scrapers');
      await scraper.getByRole('button', { name: 'Scrape now' }).click();
      await expectToast(page, 'Scrape queued');
      await expect(page).toHaveURL(new RegExp(`${LIST}\\?search=${PREFIX}$`));
      await expect.poll(() => runs(page, id), { timeout: 60_000 }).toBe(2);
      await page.getByRole('button', { name: 'Refresh' }).click();
      await expect(scraper).toContainText('2 unchanged');

      // Its job history: both runs, the newest one's Scrape Summary.
      await scraper.getByRole('link', { name: SCRAPER }).click();
      await expect(page).toHaveURL(new RegExp(`/catalog/scrapers/${id}$`));
      await page.getByRole('tab', { name: 'Job History' }).click();
      await expect(page).toHaveURL(new RegExp(`/catalog/scrapers/${id}\\?tab=history$`));
      const history = page
        .getByRole('grid', { name: 'Resource job history' })
        .or(page.getByRole('table', { name: 'Resource job history' }));
      const scrapes = history.getByRole('row').filter({ hasText: 'ScraperRun' });
      await expect(scrapes).toHaveCount(2);
      await expect(scrapes.first()).toContainText('SUCCESS');
      await scrapes.first().click();
      const details = page.getByRole('dialog', { name: 'Details for job ScraperRun' });
      await expect(details.getByRole('tab')).toHaveText(['Scrape Summary']);
      const summary = details.getByRole('grid', { name: 'Scrape Summary' }).or(details.getByRole('table', { name: 'Scrape Summary' }));
      await expect(summary.getByRole('row').filter({ hasText: TYPE }).locator('td')).toHaveText([TYPE, '0', '0', '2', '0', '0']);
      await snap(page, 'catalog-scraper-history');
      await page.keyboard.press('Escape');
      await expect(details).toHaveCount(0);

      // Delete, with confirmation, back to the list.
      await page.getByRole('tab', { name: 'Spec' }).click();
      await page.getByRole('button', { name: 'Delete' }).click();
      const confirm = page.getByRole('dialog', { name: 'Delete resource' });
      await confirm.getByRole('button', { name: 'Delete' }).click();
      await expectToast(page, `${SCRAPER} deleted successfully`);
      await expect(page).toHaveURL(new RegExp(`${LIST}$`));
      await page.goto(`${LIST}?search=${SCRAPER}`);
      await expect(table(page).getByText('No data available')).toBeVisible();
    } finally {
      await allowConsoleScripts(page, false);
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('a scraper from a Kubernetes CRD opens read-only under the banner', async ({ page }) => {
    const { scraper } = await seed('catalog-world', {
      prefix: `${PREFIX}crd-`,
      types: [TYPE],
      items: 1,
      scraper: true,
      scraperSource: 'KubernetesCRD',
    });
    try {
      await page.goto(`${LIST}/${scraper}`);
      await expect(
        page.getByText('Read-Only Mode: This resource is managed by Kubernetes CRD and cannot be edited from the UI.'),
      ).toBeVisible();
      await expect(page.getByRole('button', { name: 'Type', exact: true })).toBeDisabled();
      await expect(page.getByRole('button', { name: 'Update', exact: true })).toHaveCount(0);
      await expect(page.getByRole('button', { name: 'Delete', exact: true })).toHaveCount(0);
      await page.goto(`${LIST}?search=${PREFIX}crd-`);
      await expect(row(page, `${PREFIX}crd-scraper`).getByText('CRD', { exact: true })).toBeVisible();
    } finally {
      await seed('remove', { what: 'catalog', prefix: `${PREFIX}crd-` });
    }
  });

  test("the check detail's related config opens the catalog item page", async ({ page }) => {
    await seed('remove', { what: 'canaries', prefix: PREFIX });
    const exec = { name: `${PREFIX}check`, script: 'echo ok' };
    const {
      checks: [checkId],
    } = await seed('canary', {
      name: `${PREFIX}canary`,
      spec: { schedule: '@every 1h', exec: [exec] },
      checks: [{ name: exec.name, type: 'exec', spec: exec, status: 'healthy' }],
    });
    const config = await seed('config-item', { name: `${PREFIX}config`, configClass: 'Thing', type: TYPE, check: checkId });
    await page.goto(`/health?checkId=${checkId}&timeRange=1h`);
    const modal = page.getByRole('dialog');
    await modal.getByRole('tab', { name: /Relationships/ }).click();
    await modal.getByRole('link', { name: `${PREFIX}config` }).click();
    await expect(page).toHaveURL(new RegExp(`/catalog/${config.id}$`));
    await expect(page.getByRole('heading', { name: new RegExp(`${PREFIX}config`) }).first()).toBeVisible();
    await expect(page.getByText('No details found')).toHaveCount(0);
  });
});

test.describe('as a viewer', () => {
  test.use({ storageState: VIEWER_STATE });
  const VIEWED = `${PREFIX}viewed`;
  let viewedId = '';

  test.beforeAll(async ({ browser }) => {
    // An admin adds a scraper of a path that holds nothing.
    const admin = await browser.newContext({ storageState: ADMIN_STATE });
    const baseURL = test.info().project.use.baseURL ?? '';
    const res = await admin.request.post(`${baseURL}/api/db/config_scrapers`, {
      data: { name: VIEWED, spec: { schedule: '@daily', file: [{ type: TYPE, id: '$.id', paths: ['/nonexistent/*.yaml'] }] } },
      headers: { Origin: new URL(baseURL).origin, Prefer: 'return=representation' },
    });
    expect(res.ok(), await res.text()).toBe(true);
    [{ id: viewedId }] = (await res.json()) as { id: string }[];
    await admin.close();
  });

  test('sees the scrapers and a read-only form, without Add Scraper, Scrape now, Update or Delete', async ({ page }) => {
    await page.goto(`${LIST}?search=${VIEWED}`);
    await expect(page.getByRole('heading', { name: 'Scrapers', exact: true })).toBeVisible();
    await expect(row(page, VIEWED)).toContainText('@daily');
    await expect(page.getByRole('button', { name: 'Add Scraper' })).toHaveCount(0);
    await expect(page.getByRole('button', { name: 'Scrape now' })).toHaveCount(0);

    await row(page, VIEWED).getByRole('link', { name: VIEWED }).click();
    await expect(page).toHaveURL(new RegExp(`/catalog/scrapers/${viewedId}$`));
    await expect(page.getByRole('heading', { name: `Scraper: ${VIEWED}` })).toBeVisible();
    await expect(page.getByRole('button', { name: 'Type', exact: true })).toBeDisabled();
    for (const name of ['Update', 'Delete', 'Scrape now']) await expect(page.getByRole('button', { name })).toHaveCount(0);
    await expect(page.getByText(/^Read-Only Mode/)).toHaveCount(0);
    await expect(page.getByRole('tab', { name: 'Job History' })).toBeVisible();

    // The server refuses a viewer's scrape too.
    const res = await page.request.post(`/api/scrapers/${viewedId}/run`, {
      headers: { Origin: new URL(test.info().project.use.baseURL ?? '').origin },
    });
    expect(res.status()).toBe(403);
  });
});
