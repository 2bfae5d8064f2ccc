import { expect, test } from '@playwright/test';
import { ADMIN, VIEWER_STATE } from './env';
import { snap } from './helpers';

test('sign in, and sign out back to the current page', async ({ page }) => {
  await page.goto('/settings/tokens');
  await expect(page).toHaveURL(/\/login\?return_to=%2Fsettings%2Ftokens/);
  await expect(page.getByRole('heading', { name: 'Sign In to your account' })).toBeVisible();
  await snap(page, 'login');

  await page.getByRole('textbox', { name: 'Email' }).fill(ADMIN.email);
  await page.getByLabel('Password').fill('not the password');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.getByText(/The provided credentials are invalid/)).toBeVisible();

  await page.getByLabel('Password').fill(ADMIN.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page).toHaveURL(/\/settings\/tokens$/);
  await expect(page.getByRole('heading', { name: 'Tokens' })).toBeVisible();

  await page.getByRole('button', { name: 'User menu' }).click();
  await expect(page.getByText('Hi Admin', { exact: false })).toBeVisible();
  await expect(page.getByRole('menuitem', { name: /^frontend \S+ backend \S+$/ })).toBeVisible();
  await snap(page, 'user-menu');
  await page.getByRole('menuitem', { name: 'Sign out' }).click();
  await expect(page).toHaveURL(/\/login\?return_to=%2Fsettings%2Ftokens$/);
  await expect(page.getByRole('heading', { name: 'Sign In to your account' })).toBeVisible();
});

test('sign-in titles follow refresh and aal', async ({ page }) => {
  await page.goto('/login?refresh=true');
  await expect(page.getByRole('heading', { name: 'Confirm Action' })).toBeVisible();
  await page.goto('/login?aal=aal2');
  await expect(page.getByRole('heading', { name: 'Two-Factor Authentication', exact: true })).toBeVisible();
  await expect(page.getByRole('link', { name: 'Reset password' })).toHaveAttribute('href', '/recovery');
});

test('error page', async ({ page }) => {
  await page.goto('/error?error_code=BAD_SESSION');
  await expect(
    page.getByText('Bad Session. Please try logging out and logging in again, if the problem persist, please contact us.'),
  ).toBeVisible();
  await snap(page, 'error');
  await page.goto('/error?error_code=OTHER');
  await expect(page.getByText('Unknown error')).toBeVisible();
  await expect(page.getByRole('link', { name: 'Go back' })).toBeVisible();
});

test.describe('as a viewer', () => {
  test.use({ storageState: VIEWER_STATE });

  test('a page without read access shows Unauthorized', async ({ page }) => {
    await page.goto('/settings/users');
    await expect(page.getByRole('heading', { name: 'Unauthorized', level: 2 })).toBeVisible();
    await expect(page.getByText('You do not have permission to access this page')).toBeVisible();
    await snap(page, 'unauthorized');
  });
});

test('recovery, reset-link and flow-error pages', async ({ page }) => {
  await page.goto('/recovery');
  await expect(page.getByRole('heading', { name: 'Recover account' })).toBeVisible();
  await page.goto('/reset-password?token=not-a-token');
  await expect(page.getByRole('heading', { name: 'Reset password' })).toBeVisible();
  await expect(page.getByText('This link is not valid.')).toBeVisible();
  await snap(page, 'reset-password');
  await page.goto('/flow-error?id=security_csrf_violation');
  await expect(page.getByText('A security violation was detected, please fill out the form again.')).toBeVisible();
  await page.goto('/flow-error?id=unknown');
  await expect(page).toHaveURL(/\/login\?return_to=%2F$/);
});
