import { expect, test } from '@playwright/test';
import { sql } from './db';
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
  const [scope] = await sql<{ id: string }>(
    `INSERT INTO access_scopes (name, person_id, resources, scopes)
     SELECT 'e2e-viewer-scope', id, '{config}', '[{"names": ["e2e-viewer-nothing"]}]' FROM people WHERE email = $1 RETURNING id`,
    [GUEST.email],
  );
  try {
    await page.goto('/settings/access-scopes');
    const row = page.getByRole('row', { name: /e2e-viewer-scope/ });
    await expect(row).toContainText(`${GUEST.first} ${GUEST.last}`);
    await expect(row).not.toContainText(GUEST.email);
  } finally {
    await sql(`DELETE FROM access_scopes WHERE id = $1`, [scope?.id]);
  }
});
