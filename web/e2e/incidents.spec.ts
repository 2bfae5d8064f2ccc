import { expect, test, type APIRequestContext, type Page } from '@playwright/test';
import { seed } from './seed';
import { ADMIN_STATE, VIEWER_STATE } from './env';
import { choose, dbRows, expectToast } from './helpers';

/** Every incident of this file has a title starting with this, unique per run. */
const PREFIX = `e2e-inc-${Date.now().toString(36)}`;
const NS = 'e2e-inc';
const CHECK = 'e2e-inc-check';

interface Row {
  id: string;
}

function origin(): string {
  const baseURL = test.info().project.use.baseURL;
  if (!baseURL) throw new Error('baseURL is not set');
  return new URL(baseURL).origin;
}

/** Inserts a row through the data API as the signed-in user of `request`. */
async function insert(request: APIRequestContext, relation: string, body: Record<string, unknown>): Promise<string> {
  const res = await request.post(`/api/db/${relation}`, {
    data: body,
    headers: { Origin: origin(), Prefer: 'return=representation' },
  });
  if (!res.ok()) throw new Error(`POST /api/db/${relation}: ${res.status()} ${await res.text()}`);
  const [row] = (await res.json()) as Row[];
  if (!row) throw new Error(`POST /api/db/${relation} returned no row`);
  return row.id;
}

function incidentsTable(page: Page) {
  return page.getByRole('grid', { name: 'Incidents' }).or(page.getByRole('table', { name: 'Incidents' }));
}

test.describe('as an admin', () => {
  test.use({ storageState: ADMIN_STATE });

  test('the list filters by severity in the URL, and Create incident opens the new incident', async ({ page }) => {
    await insert(page.request, 'incidents', { title: `${PREFIX}-high`, severity: 'high', type: 'security' });
    await insert(page.request, 'incidents', { title: `${PREFIX}-low`, severity: 'low', type: 'availability' });

    await page.goto('/');
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Incidents', exact: true }).click();
    const table = incidentsTable(page);
    await expect(table.getByRole('link', { name: `${PREFIX}-high` })).toBeVisible();
    await expect(table.getByRole('link', { name: `${PREFIX}-low` })).toBeVisible();

    await choose(page, page, 'Severity', 'High');
    await expect(page).toHaveURL(/severity=high/);
    await expect(table.getByRole('link', { name: `${PREFIX}-high` })).toBeVisible();
    await expect(table.getByRole('link', { name: `${PREFIX}-low` })).toHaveCount(0);

    await page.goto('/incidents?type=availability&status=all');
    await expect(table.getByRole('link', { name: `${PREFIX}-low` })).toBeVisible();
    await expect(table.getByRole('link', { name: `${PREFIX}-high` })).toHaveCount(0);
    await expect(page.getByRole('button', { name: 'Type', exact: true })).toHaveText('Availability');

    await page.getByRole('button', { name: 'Create incident' }).click();
    const form = page.getByRole('dialog', { name: 'Create incident' });
    await form.getByRole('button', { name: 'Create' }).click();
    await expect(form.getByText('Title is required')).toBeVisible();
    await form.getByRole('textbox', { name: 'Title' }).fill(`${PREFIX}-created`);
    await choose(form, page, 'Severity', 'Critical');
    await form.getByRole('button', { name: 'Create' }).click();
    await expect(page.getByRole('heading', { name: `${PREFIX}-created`, level: 2 })).toBeVisible();
    await expect(page.getByRole('button', { name: 'Severity', exact: true })).toHaveText('Critical');
  });

  test('the detail page changes status, adds and deletes hypotheses, toggles an evidence done and adds a comment', async ({ page }) => {
    const incident = await insert(page.request, 'incidents', { title: `${PREFIX}-detail`, severity: 'medium' });
    const root = await insert(page.request, 'hypotheses', { incident_id: incident, title: 'Disk is full', type: 'root' });
    const evidence = await insert(page.request, 'evidences', {
      hypothesis_id: root,
      type: 'log',
      description: 'no space left on device',
      definition_of_done: true,
    });

    await page.goto(`/incidents/${incident}`);
    await expect(page.getByRole('heading', { name: `${PREFIX}-detail`, level: 2 })).toBeVisible();

    await choose(page, page, 'Status', 'Investigating');
    await expect(page.getByRole('button', { name: 'Status', exact: true })).toHaveText('Investigating');
    await expect(page.getByRole('list', { name: 'Timeline' })).toContainText('Status changed from open to investigating');
    await expect
      .poll(async () => (await dbRows<{ status: string }>(page.request, `incidents?id=eq.${incident}&select=status`))[0]?.status)
      .toBe('investigating');

    // A child of a root is a factor.
    await page.getByRole('button', { name: 'Add to Disk is full' }).click();
    const add = page.getByRole('dialog', { name: 'Add to Disk is full' });
    await add.getByRole('textbox', { name: 'Title' }).fill('Logs not rotated');
    await expect(add.getByText('Factor')).toBeVisible();
    await add.getByRole('button', { name: 'Add' }).click();
    const child = page.getByRole('listitem', { name: 'Hypothesis Logs not rotated' });
    await expect(child).toBeVisible();
    await expect(child.getByText('Factor')).toBeVisible();

    await choose(child, page, 'Status of Logs not rotated', 'Likely');
    await expect(child.getByRole('button', { name: 'Status of Logs not rotated' })).toHaveText('Likely');

    await page.getByRole('button', { name: 'Delete Logs not rotated' }).click();
    await page.getByRole('dialog', { name: 'Delete hypothesis' }).getByRole('button', { name: 'Delete' }).click();
    await expect(child).toHaveCount(0);
    await expect(page.getByRole('listitem', { name: 'Hypothesis Disk is full' })).toBeVisible();

    const done = page.getByRole('checkbox', { name: 'Done: log', exact: true });
    await expect(done).not.toBeChecked();
    // The box follows the stored value, so it turns once the write is back.
    await done.click();
    await expect(done).toBeChecked();
    await expect
      .poll(async () => (await dbRows<{ done: boolean }>(page.request, `evidences?id=eq.${evidence}&select=done`))[0]?.done)
      .toBe(true);

    await page.getByRole('textbox', { name: 'Comment' }).fill('Rotating logs now');
    await page.getByRole('button', { name: 'Add comment' }).click();
    await expect(page.getByRole('list', { name: 'Comments' }).getByText('Rotating logs now')).toBeVisible();
  });

  test('Attach as Evidence from the check detail creates an incident, then links to its only hypothesis', async ({ page }) => {
    await seed('remove', { what: 'canaries', prefix: 'e2e-inc-' });
    const exec = { name: CHECK, script: 'echo ok' };
    const {
      checks: [checkId],
    } = await seed('canary', {
      name: 'e2e-inc-canary',
      namespace: NS,
      spec: { schedule: '@every 1h', exec: [exec] },
      source: 'UI',
      checks: [{ name: CHECK, type: 'exec', spec: exec, status: 'unhealthy', lastRunSecsAgo: 600, runs: [] }],
    });
    if (!checkId) throw new Error('seeding the check failed');
    const title = `${PREFIX}-link`;

    await page.goto(`/health?checkId=${checkId}&timeRange=1h`);
    await page.getByRole('button', { name: 'Attach as Evidence' }).click();
    const link = page.getByRole('dialog', { name: 'Attach as Evidence' });
    await link.getByRole('button', { name: 'Link' }).click();
    await expect(link.getByText('Must select or create an incident')).toBeVisible();

    await link.getByRole('combobox', { name: 'Incident' }).fill(title);
    await link.getByRole('option', { name: `Create incident "${title}"` }).click();
    await choose(link, page, 'Severity', 'High');
    await expect(link.getByRole('button', { name: 'Type', exact: true })).toHaveText('Availability');
    await link.getByRole('button', { name: 'Link' }).click();
    await expectToast(page, 'Linked to incident');
    await expect(link).toHaveCount(0);

    // The incident now has one hypothesis, chosen by itself.
    await page.getByRole('button', { name: 'Attach as Evidence' }).click();
    await link.getByRole('combobox', { name: 'Incident' }).fill(title);
    await link.getByRole('option', { name: title, exact: false }).filter({ hasNotText: 'Create incident' }).click();
    await expect(link.getByRole('combobox', { name: 'Hypothesis' })).toHaveValue(title);
    await link.getByRole('button', { name: 'Link' }).click();
    await expect(link).toHaveCount(0);
    // The first link's toast may still show: both lead to the same incident.
    await page.locator('.qd-toasts').getByRole('link', { name: 'View incident' }).last().click();

    await expect(page.getByRole('heading', { name: title, level: 2 })).toBeVisible();
    await expect(page.getByRole('button', { name: 'Severity', exact: true })).toHaveText('High');
    const evidences = page.getByRole('list', { name: `Evidences of ${title}` });
    await expect(evidences.getByRole('link', { name: CHECK })).toHaveCount(2);
    await expect(evidences.getByRole('link', { name: CHECK }).first()).toHaveAttribute('href', `/health?checkId=${checkId}&timeRange=1h`);
  });
});

test.describe('as a viewer', () => {
  test.use({ storageState: VIEWER_STATE });

  test('a viewer reads incidents but sees no write controls', async ({ page, browser }) => {
    const admin = await browser.newContext({ storageState: ADMIN_STATE, baseURL: test.info().project.use.baseURL });
    let incident: string;
    try {
      incident = await insert(admin.request, 'incidents', { title: `${PREFIX}-viewer`, severity: 'blocker' });
      await insert(admin.request, 'hypotheses', { incident_id: incident, title: 'Bad deploy', type: 'root' });
    } finally {
      await admin.close();
    }

    await page.goto('/incidents');
    await expect(incidentsTable(page).getByRole('link', { name: `${PREFIX}-viewer` })).toBeVisible();
    await expect(page.getByRole('button', { name: 'Create incident' })).toHaveCount(0);

    await page.goto(`/incidents/${incident}`);
    await expect(page.getByRole('heading', { name: `${PREFIX}-viewer`, level: 2 })).toBeVisible();
    await expect(page.getByRole('listitem', { name: 'Hypothesis Bad deploy' })).toBeVisible();
    await expect(page.getByRole('group', { name: 'Severity' })).toContainText('Blocker');
    await expect(page.getByRole('button', { name: 'Status', exact: true })).toHaveCount(0);
    await expect(page.getByRole('button', { name: 'Add hypothesis' })).toHaveCount(0);
    await expect(page.getByRole('button', { name: 'Delete Bad deploy' })).toHaveCount(0);
    await expect(page.getByRole('button', { name: 'Add comment' })).toHaveCount(0);
    await expect(page.getByRole('button', { name: 'Add responder' })).toHaveCount(0);
  });
});
