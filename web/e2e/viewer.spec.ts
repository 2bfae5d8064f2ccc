import { expect, test } from '@playwright/test';
import { seed } from './seed';
import { GUEST, VIEWER_STATE } from './env';

test.use({ storageState: VIEWER_STATE });

test('a viewer sees no Settings and no add buttons', async ({ page }) => {
  await page.goto('/');
  await expect(page.getByRole('button', { name: 'User menu' })).toBeVisible();
  await expect(page.getByRole('navigation', { name: 'Main' })).toBeVisible();
  await expect(page.getByRole('button', { name: 'Settings' })).toHaveCount(0);
  await expect(page.getByRole('link', { name: 'Access Scopes' })).toHaveCount(0);
  await page.getByRole('button', { name: 'User menu' }).click();
  await expect(page.getByRole('menuitem', { name: 'Sign out' })).toBeVisible();
  await expect(page.getByRole('menuitem', { name: 'Download kubeconfig' })).toHaveCount(0);
  await page.keyboard.press('Escape');

  await page.goto('/settings/access-scopes');
  await expect(page.getByRole('grid', { name: 'Access scopes' }).or(page.getByRole('table', { name: 'Access scopes' }))).toBeVisible();
  await expect(page.getByRole('button', { name: 'Add Access Scope' })).toHaveCount(0);

  await page.goto('/settings/permissions');
  await expect(page.getByRole('heading', { name: 'Permissions' })).toBeVisible();
  await expect(page.getByRole('button', { name: 'Add Permission' })).toHaveCount(0);

  await page.goto('/settings/teams');
  await expect(page.getByRole('heading', { name: 'Teams' })).toBeVisible();
  await expect(page.getByRole('button', { name: 'Add Team' })).toHaveCount(0);
});

test("another person's email is withheld: a guest's access scope names the guest", async ({ page }) => {
  await seed('access-scopes', [
    { name: 'e2e-viewer-scope', subject: { email: GUEST.email }, resources: ['config'], scopes: [{ names: ['e2e-viewer-nothing'] }] },
  ]);
  try {
    await page.goto('/settings/access-scopes');
    const row = page.getByRole('row', { name: /e2e-viewer-scope/ });
    await expect(row).toContainText(`${GUEST.first} ${GUEST.last}`);
    await expect(row).not.toContainText(GUEST.email);
  } finally {
    await seed('remove', { what: 'access_scopes', prefix: 'e2e-viewer-scope' });
  }
});
