import { expect, test, type Page } from '@playwright/test';
import { ADMIN_STATE, VIEWER_STATE, e2eDatabaseUrl } from './env';
import { choose, expectToast, snap } from './helpers';

/** Add Connection, choosing the type from the searchable list. */
async function startAdding(page: Page, title: string, name: string) {
  await page.goto('/settings/connections');
  await page.getByRole('button', { name: 'Add Connection' }).click();
  await page.getByRole('textbox', { name: 'Search connection types' }).fill(title);
  await page.getByRole('list', { name: 'Connection types' }).getByRole('button', { name: title, exact: true }).click();
  await page.getByRole('textbox', { name: 'Name', exact: true }).fill(name);
  await expect(page.getByRole('textbox', { name: 'Namespace' })).toHaveValue('default');
}

async function save(page: Page, name: string) {
  await page.getByRole('button', { name: 'Save' }).click();
  await expectToast(page, `${name} created successfully`);
  await expect(page.getByText(`connection://default/${name}`)).toBeVisible();
}

test.describe('as an admin', () => {
  test.use({ storageState: ADMIN_STATE });

  test('a database connection: required fields, Test against PostgreSQL, replace the password, delete', async ({ page }) => {
    await startAdding(page, 'PostgreSQL', 'e2e-postgres');
    await page.getByRole('button', { name: 'Save' }).click();
    await expect(page.getByText('This field is required')).toHaveCount(3);

    const url = new URL(e2eDatabaseUrl());
    await page.getByRole('textbox', { name: 'URL' }).fill(url.toString());
    await page.getByRole('textbox', { name: 'Username' }).fill(decodeURIComponent(url.username) || 'postgres');
    await page.getByLabel(/^Password\W*$/).fill('unused-by-trust-auth');
    await snap(page, 'connection-postgres');
    await save(page, 'e2e-postgres');

    await page.getByRole('button', { name: 'Test' }).click();
    await expect(page.getByText('Connection test succeeded')).toBeVisible();

    await expect(page.getByText('Value set')).toBeVisible();
    await page.getByRole('button', { name: 'Replace Password' }).click();
    await page.getByLabel(/^Password\W*$/).fill('rotated');
    await page.getByRole('button', { name: 'Save' }).click();
    await expectToast(page, 'e2e-postgres updated successfully');
    await expect(page.getByText('Value set')).toBeVisible();

    await page.goto('/settings/connections');
    const row = page.getByRole('row', { name: /e2e-postgres/ });
    await expect(row).toContainText('PostgreSQL');
    await expect(row).toContainText('UI');
    await snap(page, 'connections');
    await row.getByRole('link', { name: 'e2e-postgres' }).click();
    await page.getByRole('button', { name: 'Delete' }).click();
    await page.getByRole('dialog', { name: 'Delete connection' }).getByRole('button', { name: 'Delete' }).click();
    await expectToast(page, 'e2e-postgres deleted successfully');
    await expect(page.getByRole('row', { name: /e2e-postgres/ })).toHaveCount(0);
  });

  test("Test shows the server's error for a closed port", async ({ page }) => {
    await startAdding(page, 'PostgreSQL', 'e2e-closed');
    await page.getByRole('textbox', { name: 'URL' }).fill('postgres://127.0.0.1:1/postgres');
    await page.getByRole('textbox', { name: 'Username' }).fill('postgres');
    await page.getByLabel(/^Password\W*$/).fill('x');
    await save(page, 'e2e-closed');
    await page.getByRole('button', { name: 'Test' }).click();
    await expect(page.getByText('Connection test failed')).toBeVisible();
    await expect(page.getByText(/Connection refused/)).toBeVisible();
    await snap(page, 'connection-test-failed');
  });

  test('an HTTP connection with a secret key reference and insecure TLS', async ({ page }) => {
    await startAdding(page, 'HTTP', 'e2e-http');
    await page.getByRole('textbox', { name: 'URL' }).fill('https://example.test/api');
    await page.getByRole('textbox', { name: 'Username' }).fill('svc');
    await page.getByRole('group', { name: 'Password value source' }).getByRole('button', { name: 'Secret key' }).click();
    await page.getByRole('textbox', { name: 'Password Secret name' }).fill('http-creds');
    await page.getByRole('textbox', { name: 'Password Secret key' }).fill('password');
    await page.getByRole('checkbox', { name: /Insecure TLS/ }).check();
    await save(page, 'e2e-http');
    await expect(page.getByRole('textbox', { name: 'Password Secret name' })).toHaveValue('http-creds');
    await expect(page.getByRole('checkbox', { name: /Insecure TLS/ })).toBeChecked();
  });

  test('a notification connection (Slack: its URL is composed from the fields)', async ({ page }) => {
    await startAdding(page, 'Slack', 'e2e-slack');
    await page.getByRole('textbox', { name: 'Channel' }).fill('alerts');
    await page.getByLabel(/^Bot Token\W*$/).fill('xoxb-e2e');
    await save(page, 'e2e-slack');
    await expect(page.getByText('Value set').first()).toBeVisible();
    await expect(page.getByRole('textbox', { name: 'Channel' })).toHaveValue('alerts');
  });

  test('a type with a select and a number default (Email)', async ({ page }) => {
    await startAdding(page, 'Email', 'e2e-email');
    await expect(page.getByRole('textbox', { name: 'Port' })).toHaveValue('587');
    await expect(page.getByRole('button', { name: 'Encryption Method' })).toHaveText('Auto');
    await page.getByRole('textbox', { name: 'Host' }).fill('smtp.example.test');
    await page.getByRole('textbox', { name: 'From Address' }).fill('alerts@example.test');
    await page.getByRole('textbox', { name: 'From Name' }).fill('Alerts');
    await choose(page, page, 'Encryption Method', 'ImplicitTLS');
    await save(page, 'e2e-email');
    await expect(page.getByRole('button', { name: 'Encryption Method' })).toHaveText('ImplicitTLS');
    await expect(page.getByRole('textbox', { name: 'Port' })).toHaveValue('587');
  });
});

test.describe('as a viewer', () => {
  test.use({ storageState: VIEWER_STATE });

  test('the connections screens are Unauthorized', async ({ page }) => {
    await page.goto('/settings/connections');
    await expect(page.getByRole('heading', { name: 'Unauthorized', level: 2 })).toBeVisible();
  });
});
