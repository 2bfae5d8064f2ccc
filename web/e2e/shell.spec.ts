import { expect, test } from '@playwright/test';
import { readFileSync } from 'node:fs';
import { ADMIN_STATE, CRD_TEAM } from './env';
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
  // The sidebar has a Notifications entry too; the bell is the top bar's (its name may count failures).
  const bell = page.getByRole('banner').getByRole('link', { name: /^Notifications/ });
  await expect(bell).toHaveAttribute('href', '/notifications');
  await page.getByRole('button', { name: 'Help' }).click();
  await expect(page.getByRole('menuitem', { name: /Docs/ })).toBeVisible();
});

test('the kubeconfig dialog: download, try it with kubectl, read the docs', async ({ page }) => {
  await page.goto('/settings/tokens');
  await page.getByRole('button', { name: 'User menu' }).click();
  await page.getByRole('menuitem', { name: 'Download kubeconfig' }).click();
  const dialog = page.getByRole('dialog', { name: 'Download kubeconfig' });
  const steps = dialog.getByRole('list', { name: 'Steps' }).getByRole('listitem');
  await expect(steps).toHaveCount(3);
  // Issuing one creates an access token, so it is a POST, never a link.
  const download = steps.nth(0).getByRole('button', { name: 'Download kubeconfig' });
  const [file, issued] = await Promise.all([
    page.waitForEvent('download'),
    page.waitForRequest((r) => r.url().endsWith('/api/kubeconfig')),
    download.click(),
  ]);
  expect(issued.method()).toBe('POST');
  expect(file.suggestedFilename()).toBe('quarterdeck-kubeconfig.yaml');
  expect(readFileSync((await file.path()) ?? '', 'utf8')).toContain('kind: Config');
  await expect(steps.nth(1).getByRole('textbox', { name: 'kubectl command' })).toHaveValue(
    'KUBECONFIG=quarterdeck-kubeconfig.yaml kubectl get canaries --all-namespaces',
  );
  await expect(steps.nth(1).getByRole('button', { name: 'Copy command' })).toBeVisible();
  await expect(steps.nth(2).getByRole('link', { name: 'Kubeconfig documentation' })).toHaveAttribute(
    'href',
    'https://quarterdeck.dev/docs/kubeconfig',
  );
  await snap(page, 'kubeconfig');
  await dialog.getByRole('contentinfo').getByRole('button', { name: 'Close' }).click();
  await expect(dialog).toHaveCount(0);
});

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

test('the preferences popover changes how dates read, and remembers it', async ({ page }) => {
  await page.goto('/settings/teams');
  const created = page
    .getByRole('row', { name: new RegExp(CRD_TEAM) })
    .locator('time')
    .first();
  await expect(created).toHaveText(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}\.\d{3}$/);
  const at = new Date((await created.getAttribute('datetime')) ?? '');
  const iso = at.toISOString();

  await page.getByRole('button', { name: 'Preferences' }).click();
  const prefs = page.getByRole('dialog', { name: 'Preferences' });
  const zone = prefs.getByRole('combobox', { name: 'Display timezone' });
  await expect(zone).toHaveValue('Browser');
  await expect(zone.locator('option').first()).toHaveText('Browser');
  await zone.selectOption('UTC');
  await expect(created).toHaveText(`${iso.slice(0, 10)} ${iso.slice(11, 23)}`);

  const format = prefs.getByRole('combobox', { name: 'Date/time format' });
  await expect(format).toHaveValue('timestamp');
  await format.selectOption('full');
  await expect(created).toHaveText(`${MONTHS[at.getUTCMonth()]} ${at.getUTCDate()} ${iso.slice(11, 23)}`);
  await format.selectOption('medium');
  const weekday = at.toLocaleDateString('en-US', { weekday: 'short', timeZone: 'UTC' });
  await expect(created).toHaveText(`${weekday} ${iso.slice(11, 19)}`);
  await format.selectOption('short');
  await expect(created).toHaveText(/^\d+(s|m|h|d|mo|y)$/);
  await expect(created).toHaveAttribute('title', `${iso.slice(0, 10)} ${iso.slice(11, 23)}`);

  const pageSize = prefs.getByRole('combobox', { name: 'Table page size' });
  await expect(pageSize.locator('option')).toHaveText(['50', '100', '200']);
  await pageSize.selectOption('100');
  await expect(prefs.getByRole('switch', { name: 'Show deleted items' })).not.toBeChecked();
  await snap(page, 'preferences');

  await page.reload();
  await expect(created).toHaveText(/^\d+(s|m|h|d|mo|y)$/);
  await page.getByRole('button', { name: 'Preferences' }).click();
  await expect(prefs.getByRole('combobox', { name: 'Date/time format' })).toHaveValue('short');
  await expect(prefs.getByRole('combobox', { name: 'Display timezone' })).toHaveValue('UTC');
  await expect(prefs.getByRole('combobox', { name: 'Table page size' })).toHaveValue('100');
});
