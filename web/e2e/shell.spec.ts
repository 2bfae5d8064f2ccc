import { expect, test } from '@playwright/test';
import { ADMIN_STATE } from './env';
import { snap } from './helpers';

test.use({ storageState: ADMIN_STATE });

test('the sidebar collapses, remembers it, and collapses by itself on narrow windows', async ({ page }) => {
  await page.goto('/settings/tokens');
  const nav = page.getByRole('navigation', { name: 'Main' });
  await expect(nav.getByRole('link', { name: 'Tokens' })).toHaveText('Tokens');

  await page.getByRole('button', { name: 'Collapse sidebar' }).click();
  await expect(nav.getByRole('link', { name: 'Tokens' })).toHaveText('');
  await page.reload();
  await expect(page.getByRole('button', { name: 'Expand sidebar' })).toBeVisible();
  await expect(nav.getByRole('link', { name: 'Tokens' })).toHaveText('');
  await expect(page.getByRole('heading', { name: 'Tokens' })).toBeVisible();
  await snap(page, 'sidebar-collapsed');
  await page.getByRole('button', { name: 'Expand sidebar' }).click();
  await expect(nav.getByRole('link', { name: 'Tokens' })).toHaveText('Tokens');

  await page.setViewportSize({ width: 900, height: 800 });
  await expect(page.getByRole('button', { name: 'Expand sidebar' })).toBeVisible();
  await page.getByRole('button', { name: 'Expand sidebar' }).click();
  await expect(nav.getByRole('link', { name: 'Tokens' })).toHaveText('Tokens');
  await page.getByRole('heading', { name: 'Tokens' }).click();
  await expect(page.getByRole('button', { name: 'Expand sidebar' })).toBeVisible();

  // Collapsing for a narrow window does not change the saved preference.
  await page.setViewportSize({ width: 1440, height: 900 });
  await expect(nav.getByRole('link', { name: 'Tokens' })).toHaveText('Tokens');
});

test('the top bar refreshes the page data and links to notifications', async ({ page }) => {
  await page.goto('/settings/tokens');
  const refresh = page.getByRole('button', { name: 'Refresh' });
  const request = page.waitForRequest((r) => r.url().endsWith('/api/auth/tokens'));
  await refresh.click();
  await request;
  await expect(page.getByRole('link', { name: 'Notifications' })).toHaveAttribute('href', '/notifications');
  await page.getByRole('button', { name: 'Help' }).click();
  await expect(page.getByRole('menuitem', { name: /Docs/ })).toBeVisible();
});
