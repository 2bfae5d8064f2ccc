import { expect, test, type Page } from '@playwright/test';
import { ADMIN, ADMIN_STATE, GUEST, USER_PASSWORD, VIEWER_STATE } from './env';
import { allowConsoleScripts, expectToast, option } from './helpers';
import { seed } from './seed';

const PREFIX = 'e2e-pb-';
const CATEGORY = `${PREFIX}ops`;
const RESTART = `${PREFIX}Restart deployment`;
const DESCRIBE = `${PREFIX}Describe deployment`;
const SCALE = `${PREFIX}Scale database`;
const UUID = '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}';

type World = Awaited<ReturnType<typeof seed<'playbook-world'>>>;
let world: World;

test.beforeAll(async () => {
  world = await seed('playbook-world', { prefix: PREFIX, approver: ADMIN.email, startedBy: ADMIN.email });
});

const category = (page: Page) => page.getByRole('region', { name: CATEGORY });
const row = (page: Page, title: string) => category(page).getByRole('row').filter({ hasText: title });
const runDialog = (page: Page) => page.getByRole('dialog', { name: /^Run Playbook/ });

test.describe('as an admin', () => {
  test.use({ storageState: ADMIN_STATE });

  test('lists playbooks by category with their source; a CRD playbook opens read-only', async ({ page }) => {
    await page.goto('/');
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Playbooks', exact: true }).click();
    await expect(page).toHaveURL(/\/playbooks$/);
    await expect(page.getByRole('heading', { name: CATEGORY })).toBeVisible();
    await expect(row(page, RESTART)).toContainText("Restarts the deployment's pods");
    await expect(row(page, RESTART)).toContainText('UI');
    await expect(row(page, DESCRIBE).getByText('CRD', { exact: true })).toBeVisible();
    await expect(row(page, SCALE).getByRole('button', { name: `Run ${SCALE}` })).toBeVisible();

    await row(page, DESCRIBE).getByRole('link', { name: DESCRIBE }).click();
    await expect(
      page.getByText('Read-Only Mode: This resource is managed by Kubernetes CRD and cannot be edited from the UI.'),
    ).toBeVisible();
    await expect(page.getByRole('textbox', { name: 'Spec' })).toBeDisabled();
    await expect(page.getByRole('button', { name: 'Update' })).toHaveCount(0);
  });

  test('the editor refuses a spec without actions as it is typed, and saves a UI playbook', async ({ page }) => {
    await page.goto(`/playbooks/${world.restart}`);
    const spec = page.getByRole('textbox', { name: 'Spec' });
    await expect(spec).toHaveValue(/actions:/);
    const text = await spec.inputValue();
    await spec.fill(text.replace(/^actions:[\s\S]*?(?=^\S)/m, ''));
    await expect(page.getByText('spec.actions: A playbook needs at least one action')).toBeVisible();
    await expect(page.getByRole('button', { name: 'Update' })).toBeDisabled();

    await spec.fill(text.replace("Restarts the deployment's pods", 'Rolls the pods'));
    await page.getByRole('button', { name: 'Update' }).click();
    await expectToast(page, `${PREFIX}restart updated successfully`);
    await expect(page).toHaveURL(/\/playbooks$/);
    await expect(row(page, RESTART)).toContainText('Rolls the pods');
  });

  test('the run dialog asks for a resource, checks the parameters and opens the new run, which the engine runs', async ({ page }) => {
    await page.goto('/playbooks');
    await allowConsoleScripts(page, true);
    await row(page, RESTART)
      .getByRole('button', { name: `Run ${RESTART}` })
      .click();
    const dialog = runDialog(page);
    await expect(dialog.getByText('Please select a resource to see the parameters.')).toBeVisible();
    const run = dialog.getByRole('button', { name: 'Run', exact: true });
    await expect(run).toBeDisabled();

    await dialog.getByRole('textbox', { name: 'Search resources' }).fill(`${PREFIX}conf`);
    await dialog.getByRole('button', { name: 'Resource', exact: true }).click();
    await option(page, new RegExp(`^${PREFIX}config`)).click();
    const replicas = dialog.getByRole('textbox', { name: 'Replicas' });
    await expect(replicas).toHaveValue('2');
    await expect(run).toBeEnabled();

    await replicas.fill('three');
    await expect(dialog.getByText('Must match the pattern ^[0-9]+$')).toBeVisible();
    await expect(run).toBeDisabled();
    await replicas.fill('');
    await expect(dialog.getByText('This field is required')).toBeVisible();
    await replicas.fill('3');
    await dialog.getByRole('textbox', { name: 'Memory' }).fill('8Gi');
    await expect(dialog.getByText('Must be at most 4Gi')).toBeVisible();
    await dialog.getByRole('textbox', { name: 'Memory' }).fill('1Gi');
    await dialog.getByRole('textbox', { name: 'CPU' }).fill('500');
    await expect(dialog.getByText('Must be a number of millicores with suffix m, e.g. 500m')).toBeVisible();
    await dialog.getByRole('textbox', { name: 'CPU' }).fill('250m');
    await dialog.getByRole('textbox', { name: 'Reason' }).fill('why');
    await expect(dialog.getByText('Must be at least 5 characters')).toBeVisible();
    await dialog.getByRole('textbox', { name: 'Reason' }).fill('a rollout is stuck');
    await expect(run).toBeEnabled();
    await run.click();

    await expect(page).toHaveURL(new RegExp(`/playbooks/runs/${UUID}$`));
    await expect(page.getByRole('heading', { name: `Run: ${RESTART}` })).toBeVisible();
    const parameters = page.getByRole('region', { name: 'Parameters' });
    await expect(parameters).toContainText('a rollout is stuck');
    await expect(parameters).toContainText('1Gi');
    await expect(page.getByLabel('Run', { exact: true }).getByRole('link', { name: `${PREFIX}config` })).toBeVisible();
    // The page follows the run live until the operator's engine has run it.
    const action = page.getByRole('listitem', { name: 'Action restart' });
    await expect(action).toContainText(`restarting ${PREFIX}config`, { timeout: 60_000 });
    await expect(action.getByText('completed', { exact: true })).toBeVisible();
  });

  test("a config item's Playbooks tab runs on the item; a playbook without parameters says so", async ({ page }) => {
    await page.goto(`/catalog/${world.config}/playbooks`);
    const table = page.getByRole('grid', { name: 'Playbooks' }).or(page.getByRole('table', { name: 'Playbooks' }));
    await table
      .getByRole('row')
      .filter({ hasText: DESCRIBE })
      .getByRole('button', { name: `Run ${DESCRIBE}` })
      .click();
    const dialog = runDialog(page);
    await expect(dialog.getByText('No parameters for this playbook.')).toBeVisible();
    await expect(dialog.getByText('Please select a resource to see the parameters.')).toHaveCount(0);
    await expect(dialog.getByRole('button', { name: 'Run', exact: true })).toBeEnabled();
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await expect(dialog).toHaveCount(0);
  });

  test("a component's Playbooks menu runs a playbook on it", async ({ page }) => {
    await page.goto(`/topology/${world.component}`);
    await page.getByRole('button', { name: 'Playbooks', exact: true }).click();
    await page.getByRole('menuitem', { name: new RegExp(`^${PREFIX}Restart service`) }).click();
    const dialog = runDialog(page);
    await expect(dialog.getByText('No parameters for this playbook.')).toBeVisible();
    await dialog.getByRole('button', { name: 'Run', exact: true }).click();
    await expect(page).toHaveURL(new RegExp(`/playbooks/runs/${UUID}$`));
    await expect(page.getByLabel('Run', { exact: true }).getByRole('link', { name: `${PREFIX}component` })).toBeVisible();
  });

  test("the check detail dialog's Playbooks menu runs a playbook on the check", async ({ page }) => {
    const baseURL = test.info().project.use.baseURL ?? '';
    await seed('remove', { what: 'canaries', prefix: PREFIX });
    const { checks } = await seed('canary', {
      name: `${PREFIX}canary`,
      spec: { schedule: '@every 1h', exec: [{ name: `${PREFIX}check`, script: 'echo ok' }] },
      checks: [{ name: `${PREFIX}check`, type: 'exec', status: 'healthy', lastRunSecsAgo: 60 }],
    });
    const created = await page.request.post('/api/db/playbooks', {
      headers: { Origin: new URL(baseURL).origin, Prefer: 'return=representation' },
      data: {
        name: `${PREFIX}on-check`,
        title: `${PREFIX}Diagnose check`,
        category: CATEGORY,
        spec: {
          title: `${PREFIX}Diagnose check`,
          category: CATEGORY,
          checks: [{ name: `${PREFIX}check` }],
          actions: [{ name: 'diagnose', exec: { script: 'echo {{.check.name}}' } }],
        },
      },
    });
    expect(created.status(), await created.text()).toBe(201);

    await page.goto(`/health?checkId=${checks[0] ?? ''}&timeRange=1h`);
    const detail = page.getByRole('dialog');
    await detail.getByRole('button', { name: 'Playbooks', exact: true }).click();
    await page.getByRole('menuitem', { name: new RegExp(`^${PREFIX}Diagnose check`) }).click();
    const dialog = runDialog(page);
    await expect(dialog.getByText('No parameters for this playbook.')).toBeVisible();
    await dialog.getByRole('button', { name: 'Run', exact: true }).click();
    await expect(page).toHaveURL(new RegExp(`/playbooks/runs/${UUID}$`));
    await expect(page.getByLabel('Run', { exact: true }).getByRole('link', { name: `${PREFIX}check` })).toBeVisible();
  });

  test("a run the server refuses shows the server's message and keeps the dialog", async ({ page }) => {
    const headers = { Origin: new URL(test.info().project.use.baseURL ?? '').origin };
    const name = `${PREFIX}gone`;
    const title = `${PREFIX}Soon deleted`;
    const created = await page.request.post('/api/db/playbooks', {
      headers: { ...headers, Prefer: 'return=representation' },
      data: { name, title, category: CATEGORY, spec: { title, category: CATEGORY, actions: [{ name: 'a', exec: { script: 'true' } }] } },
    });
    expect(created.status(), await created.text()).toBe(201);
    const [row] = (await created.json()) as { id: string }[];

    await page.goto('/playbooks');
    await category(page)
      .getByRole('button', { name: `Run ${title}` })
      .click();
    const dialog = runDialog(page);
    await expect(dialog.getByText('No parameters for this playbook.')).toBeVisible();
    const deleted = await page.request.patch(`/api/db/playbooks?id=eq.${row?.id ?? ''}`, {
      headers,
      data: { deleted_at: new Date().toISOString() },
    });
    expect(deleted.ok(), await deleted.text()).toBe(true);
    const refused = await page.request.post('/api/playbook/run', { headers, data: { id: row?.id, params: {} } });
    expect(refused.ok()).toBe(false);
    const { message } = (await refused.json()) as { message: string };

    await dialog.getByRole('button', { name: 'Run', exact: true }).click();
    await expectToast(page, message);
    await expect(dialog).toBeVisible();
    await expect(page).toHaveURL(/\/playbooks$/);
  });

  test('the runs list filters by playbook and status in the URL', async ({ page }) => {
    await page.goto(`/playbooks/runs?playbook=${world.restart}`);
    const runs = page.getByRole('grid', { name: 'Playbook runs' }).or(page.getByRole('table', { name: 'Playbook runs' }));
    // The seeded runs took 42 s; the run dialog's test may have added one of its own.
    const seeded = (status: string) => runs.getByRole('row').filter({ hasText: status }).filter({ hasText: '42s' });
    await expect(seeded('completed')).toHaveCount(1);
    await expect(seeded('completed')).toContainText(`${PREFIX}config`);
    await expect(seeded('failed')).toHaveCount(1);
    await expect(runs.getByRole('row').filter({ hasText: SCALE })).toHaveCount(0);

    await page.getByRole('button', { name: 'Status', exact: true }).click();
    await option(page, 'failed').click();
    await expect(page).toHaveURL(/status=failed/);
    await expect(runs.getByRole('row').filter({ hasText: 'completed' })).toHaveCount(0);
    await seeded('failed').getByRole('link', { name: RESTART }).click();
    await expect(page).toHaveURL(new RegExp(`/playbooks/runs/${world.failedRun}$`));
    await expect(page.getByText('exit status 1')).toBeVisible();
    await expect(page.getByRole('listitem', { name: 'Action restart' })).toContainText('permission denied');
  });

  test("a run's page shows each action's output and the parameters", async ({ page }) => {
    await page.goto(`/playbooks/runs/${world.completedRun}`);
    const restart = page.getByRole('listitem', { name: 'Action restart' });
    await expect(restart.getByRole('heading', { name: 'stdout' })).toBeVisible();
    await expect(restart).toContainText(`restarting ${PREFIX}config`);
    await expect(restart).toContainText('a warning');
    const count = page.getByRole('listitem', { name: 'Action count' });
    await expect(count.getByRole('columnheader', { name: 'pods' })).toBeVisible();
    await expect(page.getByRole('region', { name: 'Parameters' })).toContainText('seeded run');
    await expect(page.getByRole('button', { name: 'Cancel run' })).toHaveCount(0);
  });

  test('an approver approves a run, which then runs; a run is cancelled', async ({ page }) => {
    await page.goto(`/playbooks/runs/${world.toApproveRun}`);
    await allowConsoleScripts(page, true);
    const approval = page.getByRole('region', { name: 'Approval' });
    await expect(approval).toContainText(ADMIN.email);
    await approval.getByRole('button', { name: 'Approve' }).click();
    await expectToast(page, 'Playbook run approved');
    await expect(approval.getByRole('button', { name: 'Approve' })).toHaveCount(0);
    await expect(approval.getByRole('listitem').filter({ hasText: 'Admin' })).toBeVisible();
    await expect(approval).toContainText('Approved');
    await expect(page.getByRole('listitem', { name: 'Action scale' })).toContainText('scaling', { timeout: 60_000 });

    await page.goto(`/playbooks/runs/${world.toCancelRun}`);
    await page.getByRole('button', { name: 'Cancel run' }).click();
    await page.getByRole('dialog', { name: 'Cancel run' }).getByRole('button', { name: 'Cancel run' }).click();
    await expectToast(page, 'Playbook run cancelled');
    await expect(page.getByText('cancelled', { exact: true })).toBeVisible();
    await expect(page.getByRole('button', { name: 'Cancel run' })).toHaveCount(0);
  });
});

test.describe('as a viewer', () => {
  test.use({ storageState: VIEWER_STATE });

  test('sees the playbooks and runs but no Run, Approve or Cancel', async ({ page }) => {
    await page.goto('/playbooks');
    await expect(row(page, SCALE)).toBeVisible();
    await expect(page.getByRole('button', { name: /^Run / })).toHaveCount(0);
    await expect(page.getByRole('button', { name: 'Create Playbook' })).toHaveCount(0);
    await page.goto(`/playbooks/runs/${world.toCancelRun}`);
    await expect(page.getByRole('region', { name: 'Approval' })).toBeVisible();
    await expect(page.getByRole('button', { name: 'Approve' })).toHaveCount(0);
    await expect(page.getByRole('button', { name: 'Cancel run' })).toHaveCount(0);
  });
});

test('a guest sees only the playbooks its access scope names, and only their runs', async ({ browser }) => {
  await seed('access-scopes', [
    { name: `${PREFIX}scope`, subject: { email: GUEST.email }, resources: ['playbook'], scopes: [{ names: [`${PREFIX}approve`] }] },
  ]);
  const context = await browser.newContext({ storageState: undefined });
  try {
    const page = await context.newPage();
    await page.goto('/playbooks');
    await page.getByRole('textbox', { name: 'Email' }).fill(GUEST.email);
    await page.getByLabel('Password').fill(USER_PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect(row(page, SCALE)).toBeVisible();
    await expect(row(page, RESTART)).toHaveCount(0);
    await expect(row(page, DESCRIBE)).toHaveCount(0);

    await page.goto('/playbooks/runs');
    const runs = page.getByRole('grid', { name: 'Playbook runs' }).or(page.getByRole('table', { name: 'Playbook runs' }));
    await expect(runs.getByRole('row').filter({ hasText: SCALE }).first()).toBeVisible();
    await expect(runs.getByRole('row').filter({ hasText: RESTART })).toHaveCount(0);

    await page.goto(`/playbooks/runs/${world.toApproveRun}`);
    await expect(page.getByRole('region', { name: 'Approval' })).toBeVisible();
    // A run of a playbook outside the scope reads as one that does not exist.
    await page.goto(`/playbooks/runs/${world.completedRun}`);
    await expect(page.getByText(`no playbook run ${world.completedRun}`)).toBeVisible();
    await expect(page.getByText(`restarting ${PREFIX}config`)).toHaveCount(0);
  } finally {
    await context.close();
    await seed('remove', { what: 'access_scopes', prefix: PREFIX });
  }
});
