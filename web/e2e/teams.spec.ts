import { expect, test } from '@playwright/test';
import { ADMIN_STATE, MEMBER } from './env';
import { attempt, choose, dbRows, expectToast, snap } from './helpers';

test.use({ storageState: ADMIN_STATE });

test('add and remove team members', async ({ page }) => {
  const team = attempt('e2e-team');
  const member = `${MEMBER.first} ${MEMBER.last}`;
  await page.goto('/settings/teams');
  await page.getByRole('button', { name: 'Add Team' }).click();
  const add = page.getByRole('dialog', { name: 'Add Team' });
  await add.getByRole('textbox', { name: 'Name', exact: true }).fill(team);
  await expect(add.getByRole('button', { name: 'Icon', exact: true })).toHaveText('group');
  await choose(add, page, 'Icon', 'code');
  await add.getByRole('button', { name: 'Save' }).click();
  // Saving returns to the list.
  await expectToast(page, `${team} created successfully`);
  await expect(page).toHaveURL(/\/settings\/teams$/);
  await page
    .getByRole('row', { name: new RegExp(team) })
    .first()
    .click();
  await expect(page).toHaveURL(/\/settings\/teams\/[0-9a-f-]+$/);
  await expect(page.getByRole('heading', { name: `Team: ${team}` })).toBeVisible();
  await expect(page.getByRole('button', { name: 'Icon', exact: true })).toHaveText('code');

  await page.getByRole('tab', { name: 'Members' }).click();
  await expect(page.getByText("You haven't added any team members to the team yet.")).toBeVisible();
  await page.getByRole('button', { name: 'Add Members' }).click();
  const modal = page.getByRole('dialog', { name: 'Add users to the team' });
  await choose(modal, page, 'Users', new RegExp(member));
  await modal.getByRole('button', { name: 'Users', exact: true }).click();
  await modal.getByRole('button', { name: 'Add', exact: true }).click();
  await expectToast(page, `${member} added to the team successfully`);
  await expect(page.getByRole('list', { name: 'Team members' }).getByText(member)).toBeVisible();
  await snap(page, 'team-members');

  await page.getByRole('button', { name: `Actions for ${member}` }).click();
  await page.getByRole('menuitem', { name: 'Remove user' }).click();
  await expectToast(page, `${member} removed from team successfully`);
  await expect(page.getByText("You haven't added any team members to the team yet.")).toBeVisible();

  // Cancel, then Update, return to the list.
  await page.getByRole('tab', { name: 'Spec' }).click();
  await page.getByRole('button', { name: 'Cancel', exact: true }).click();
  await expect(page).toHaveURL(/\/settings\/teams$/);
  await page
    .getByRole('row', { name: new RegExp(team) })
    .first()
    .click();
  await choose(page, page, 'Icon', 'server');
  await page.getByRole('button', { name: 'Update', exact: true }).click();
  await expectToast(page, `${team} updated successfully`);
  await expect(page).toHaveURL(/\/settings\/teams$/);
  const [saved] = await dbRows<{ icon: string }>(page.request, `teams?name=eq.${team}&deleted_at=is.null&select=icon`);
  expect(saved?.icon).toBe('server');
  await expect(page.getByRole('row', { name: new RegExp(team) }).first()).toBeVisible();
  await snap(page, 'teams');
});
