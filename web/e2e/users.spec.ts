import { expect, test } from '@playwright/test';
import { ADMIN_STATE } from './env';
import { attempt, choose, expectToast, snap } from './helpers';

test.use({ storageState: ADMIN_STATE });

test('invite a user, who accepts; change roles, issue a reset link, remove', async ({ page, browser }) => {
  const last = attempt('Editor');
  const full = `Ed ${last}`;
  const email = `${attempt('editor')}@e2e.test`;
  await page.goto('/settings/users');
  await page.getByRole('button', { name: 'Invite User' }).click();
  const invite = page.getByRole('dialog', { name: 'Invite User' });
  await invite.getByRole('textbox', { name: 'First name' }).fill('Ed');
  await invite.getByRole('textbox', { name: 'Last name' }).fill(last);
  await invite.getByRole('textbox', { name: 'Email' }).fill(email);
  await choose(invite, page, 'Role', 'editor');
  await invite.getByRole('button', { name: 'Invite' }).click();

  const invited = page.getByRole('dialog', { name: 'User invited' });
  const link = await invited.getByRole('textbox', { name: 'One-time link' }).inputValue();
  expect(link).toMatch(/\/invite\?token=/);
  await snap(page, 'user-invited');
  await invited.locator('footer').getByRole('button', { name: 'Close' }).click();
  const row = page.getByRole('row', { name: new RegExp(full) });
  await expect(row).toContainText('Invited');

  const guest = await browser.newContext({ storageState: { cookies: [], origins: [] } });
  const invitee = await guest.newPage();
  await invitee.goto(new URL(link).pathname + new URL(link).search);
  await expect(invitee.getByRole('heading', { name: 'Accept invitation' })).toBeVisible();
  await expect(invitee.getByRole('textbox', { name: 'Email' })).toHaveValue(email);
  await invitee.getByLabel('New password').fill('short');
  await invitee.getByRole('button', { name: 'Set password and sign in' }).click();
  await expect(invitee.getByText(/Password must be at least 12 characters/)).toBeVisible();
  await snap(invitee, 'invite');
  await invitee.getByLabel('New password').fill('a long enough password');
  await invitee.getByRole('button', { name: 'Set password and sign in' }).click();
  await expect(invitee).toHaveURL(/\/topology$/);
  await expect(invitee.getByRole('button', { name: 'User menu' })).toHaveText(full);
  await guest.close();

  await page.reload();
  await expect(row).toContainText('Active');
  await snap(page, 'users');

  await row.getByRole('button', { name: 'Kebab toggle' }).click();
  await page.getByRole('menuitem', { name: 'Change roles' }).click();
  const roles = page.getByRole('dialog', { name: `Roles of ${full}` });
  await roles.getByRole('checkbox', { name: 'responder' }).check();
  await roles.getByRole('button', { name: 'Save' }).click();
  await expectToast(page, `${full} updated successfully`);
  await expect(row).toContainText('responder');

  await row.getByRole('button', { name: 'Kebab toggle' }).click();
  await page.getByRole('menuitem', { name: 'Issue password reset link' }).click();
  const reset = page.getByRole('dialog', { name: 'Password reset link' });
  await expect(reset.getByRole('textbox', { name: 'One-time link' })).toHaveValue(/\/reset-password\?token=/);
  await reset.locator('footer').getByRole('button', { name: 'Close' }).click();

  await row.getByRole('button', { name: 'Kebab toggle' }).click();
  await page.getByRole('menuitem', { name: 'Remove' }).click();
  await page.getByRole('dialog', { name: 'Remove user' }).getByRole('button', { name: 'Remove' }).click();
  await expectToast(page, `${full} deleted successfully`);
  await expect(page.getByRole('row', { name: new RegExp(full) })).toHaveCount(0);
});
