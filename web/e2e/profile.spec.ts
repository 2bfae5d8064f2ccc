import { expect, test, type Browser, type Page } from '@playwright/test';
import { randomUUID } from 'node:crypto';
import { ADMIN_STATE } from './env';
import { snap } from './helpers';

const PASSWORD = 'profile-password-1';
const NEW_PASSWORD = 'profile-password-2';

/** A person of their own (the shared admin and viewer stay signed in), signed
 * in through their invitation in a fresh browser context. */
async function invited(browser: Browser, email: string): Promise<Page> {
  const admin = await browser.newContext({ storageState: ADMIN_STATE });
  const baseURL = test.info().project.use.baseURL ?? '';
  const res = await admin.request.post('/api/auth/invite_user', {
    data: { firstName: 'Pat', lastName: 'Profile', email, role: 'viewer' },
    headers: { Origin: new URL(baseURL).origin },
  });
  expect(res.ok(), await res.text()).toBeTruthy();
  const { payload } = (await res.json()) as { payload: { link: string } };
  await admin.close();
  const context = await browser.newContext({ storageState: { cookies: [], origins: [] } });
  const page = await context.newPage();
  const link = new URL(payload.link);
  await page.goto(link.pathname + link.search);
  await page.getByLabel('New password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Set password and sign in' }).click();
  await expect(page.getByRole('button', { name: 'User menu' })).toHaveText('Pat Profile');
  return page;
}

test('profile settings: titles, change name, change password, sign out everywhere', async ({ browser }) => {
  // A new address each attempt: a retried test must not meet its first attempt's person.
  const email = `pat-${randomUUID()}@e2e.test`;
  const page = await invited(browser, email);
  await page.goto('/health');
  await page.getByRole('button', { name: 'User menu' }).click();
  await page.getByRole('menuitem', { name: 'Your Profile' }).click();
  await expect(page).toHaveURL(/\/profile-settings\?return_to=%2Fhealth/);
  for (const title of ['Profile Settings', 'Change Password', 'Sessions']) {
    await expect(page.getByRole('heading', { name: title, exact: true })).toBeVisible();
  }
  await snap(page, 'profile-settings');

  await page.getByRole('textbox', { name: 'Name' }).fill('Patricia Profile');
  await page.getByRole('button', { name: 'Save' }).click();
  await expect(page.getByText('Your profile was saved.')).toBeVisible();
  await expect(page.getByRole('button', { name: 'User menu' })).toHaveText('Patricia Profile');

  await page.getByLabel('Current password').fill('not my password');
  await page.getByLabel('New password').fill(NEW_PASSWORD);
  await page.getByRole('button', { name: 'Change password' }).click();
  await expect(page.getByText('The current password is not correct')).toBeVisible();
  await page.getByLabel('Current password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Change password' }).click();
  await expect(page.getByText('Your password was changed; your other sessions were signed out.')).toBeVisible();

  // A second browser of the same person is signed out from the first.
  const other = await browser.newContext({ storageState: { cookies: [], origins: [] } });
  const second = await other.newPage();
  await second.goto('/login');
  await second.getByRole('textbox', { name: 'Email' }).fill(email);
  await second.getByLabel('Password').fill(NEW_PASSWORD);
  await second.getByRole('button', { name: 'Sign in' }).click();
  await expect(second.getByRole('button', { name: 'User menu' })).toHaveText('Patricia Profile');

  await page.getByRole('button', { name: 'Sign out everywhere else' }).click();
  await expect(page.getByText('Signed out of 1 other session.')).toBeVisible();
  // The second page's own polling may meet the 401 first and send it to
  // sign-in, aborting the reload (or detaching the page it reloads): either
  // way it must end at sign-in.
  await second.reload().catch((error: Error) => {
    const raced = ['ERR_ABORTED', 'Not attached to an active page'];
    if (!raced.some((text) => error.message.includes(text))) throw error;
  });
  await expect(second.getByRole('heading', { name: 'Sign In to your account' })).toBeVisible();
  await other.close();

  await page.getByRole('link', { name: 'Go back' }).click();
  await expect(page).toHaveURL(/\/health$/);
  await page.context().close();
});
