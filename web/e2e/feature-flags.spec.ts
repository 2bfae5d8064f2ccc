import { expect, test } from '@playwright/test';
import { ADMIN_STATE } from './env';
import { expectToast, snap } from './helpers';

test.use({ storageState: ADMIN_STATE });

test('a {feature}.disable flag hides its screen', async ({ page }) => {
  const nav = page.getByRole('navigation', { name: 'Main' });
  await page.goto('/settings/feature-flags');
  await expect(nav.getByRole('link', { name: 'Teams' })).toBeVisible();

  await page.getByRole('button', { name: 'Add Feature Flag' }).click();
  const add = page.getByRole('dialog', { name: 'Add Feature Flag' });
  await add.getByRole('textbox', { name: 'Name' }).fill('settings.teams.disable');
  await add.getByRole('textbox', { name: 'Value' }).fill('true');
  await add.getByRole('button', { name: 'Save' }).click();
  await expectToast(page, 'settings.teams.disable created successfully');
  await expect(nav.getByRole('link', { name: 'Teams' })).toHaveCount(0);
  await snap(page, 'feature-flags');

  await page.getByRole('row', { name: /settings\.teams\.disable/ }).click();
  const edit = page.getByRole('dialog', { name: 'Edit Feature Flag' });
  await edit.getByRole('textbox', { name: 'Value' }).fill('false');
  await edit.getByRole('button', { name: 'Update' }).click();
  await expectToast(page, 'settings.teams.disable updated successfully');
  await expect(nav.getByRole('link', { name: 'Teams' })).toBeVisible();

  await page.getByRole('row', { name: /settings\.teams\.disable/ }).click();
  await edit.getByRole('button', { name: 'Delete' }).click();
  await page.getByRole('dialog', { name: 'Delete resource' }).getByRole('button', { name: 'Delete' }).click();
  await expectToast(page, 'settings.teams.disable deleted successfully');
  await expect(page.getByRole('row', { name: /settings\.teams\.disable/ })).toHaveCount(0);
});
