import { expect, test, type Locator, type Page } from '@playwright/test';
import { ADMIN_STATE } from './env';
import { dbRows, expectToast, snap } from './helpers';
import { seed } from './seed';

test.use({ storageState: ADMIN_STATE });

const LIST = '/settings/topology';
const UI_PREFIX = 'e2e-topo-set-ui-';
const CRD_PREFIX = 'e2e-topo-set-crd-';
const UI_TOPOLOGY = `${UI_PREFIX}topology`;
const CRD_TOPOLOGY = `${CRD_PREFIX}topology`;
const RUNS = 3;

let uiId = '';
let crdId = '';

function table(page: Page): Locator {
  return page.getByRole('grid', { name: 'Topologies' });
}

function row(page: Page, name: string): Locator {
  return table(page).getByRole('row', { name: new RegExp(`^${name}\\b`) });
}

test.beforeAll(async () => {
  uiId = (await seed('topology-world', { prefix: UI_PREFIX, children: 2, runs: RUNS })).topology;
  crdId = (await seed('topology-world', { prefix: CRD_PREFIX, children: 2, source: 'KubernetesCRD' })).topology;
});

test.afterAll(async () => {
  for (const prefix of [UI_PREFIX, CRD_PREFIX]) await seed('remove', { what: 'topologies', prefix });
});

test('the sidebar lists Topology; the list shows schedule, last run and source', async ({ page }) => {
  await page.goto('/settings/tokens');
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Topology', exact: true }).click();
  await expect(page).toHaveURL(new RegExp(`${LIST}$`));
  await page.getByRole('textbox', { name: 'Search topologies by name' }).fill('e2e-topo-set-');
  await expect(page).toHaveURL(/search=e2e-topo-set-/);
  const ui = row(page, UI_TOPOLOGY);
  await expect(ui).toContainText('@every 10m');
  await expect(ui).toContainText('SUCCESS');
  await expect(ui).toContainText('UI');
  await expect(row(page, CRD_TOPOLOGY)).toContainText('CRD');
  await snap(page, 'topology-settings-list');
});

test('the resource editor: name and namespace fixed, job history, schedule and icon into the spec, labels, delete', async ({ page }) => {
  await page.goto(`${LIST}?search=${UI_PREFIX}`);
  await row(page, UI_TOPOLOGY).getByRole('link', { name: UI_TOPOLOGY }).click();
  await expect(page).toHaveURL(new RegExp(`${LIST}/${uiId}$`));
  await expect(page.getByRole('heading', { name: `Topology: ${UI_TOPOLOGY}` })).toBeVisible();
  await expect(page.getByRole('textbox', { name: 'Name', exact: true })).toBeDisabled();
  await expect(page.getByRole('textbox', { name: 'Namespace' })).toBeDisabled();

  await page.getByRole('tab', { name: 'Job History' }).click();
  await expect(page).toHaveURL(/tab=history/);
  const history = page.getByRole('grid', { name: 'Resource job history' });
  await expect(history.getByRole('row', { name: /TopologyRun/ }).first()).toBeVisible();
  expect(await history.getByRole('row', { name: /TopologyRun/ }).count()).toBeGreaterThanOrEqual(RUNS);
  await expect(history.getByRole('row', { name: /FAILED/ }).first()).toBeVisible();
  await snap(page, 'topology-settings-history');

  // The schedule dropdown and the icon picker write the spec; invalid JSON labels are ignored.
  await page.getByRole('tab', { name: 'Spec' }).click();
  await expect(page).not.toHaveURL(/tab=/);
  await page.getByRole('button', { name: 'Schedule', exact: true }).click();
  await expect(page.getByRole('option').first()).toContainText('None');
  await page.getByRole('option', { name: '@every 30m', exact: true }).click();
  await page.getByRole('button', { name: 'Icon', exact: true }).click();
  await page.getByRole('option', { name: 'database', exact: true }).click();
  const spec = page.getByRole('textbox', { name: 'Spec' });
  await expect(spec).toHaveValue(/schedule: "@every 30m"/);
  await expect(spec).toHaveValue(/icon: database/);
  await page.getByRole('textbox', { name: 'Labels' }).fill('{"world": "changed",');
  await expect(page.getByText('Not valid JSON: these labels are ignored and the saved ones kept')).toBeVisible();
  await snap(page, 'topology-settings-editor');
  await page.getByRole('button', { name: 'Update', exact: true }).click();
  await expectToast(page, `${UI_TOPOLOGY} updated successfully`);
  await expect(page).toHaveURL(/\/settings\/integrations$/);
  const [saved] = await dbRows<{ spec: Record<string, unknown>; schedule: string; labels: Record<string, string> }>(
    page.request,
    `topologies?id=eq.${uiId}&select=spec,schedule,labels`,
  );
  expect(saved?.spec).toMatchObject({ type: 'Application', icon: 'database', schedule: '@every 30m', owner: `${UI_PREFIX}team` });
  expect(saved?.schedule).toBe('@every 30m');
  expect(saved?.labels).toEqual({ world: UI_PREFIX });

  // A spec the Topology schema refuses cannot be saved.
  await page.goto(`${LIST}/${uiId}`);
  await page.getByRole('textbox', { name: 'Spec' }).fill('type: Application\ncompnents: []\n');
  await expect(page.getByText('compnents: unknown field')).toBeVisible();
  await expect(page.getByRole('button', { name: 'Update', exact: true })).toBeDisabled();

  await page.getByRole('button', { name: 'Delete', exact: true }).click();
  const dialog = page.getByRole('dialog', { name: 'Delete resource' });
  await expect(dialog).toContainText('Are you sure you want to delete this resource?');
  await dialog.getByRole('button', { name: 'Delete', exact: true }).click();
  await expectToast(page, `${UI_TOPOLOGY} deleted successfully`);
  await expect(page).toHaveURL(/\/settings\/integrations$/);
  const [deleted] = await dbRows<{ deleted_at: string | null }>(page.request, `topologies?id=eq.${uiId}&select=deleted_at`);
  expect(deleted?.deleted_at).toBeTruthy();
});

test('a topology from a Kubernetes CRD is read-only', async ({ page }) => {
  await page.goto(`${LIST}/${crdId}`);
  await expect(page.getByRole('heading', { name: `Topology: ${CRD_TOPOLOGY}` })).toBeVisible();
  await expect(
    page.getByText('Read-Only Mode: This resource is managed by Kubernetes CRD and cannot be edited from the UI.'),
  ).toBeVisible();
  await expect(page.getByText(`Kubernetes CRD Topology default/${CRD_TOPOLOGY}`)).toBeVisible();
  await expect(page.getByRole('textbox', { name: 'Spec' })).toBeDisabled();
  await expect(page.getByRole('textbox', { name: 'Labels' })).toBeDisabled();
  await expect(page.getByRole('button', { name: 'Schedule', exact: true })).toBeDisabled();
  await expect(page.getByRole('button', { name: 'Icon', exact: true })).toBeDisabled();
  await expect(page.getByRole('button', { name: 'Update' })).toHaveCount(0);
  await expect(page.getByRole('button', { name: 'Delete' })).toHaveCount(0);
  await snap(page, 'topology-settings-crd');
});
