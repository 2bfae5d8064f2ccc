import { expect, test, type Locator, type Page } from '@playwright/test';
import { seed } from './seed';
import { ADMIN_STATE, VIEWER_STATE } from './env';
import { choose, dbRows, expectToast, snap } from './helpers';

const LIST = '/settings/integrations';
const CRD_TOPOLOGY = 'e2e-crd-topology';

function table(page: Page): Locator {
  return page.getByRole('grid', { name: 'Integrations' }).or(page.getByRole('table', { name: 'Integrations' }));
}

function row(page: Page, name: string): Locator {
  return table(page).getByRole('row', { name: new RegExp(`^${name}\\b`) });
}

async function openAdd(page: Page): Promise<Locator> {
  await page.getByRole('button', { name: 'Add Integration' }).click();
  const modal = page.getByRole('dialog', { name: /^Add Integration/ });
  await expect(modal.getByRole('heading', { name: 'Add Integration', exact: true })).toBeVisible();
  return modal;
}

test.describe('as an admin', () => {
  test.use({ storageState: ADMIN_STATE });

  test('add a Custom Topology, a Log Backend and a Kubernetes Catalog Scraper', async ({ page }) => {
    await page.goto(LIST);
    await expect(page.getByRole('heading', { name: 'Integrations' })).toBeVisible();
    await expect(page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Integrations' })).toBeVisible();

    let modal = await openAdd(page);
    const gitops = modal.getByRole('list', { name: 'Add via GitOps' });
    for (const name of ['AWS', 'Azure', 'Prometheus', 'Flux', 'Kubernetes', 'Quarterdeck']) {
      await expect(gitops.getByRole('button', { name, exact: true })).toBeVisible();
    }
    const direct = modal.getByRole('list', { name: 'Add Directly' });
    for (const name of ['Custom Topology', 'Catalog Scraper', 'Log Backends']) {
      await expect(direct.getByRole('button', { name, exact: true })).toBeVisible();
    }
    await snap(page, 'add-integration');

    // Custom Topology: Save stays disabled while the form is invalid.
    await direct.getByRole('button', { name: 'Custom Topology' }).click();
    await expect(modal.getByRole('heading', { name: 'Add Integration - Custom Topology' })).toBeVisible();
    const save = modal.getByRole('button', { name: 'Save', exact: true });
    await expect(save).toBeDisabled();
    await modal.getByRole('textbox', { name: 'Name', exact: true }).fill('e2e-topology');
    await expect(modal.getByRole('textbox', { name: 'Namespace' })).toHaveValue('default');
    await modal.getByRole('button', { name: 'Add label' }).click();
    await modal.getByRole('textbox', { name: 'Label 1 key' }).fill('env');
    await modal.getByRole('textbox', { name: 'Label 1 value' }).fill('e2e');
    const spec = modal.getByRole('textbox', { name: 'Spec' });
    await spec.fill('type: [App');
    await expect(modal.getByText(/end with a \] at line 1, column 11/)).toBeVisible();
    await expect(save).toBeDisabled();
    await spec.fill('type: App\nicon: server\n');
    await expect(save).toBeEnabled();
    await snap(page, 'add-topology');
    await save.click();
    await expectToast(page, 'e2e-topology created successfully');
    await expect(modal).toHaveCount(0);
    await expect(row(page, 'e2e-topology')).toContainText('Custom Topology');
    await expect(row(page, 'e2e-topology')).toContainText('UI');

    // Back returns to the options.
    modal = await openAdd(page);
    await modal.getByRole('button', { name: 'Log Backends' }).click();
    await expect(modal.getByRole('heading', { name: 'Add Integration - Log Backends' })).toBeVisible();
    await modal.getByRole('button', { name: 'Back' }).click();
    await expect(modal.getByRole('heading', { name: 'Add Integration', exact: true })).toBeVisible();
    await modal.getByRole('button', { name: 'Log Backends' }).click();
    const add = modal.getByRole('button', { name: 'Add', exact: true });
    await expect(add).toBeDisabled();
    await modal.getByRole('textbox', { name: 'Name', exact: true }).fill('e2e-logs');
    await modal.getByRole('textbox', { name: 'Spec' }).fill('loki:\n  url: http://loki:3100\n');
    await add.click();
    await expectToast(page, 'e2e-logs created successfully');
    await expect(row(page, 'e2e-logs')).toContainText('Log Backend');

    // Catalog Scraper: Kubernetes, whose max in flight starts at 64.
    modal = await openAdd(page);
    await modal.getByRole('button', { name: 'Catalog Scraper' }).click();
    await expect(modal.getByRole('heading', { name: 'Add Integration - Catalog Scraper' })).toBeVisible();
    await modal.getByRole('button', { name: 'Type', exact: true }).click();
    await expect(page.getByRole('option')).toHaveText([
      'Azure',
      'Azure DevOps',
      'AWS',
      'Custom',
      'File',
      'Github Actions',
      'HTTP',
      'Kubernetes',
      'Kubernetes File',
      'SQL',
      'Trivy',
    ]);
    await page.getByRole('option', { name: 'Kubernetes', exact: true }).click();
    await expect(modal.getByRole('spinbutton', { name: 'Max in flight' })).toHaveValue('64');
    await modal.getByRole('textbox', { name: 'Name', exact: true }).fill('e2e-scraper');
    await expect(modal.getByRole('button', { name: 'Save', exact: true })).toBeDisabled();
    await modal.getByRole('textbox', { name: 'Cluster name', exact: true }).fill('e2e-cluster');
    await choose(modal, page, 'Schedule', '@every 30m');
    await snap(page, 'add-scraper');
    await modal.getByRole('button', { name: 'Save', exact: true }).click();
    await expectToast(page, 'e2e-scraper created successfully');
    await expect(row(page, 'e2e-scraper')).toContainText('Catalog Scraper · kubernetes');
    await snap(page, 'integrations');

    // The rows look like the operator's.
    const [scraper] = await dbRows(page.request, 'config_scrapers?name=eq.e2e-scraper&select=spec,source');
    expect(scraper).toEqual({
      source: 'UI',
      spec: { schedule: '@every 30m', kubernetes: [{ clusterName: 'e2e-cluster', maxInflight: 64 }] },
    });
    const [topology] = await dbRows(page.request, 'topologies?name=eq.e2e-topology&select=namespace,labels,spec,schedule,source');
    expect(topology).toEqual({
      namespace: 'default',
      labels: { env: 'e2e' },
      spec: { type: 'App', icon: 'server' },
      schedule: '@every 10m',
      source: 'UI',
    });

    // The server's refusal shows in an error toast: the name is taken.
    modal = await openAdd(page);
    await modal.getByRole('button', { name: 'Custom Topology' }).click();
    await modal.getByRole('textbox', { name: 'Name', exact: true }).fill('e2e-topology');
    await modal.getByRole('button', { name: 'Save', exact: true }).click();
    await expectToast(page, 'agent_id, namespace, name: already in use');
    await expect(modal).toBeVisible();
    await modal.getByRole('contentinfo').getByRole('button', { name: 'Close', exact: true }).click();
    await expect(modal).toHaveCount(0);
  });

  test('edit and delete direct integrations; deleted ones show on request', async ({ page }) => {
    await page.goto(LIST);
    await row(page, 'e2e-topology').getByRole('link', { name: 'e2e-topology' }).click();
    await expect(page).toHaveURL(/\/settings\/integrations\/topology\/[0-9a-f-]+$/);
    await expect(page.getByRole('heading', { name: 'Custom Topology: e2e-topology' })).toBeVisible();
    await expect(page.getByRole('textbox', { name: 'Name', exact: true })).toBeDisabled();
    await expect(page.getByRole('textbox', { name: 'Namespace' })).toBeDisabled();
    await expect(page.getByRole('textbox', { name: 'Label 1 value' })).toHaveValue('e2e');
    await expect(page.getByText('Source', { exact: true })).toBeVisible();
    await page.getByRole('textbox', { name: 'Spec' }).fill('type: App\nschedule: "@every 5m"\n');
    await snap(page, 'edit-topology');
    await page.getByRole('button', { name: 'Update', exact: true }).click();
    await expectToast(page, 'e2e-topology updated successfully');
    await expect(page).toHaveURL(new RegExp(`${LIST}$`));
    const [topology] = await dbRows(page.request, 'topologies?name=eq.e2e-topology&select=spec,schedule');
    expect(topology).toEqual({ spec: { type: 'App', schedule: '@every 5m' }, schedule: '@every 5m' });

    // The scraper form reads its spec back.
    await row(page, 'e2e-scraper').click();
    await expect(page.getByRole('heading', { name: 'Catalog Scraper: e2e-scraper' })).toBeVisible();
    await expect(page.getByRole('button', { name: 'Type', exact: true })).toHaveText('Kubernetes');
    await expect(page.getByRole('textbox', { name: 'Cluster name', exact: true })).toHaveValue('e2e-cluster');
    await expect(page.getByRole('button', { name: 'Schedule', exact: true })).toHaveText('@every 30m');
    await page.getByRole('button', { name: 'Cancel' }).click();
    await expect(page).toHaveURL(new RegExp(`${LIST}$`));

    await row(page, 'e2e-logs').click();
    await expect(page.getByRole('heading', { name: 'Log Backend: e2e-logs' })).toBeVisible();
    await page.getByRole('button', { name: 'Delete' }).click();
    const confirm = page.getByRole('dialog', { name: 'Delete resource' });
    await expect(confirm.getByText('Are you sure you want to delete this resource?')).toBeVisible();
    await confirm.getByRole('button', { name: 'Delete' }).click();
    await expectToast(page, 'e2e-logs deleted successfully');
    await expect(page).toHaveURL(new RegExp(`${LIST}$`));
    await expect(row(page, 'e2e-topology')).toBeVisible();
    await expect(row(page, 'e2e-logs')).toHaveCount(0);

    await page.getByRole('button', { name: 'Preferences' }).click();
    await page.getByRole('dialog', { name: 'Preferences' }).getByText('Show deleted items').click();
    await expect(row(page, 'e2e-logs')).toContainText('Deleted');
    await snap(page, 'integrations-deleted');
    await page.getByRole('dialog', { name: 'Preferences' }).getByText('Show deleted items').click();
    await expect(row(page, 'e2e-logs')).toHaveCount(0);
  });

  test('Scrape now on a scraper row and on its page, and on no other row', async ({ page }) => {
    await page.goto(LIST);
    await expect(row(page, 'e2e-topology').getByRole('button', { name: 'Scrape now' })).toHaveCount(0);
    // The button queues a scrape without opening the row.
    await row(page, 'e2e-scraper').getByRole('button', { name: 'Scrape now' }).click();
    await expectToast(page, 'Scrape queued');
    await expect(page).toHaveURL(new RegExp(`${LIST}$`));
    await expect(page.locator('.qd-toasts').getByText('Scrape queued')).toHaveCount(0);

    await row(page, 'e2e-scraper').click();
    await expect(page.getByRole('heading', { name: 'Catalog Scraper: e2e-scraper' })).toBeVisible();
    await page.getByRole('button', { name: 'Scrape now' }).click();
    await expectToast(page, 'Scrape queued');
    await snap(page, 'scraper-scrape-now');
  });

  test('a GitOps option previews Flux and Helm CLI output, checked against its schema', async ({ page }) => {
    const warning = 'You will need to have Kubernetes chart installed in flux to use this option.';
    await page.goto(LIST);
    const modal = await openAdd(page);
    await modal.getByRole('button', { name: 'AWS', exact: true }).click();
    await expect(modal.getByRole('heading', { name: 'Add Integration - AWS' })).toBeVisible();
    await expect(modal.getByRole('textbox', { name: 'Namespace' })).toHaveValue('quarterdeck');
    const values = modal.getByRole('textbox', { name: 'Values' });

    // The server checks the values against the chart's schema: region is required, and a region.
    await expect(modal.getByText(/region/).first()).toBeVisible();
    await expect(values).toHaveAttribute('aria-invalid', 'true');
    await values.fill('region: eu-west-1\nclusterName: e2e-aws\n');
    await expect(values).not.toHaveAttribute('aria-invalid', 'true');
    const flux = modal.getByRole('tabpanel', { name: 'Flux' });
    await expect(flux.getByText(warning)).toBeVisible();
    await expect(flux.locator('pre')).toContainText('kind: HelmRelease');
    await expect(flux.locator('pre')).toContainText('quarterdeck-aws');
    await expect(flux.getByRole('button', { name: 'Copy Flux manifest' })).toBeVisible();
    await snap(page, 'gitops-flux');
    await modal.getByRole('tab', { name: 'Helm CLI' }).click();
    const helm = modal.getByRole('tabpanel', { name: 'Helm CLI' });
    await expect(helm.getByText(warning)).toBeVisible();
    await expect(helm.locator('pre')).toContainText('helm install');
    await expect(helm.locator('pre')).toContainText('--set region=eu-west-1');
    await expect(helm.locator('pre')).toContainText('--namespace quarterdeck');
    await expect(helm.getByRole('button', { name: 'Copy Helm commands' })).toBeVisible();

    await values.fill('region: Mars\n');
    await expect(modal.getByText(/^\/region: /)).toBeVisible();
    await snap(page, 'gitops-invalid');
    await values.fill('region: [eu-west-1\n');
    await expect(modal.getByText(/end with a \] at line 2, column 1/)).toBeVisible();
    await values.fill('region: eu-west-1\n');
    await modal.getByRole('textbox', { name: 'Namespace' }).fill('Not_A_Namespace');
    await expect(modal.getByRole('textbox', { name: 'Namespace' })).toHaveAttribute('aria-invalid', 'true');
    await modal.getByRole('textbox', { name: 'Namespace' }).fill('ops');
    await expect(helm.locator('pre')).toContainText('--namespace ops');

    await modal.getByRole('button', { name: 'Back' }).click();
    await expect(modal.getByRole('heading', { name: 'Add Integration', exact: true })).toBeVisible();
    await modal.getByRole('button', { name: 'Close', exact: true }).first().click();
    await expect(modal).toHaveCount(0);
  });

  test('the Log Backends tile is hidden while the logs feature is disabled', async ({ page }) => {
    await seed('property', { name: 'logs.disable', value: 'true' });
    try {
      await page.goto(LIST);
      const modal = await openAdd(page);
      const direct = modal.getByRole('list', { name: 'Add Directly' });
      await expect(direct.getByRole('button', { name: 'Catalog Scraper' })).toBeVisible();
      await expect(direct.getByRole('button', { name: 'Log Backends' })).toHaveCount(0);
    } finally {
      await seed('remove', { what: 'properties', prefix: 'logs.disable' });
    }
  });

  test('a KubernetesCRD integration is read-only', async ({ page }) => {
    const crd = await seed('topology', { name: CRD_TOPOLOGY, spec: { type: 'App' }, source: 'KubernetesCRD' });
    await page.goto(LIST);
    await expect(row(page, CRD_TOPOLOGY)).toContainText('KubernetesCRD');
    await row(page, CRD_TOPOLOGY).click();
    await expect(page).toHaveURL(`${LIST}/topology/${crd.id}`);
    await expect(
      page.getByText('Read-Only Mode: This resource is managed by Kubernetes CRD and cannot be edited from the UI.'),
    ).toBeVisible();
    await expect(page.getByText('Kubernetes CRD', { exact: true })).toBeVisible();
    await expect(page.getByRole('textbox', { name: 'Spec' })).toBeDisabled();
    for (const name of ['Update', 'Delete', 'Cancel', 'Add label']) {
      await expect(page.getByRole('button', { name })).toHaveCount(0);
    }
    await snap(page, 'integration-crd');

    // The server refuses such writes too.
    const res = await page.request.patch(`/api/db/topologies?id=eq.${crd.id}`, {
      data: { deleted_at: new Date().toISOString() },
      headers: { Origin: new URL(page.url()).origin },
    });
    expect(res.status()).toBe(403);
  });
});

test.describe('as a viewer', () => {
  test.use({ storageState: VIEWER_STATE });

  test('sees the list without Add Integration, and Unauthorized on an edit page', async ({ page }) => {
    await page.goto(LIST);
    await expect(row(page, 'e2e-topology')).toBeVisible();
    await expect(page.getByRole('button', { name: 'Add Integration' })).toHaveCount(0);
    await expect(page.getByRole('button', { name: 'Scrape now' })).toHaveCount(0);
    const [topology] = await dbRows<{ id: string }>(page.request, 'topologies?name=eq.e2e-topology&deleted_at=is.null&select=id');
    await page.goto(`${LIST}/topology/${topology?.id}`);
    await expect(page.getByRole('heading', { name: 'Unauthorized', level: 2 })).toBeVisible();
    await expect(page.getByText('You do not have permission to access this page')).toBeVisible();
  });
});
