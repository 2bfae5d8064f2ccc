import { expect, test, type Page } from '@playwright/test';
import { ADMIN_STATE } from './env';
import { dbRows, expectToast, snap } from './helpers';
import { seed } from './seed';

test.use({ storageState: ADMIN_STATE });

const LIST = '/settings/rules';
const PREFIX = 'e2e-rules-';
const UI_RULE = `${PREFIX}ui`;
const CRD_RULE = `${PREFIX}crd`;
// Selects no check of the e2e world, so the running operator opens nothing.
const NOTHING = { checks: [{ name: `${PREFIX}no-such-check` }] };

let crdId = '';

function row(page: Page, name: string) {
  return page.getByRole('grid', { name: 'Incident rules' }).getByRole('row', { name: new RegExp(`^${name}\\b`) });
}

test.beforeAll(async () => {
  await seed('remove', { what: 'incident_rules', prefix: PREFIX });
  crdId = (await seed('incident-rule', { name: CRD_RULE, source: 'KubernetesCRD', spec: { priority: 2, ...NOTHING } })).id;
});

test.afterAll(async () => {
  await seed('remove', { what: 'incident_rules', prefix: PREFIX });
});

test('the sidebar lists Rules; a rule is added, checked, updated and deleted in the resource editor', async ({ page }) => {
  await page.goto('/settings/tokens');
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Rules', exact: true }).click();
  await expect(page).toHaveURL(new RegExp(`${LIST}$`));
  await expect(row(page, CRD_RULE)).toContainText('2');

  await page.getByRole('button', { name: 'Add Rule' }).click();
  await expect(page).toHaveURL(new RegExp(`${LIST}/new$`));
  await page.getByRole('textbox', { name: 'Name', exact: true }).fill(UI_RULE);
  await expect(page.getByRole('textbox', { name: 'Labels' })).toHaveCount(0);
  const spec = page.getByRole('textbox', { name: 'Spec' });
  // A misspelt field is refused before saving.
  await spec.fill('priority: 1\nbreakOnMach: true\n');
  await expect(page.getByText('breakOnMach: unknown field')).toBeVisible();
  await expect(page.getByRole('button', { name: 'Save', exact: true })).toBeDisabled();
  // A value the server refuses: its message names the field.
  await spec.fill(`priority: 1\nchecks:\n  - name: ${PREFIX}no-such-check\nautoResolve:\n  timeout: soon\n`);
  await page.getByRole('button', { name: 'Save', exact: true }).click();
  await expectToast(page, 'spec.autoResolve.timeout: invalid duration');
  await spec.fill(
    `priority: 1\nbreakOnMatch: true\nchecks:\n  - name: ${PREFIX}no-such-check\ntemplate:\n  title: "{{ .check.name }} is down"\n  severity: high\nautoResolve:\n  timeout: 10m\n`,
  );
  await snap(page, 'rules-editor');
  await page.getByRole('button', { name: 'Save', exact: true }).click();
  await expectToast(page, `${UI_RULE} created successfully`);
  // Saving returns to the list; Cancel too.
  await expect(page).toHaveURL(new RegExp(`${LIST}$`));
  await row(page, UI_RULE).click();
  await expect(page.getByRole('heading', { name: `Rule: ${UI_RULE}` })).toBeVisible();
  await page.getByRole('button', { name: 'Cancel', exact: true }).click();
  await expect(page).toHaveURL(new RegExp(`${LIST}$`));
  await row(page, UI_RULE).click();
  await expect(page.getByRole('heading', { name: `Rule: ${UI_RULE}` })).toBeVisible();
  await expect(page.getByRole('textbox', { name: 'Name', exact: true })).toBeDisabled();
  const [saved] = await dbRows<{ id: string; spec: Record<string, unknown>; source: string }>(
    page.request,
    `incident_rules?name=eq.${UI_RULE}&deleted_at=is.null&select=id,spec,source`,
  );
  expect(saved?.source).toBe('UI');
  expect(saved?.spec).toMatchObject({ priority: 1, breakOnMatch: true, template: { severity: 'high' }, autoResolve: { timeout: '10m' } });

  await page.getByRole('textbox', { name: 'Spec' }).fill(`priority: 5\nchecks:\n  - name: ${PREFIX}no-such-check\n`);
  await page.getByRole('button', { name: 'Update', exact: true }).click();
  await expectToast(page, `${UI_RULE} updated successfully`);
  await expect(page).toHaveURL(new RegExp(`${LIST}$`));
  await expect(row(page, UI_RULE)).toContainText('5');
  await snap(page, 'rules-list');

  await row(page, UI_RULE).click();
  await page.getByRole('button', { name: 'Delete', exact: true }).click();
  await page.getByRole('dialog', { name: 'Delete resource' }).getByRole('button', { name: 'Delete', exact: true }).click();
  await expectToast(page, `${UI_RULE} deleted successfully`);
  await expect(row(page, UI_RULE)).toHaveCount(0);
});

test('a rule from a Kubernetes CRD is read-only', async ({ page }) => {
  await page.goto(`${LIST}/${crdId}`);
  await expect(page.getByRole('heading', { name: `Rule: ${CRD_RULE}` })).toBeVisible();
  await expect(
    page.getByText('Read-Only Mode: This resource is managed by Kubernetes CRD and cannot be edited from the UI.'),
  ).toBeVisible();
  await expect(page.getByRole('textbox', { name: 'Spec' })).toBeDisabled();
  await expect(page.getByRole('button', { name: 'Update' })).toHaveCount(0);
  await expect(page.getByRole('button', { name: 'Delete' })).toHaveCount(0);
});
