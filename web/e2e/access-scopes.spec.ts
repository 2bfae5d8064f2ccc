import { expect, test, type Page } from '@playwright/test';
import { ADMIN_STATE, AGENT, CRD_SCOPE, CRD_TEAM, GUEST } from './env';
import { choose, expectToast, option, snap } from './helpers';
import { seed } from './seed';

test.use({ storageState: ADMIN_STATE });

const NAME = 'e2e-scope';
const MESSAGES = {
  name: 'Name is required',
  subject: 'Either a Guest or Team must be selected',
  resources: 'At least one resource type is required',
  scope: 'Each scope must have at least one of: tags, agents, or names',
  wildcard: "Wildcard '*' must be the only name when used",
};

// A retried attempt starts without the scope an earlier attempt created.
test.beforeEach(() => seed('remove', { what: 'access_scopes', prefix: NAME }));

function dialog(page: Page) {
  return page.getByRole('dialog');
}

async function pickResource(page: Page, name: string) {
  const toggle = dialog(page).getByRole('button', { name: 'Resources', exact: true });
  await toggle.click();
  await option(page, name).click();
  await toggle.click();
}

test('create, edit and delete an access scope, with every validation message', async ({ page }) => {
  await page.goto('/settings/access-scopes');
  await expect(page.getByRole('heading', { name: 'Access Scopes' })).toBeVisible();
  await page.getByRole('button', { name: 'Add Access Scope' }).click();
  const modal = dialog(page);
  await expect(modal.getByRole('heading', { name: 'Add Access Scope' })).toBeVisible();

  await modal.getByRole('button', { name: 'Create' }).click();
  for (const message of [MESSAGES.name, MESSAGES.subject, MESSAGES.resources, MESSAGES.scope]) {
    await expect(modal.getByText(message)).toBeVisible();
  }
  await snap(page, 'access-scope-validation');

  await modal.getByRole('textbox', { name: 'Name', exact: true }).fill(NAME);
  await expect(modal.getByText(MESSAGES.name)).toHaveCount(0);

  // The subject toggle clears the other kind's choice.
  await modal.getByRole('button', { name: 'Team', exact: true }).click();
  await choose(modal, page, 'Select team', CRD_TEAM);
  await modal.getByRole('button', { name: 'Guest', exact: true }).click();
  await expect(modal.getByRole('button', { name: 'Select guest' })).toHaveText('Select a guest');
  await choose(modal, page, 'Select guest', new RegExp(GUEST.email));
  await expect(modal.getByText(MESSAGES.subject)).toHaveCount(0);

  // '*' removes the other types; another type removes '*'.
  await pickResource(page, 'config');
  await pickResource(page, 'canary');
  await expect(modal.getByRole('button', { name: 'Resources', exact: true })).toHaveText('config, canary');
  await pickResource(page, '* (all)');
  await expect(modal.getByRole('button', { name: 'Resources', exact: true })).toHaveText('* (all)');
  await pickResource(page, 'config');
  await expect(modal.getByRole('button', { name: 'Resources', exact: true })).toHaveText('config');
  await expect(modal.getByText(MESSAGES.resources)).toHaveCount(0);

  await modal.getByLabel('Scope 1 names').fill('checkout\n*');
  await expect(modal.getByText(MESSAGES.wildcard)).toBeVisible();
  await modal.getByLabel('Scope 1 names').fill('  checkout \n\n payments\n');
  await expect(modal.getByText(MESSAGES.wildcard)).toHaveCount(0);
  await expect(modal.getByRole('button', { name: 'Remove scope 1', exact: true })).toHaveCount(0);

  await modal.getByRole('button', { name: 'Add scope' }).click();
  await expect(modal.getByText(MESSAGES.scope)).toBeVisible();
  await modal.getByRole('button', { name: 'Add tag to scope 2' }).click();
  await modal.getByLabel('Scope 2 tag 1 key').fill('env');
  await modal.getByLabel('Scope 2 tag 1 value').fill('prod');
  await choose(modal, page, 'Scope 2 agents', AGENT);
  await modal.getByRole('button', { name: 'Scope 2 agents' }).click();
  await expect(modal.getByText(MESSAGES.scope)).toHaveCount(0);
  await modal.getByRole('textbox', { name: 'Description' }).fill('created by e2e');
  await snap(page, 'access-scope-modal');
  await modal.getByRole('button', { name: 'Create' }).click();
  await expectToast(page, 'Access Scope created');

  const row = page.getByRole('row', { name: new RegExp(NAME) });
  await expect(row).toContainText(GUEST.email);
  await expect(row).toContainText('2 scopes');
  await expect(row).toContainText('created by e2e');
  await snap(page, 'access-scopes');

  await row.click();
  await expect(modal.getByRole('heading', { name: 'Edit Access Scope' })).toBeVisible();
  await expect(modal.getByLabel('Scope 1 names')).toHaveValue('checkout\npayments');
  await modal.getByRole('button', { name: 'Remove scope 2', exact: true }).click();
  await modal.getByRole('textbox', { name: 'Description' }).fill('edited by e2e');
  await modal.getByRole('button', { name: 'Save' }).click();
  await expectToast(page, 'Access Scope updated');
  await expect(row).toContainText('edited by e2e');
  await expect(row).toContainText('1 scope');

  await row.click();
  await modal.getByRole('button', { name: 'Delete' }).click();
  const confirm = page.getByRole('dialog', { name: 'Delete Access Scope' });
  await expect(confirm.getByText('Are you sure you want to delete this access scope? This action cannot be undone.')).toBeVisible();
  await confirm.getByRole('button', { name: 'Delete' }).click();
  await expectToast(page, 'Access Scope deleted');
  await expect(page.getByRole('row', { name: new RegExp(NAME) })).toHaveCount(0);
});

test('a KubernetesCRD access scope is read-only and cannot be deleted', async ({ page }) => {
  await page.goto('/settings/access-scopes');
  const row = page.getByRole('row', { name: new RegExp(CRD_SCOPE) });
  await expect(row.getByText('CRD', { exact: true })).toBeVisible();
  await expect(row).toContainText(CRD_TEAM);
  await row.click();
  const modal = dialog(page);
  await expect(
    modal.getByText('Read-Only Mode: This resource is managed by Kubernetes CRD and cannot be edited from the UI.'),
  ).toBeVisible();
  await expect(modal.getByRole('button', { name: 'Delete' })).toHaveCount(0);
  await expect(modal.getByRole('button', { name: 'Save' })).toHaveCount(0);
  await expect(modal.getByRole('textbox', { name: 'Name', exact: true })).toBeDisabled();
  await snap(page, 'access-scope-crd');
});
