import { expect, test } from '@playwright/test';
import { ADMIN_STATE, VIEWER } from './env';
import { attempt, choose, expectToast, snap } from './helpers';

test.use({ storageState: ADMIN_STATE });

test('create and delete a permission', async ({ page }) => {
  const description = attempt('e2e permission');
  const name = `${VIEWER.first} ${VIEWER.last}`;
  await page.goto('/settings/permissions');
  await page.getByRole('button', { name: 'Add Permission' }).click();
  const modal = page.getByRole('dialog', { name: 'Add Permission' });
  await modal.getByRole('button', { name: 'Add', exact: true }).click();
  await expect(modal.getByText('This field is required')).toHaveCount(2);

  await choose(modal, page, 'Subject', new RegExp(name));
  await choose(modal, page, 'Resource', 'artifact');
  await choose(modal, page, 'Action', 'update');
  await modal.getByRole('textbox', { name: 'Description' }).fill(description);
  await snap(page, 'permission-modal');
  await modal.getByRole('button', { name: 'Add', exact: true }).click();
  await expectToast(page, 'Permission added');

  const row = page.getByRole('row', { name: new RegExp(description) });
  await expect(row.getByRole('link', { name })).toBeVisible();
  await expect(row).toContainText('artifact');
  await expect(row).toContainText('update');
  await expect(row).toContainText('Allow');
  // A page of the newest first, with the total beside the pager.
  await expect(page.getByRole('navigation', { name: 'Permissions pagination' })).toBeVisible();
  await snap(page, 'permissions');

  await row.getByText(description).click();
  const edit = page.getByRole('dialog', { name: 'Edit Permission' });
  await expect(edit.getByRole('button', { name: 'Subject', exact: true })).toHaveText(name);
  await edit.getByRole('button', { name: 'Delete' }).click();
  const confirm = page.getByRole('dialog', { name: 'Delete Permission' });
  await expect(confirm.getByText('Are you sure you want to delete the permission?')).toBeVisible();
  await confirm.getByRole('button', { name: 'Delete' }).click();
  await expectToast(page, 'Permission deleted');
  await expect(page.getByRole('row', { name: new RegExp(description) })).toHaveCount(0);
});
