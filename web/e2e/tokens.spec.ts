import { expect, test } from '@playwright/test';
import { MCP_CLIENTS } from '../src/pages/tokens/mcpSetup';
import { ADMIN_STATE } from './env';
import { attempt, choose, expectToast, snap } from './helpers';

test.use({ storageState: ADMIN_STATE, permissions: ['clipboard-read', 'clipboard-write'] });

test('create, copy and revoke a token', async ({ page }) => {
  const name = attempt('e2e-token');
  await page.goto('/settings/tokens');
  await page.getByRole('button', { name: 'Create Token' }).click();
  const modal = page.getByRole('dialog', { name: 'Create new token' });
  await expect(modal.getByRole('button', { name: 'Create Token' })).toBeDisabled();
  await modal.getByRole('textbox', { name: 'Name', exact: true }).fill(name);
  await expect(modal.getByRole('button', { name: 'Expiry' })).toHaveText('90 days');
  await modal.getByRole('button', { name: 'Custom' }).click();
  await expect(modal.getByRole('button', { name: 'catalog access' })).toHaveText('Read');
  await choose(modal, page, 'playbooks access', 'Run');
  await choose(modal, page, 'mcp access', 'None');
  await snap(page, 'token-create');
  await modal.getByRole('button', { name: 'Create Token' }).click();

  const created = page.getByRole('dialog', { name: 'Token Created Successfully' });
  await expect(created.getByText(/shown only once/)).toBeVisible();
  const token = created.getByLabel('Token', { exact: true });
  await expect(token).toHaveAttribute('type', 'password');
  await created.getByRole('button', { name: 'Show token' }).click();
  await expect(token).toHaveAttribute('type', 'text');
  const value = await token.inputValue();
  expect(value.length).toBeGreaterThan(20);
  await created.getByRole('button', { name: 'Copy token' }).click();
  await expectToast(page, 'Token copied to clipboard');
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(value);
  await snap(page, 'token-created');
  await created.locator('footer').getByRole('button', { name: 'Close' }).click();

  const row = page.getByRole('row', { name: new RegExp(name) });
  await expect(row).toContainText('playbooks:read,playbook:run');
  await snap(page, 'tokens');
  await row.getByRole('button', { name: `Revoke ${name}` }).click();
  await page.getByRole('dialog', { name: 'Revoke token' }).getByRole('button', { name: 'Revoke' }).click();
  await expect(page.getByRole('row', { name: new RegExp(name) })).toHaveCount(0);
});

test('Setup MCP: a token for MCP clients, and how each client connects with it', async ({ page }) => {
  await page.goto('/settings/tokens');
  await page.getByRole('button', { name: 'User menu' }).click();
  await page.getByRole('menuitem', { name: 'Setup MCP' }).click();
  const modal = page.getByRole('dialog', { name: 'Create new token' });
  await expect(modal.getByRole('button', { name: 'Custom' })).toHaveAttribute('aria-pressed', 'true');
  await expect(modal.getByRole('button', { name: 'mcp access' })).toHaveText('Admin');
  await expect(modal.getByRole('button', { name: 'catalog access' })).toHaveText('Read');
  await modal.getByRole('textbox', { name: 'Name', exact: true }).fill('e2e-mcp');
  await modal.getByRole('button', { name: 'Create Token' }).click();

  const created = page.getByRole('dialog', { name: 'Token Created Successfully' });
  await created.getByRole('button', { name: 'Show token' }).click();
  const token = await created.getByLabel('Token', { exact: true }).inputValue();
  expect(token.length).toBeGreaterThan(20);
  const clients = created.getByRole('tablist', { name: 'MCP clients' }).getByRole('tab');
  await expect(clients).toHaveText([...MCP_CLIENTS]);
  await expect(created.getByRole('region', { name: 'Claude Desktop configuration' })).toContainText('mcp-remote');

  await clients.filter({ hasText: 'Direct HTTP' }).click();
  const curl = created.getByRole('tabpanel', { name: 'Direct HTTP' }).getByRole('region', { name: 'Direct HTTP command' });
  const endpoint = `${new URL(page.url()).origin}/mcp`;
  await expect(curl).toContainText(endpoint);
  await expect(curl).toContainText(`Authorization: Bearer ${token}`);
  await expect(curl).toContainText('"method":"initialize"');
  await snap(page, 'token-created-mcp');
  await created.getByRole('button', { name: 'Copy Direct HTTP command' }).click();
  await expectToast(page, 'Copied to clipboard');
  expect(await page.evaluate(() => navigator.clipboard.readText())).toContain(`curl -i -X POST '${endpoint}'`);
  await created.locator('footer').getByRole('button', { name: 'Close' }).click();

  const row = page.getByRole('row', { name: /e2e-mcp/ });
  await expect(row).toContainText('mcp:*');
  await row.getByRole('button', { name: 'Revoke e2e-mcp' }).click();
  await page.getByRole('dialog', { name: 'Revoke token' }).getByRole('button', { name: 'Revoke' }).click();
  await expect(page.getByRole('row', { name: /e2e-mcp/ })).toHaveCount(0);
});
