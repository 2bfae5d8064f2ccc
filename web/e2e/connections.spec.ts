import { expect, test, type Page } from '@playwright/test';
import { ADMIN_STATE, VIEWER_STATE, e2eDatabaseUrl } from './env';
import { attempt, choose, expectToast, snap } from './helpers';

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
    const name = attempt('e2e-postgres');
    await startAdding(page, 'PostgreSQL', name);
    await page.getByRole('button', { name: 'Save' }).click();
    await expect(page.getByText('This field is required')).toHaveCount(3);

    const url = new URL(e2eDatabaseUrl());
    await page.getByRole('textbox', { name: 'URL' }).fill(url.toString());
    await page.getByRole('textbox', { name: 'Username' }).fill(decodeURIComponent(url.username) || 'postgres');
    await page.getByLabel(/^Password\W*$/).fill('unused-by-trust-auth');
    await snap(page, 'connection-postgres');
    await save(page, name);

    await page.getByRole('button', { name: 'Test' }).click();
    await expect(page.getByText('Connection test succeeded')).toBeVisible();

    await expect(page.getByText('Value set')).toBeVisible();
    await page.getByRole('button', { name: 'Replace Password' }).click();
    await page.getByLabel(/^Password\W*$/).fill('rotated');
    await page.getByRole('button', { name: 'Save' }).click();
    await expectToast(page, `${name} updated successfully`);
    await expect(page.getByText('Value set')).toBeVisible();

    await page.goto('/settings/connections');
    const row = page.getByRole('row', { name: new RegExp(name) });
    await expect(row).toContainText('PostgreSQL');
    await expect(row).toContainText('UI');
    await snap(page, 'connections');
    await row.getByRole('link', { name: name }).click();
    await page.getByRole('button', { name: 'Delete' }).click();
    await page.getByRole('dialog', { name: 'Delete connection' }).getByRole('button', { name: 'Delete' }).click();
    await expectToast(page, `${name} deleted successfully`);
    await expect(page.getByRole('row', { name: new RegExp(name) })).toHaveCount(0);
  });

  test("Test shows the server's error for a closed port", async ({ page }) => {
    const name = attempt('e2e-closed');
    await startAdding(page, 'PostgreSQL', name);
    await page.getByRole('textbox', { name: 'URL' }).fill('postgres://127.0.0.1:1/postgres');
    await page.getByRole('textbox', { name: 'Username' }).fill('postgres');
    await page.getByLabel(/^Password\W*$/).fill('x');
    await save(page, name);
    await page.getByRole('button', { name: 'Test' }).click();
    await expect(page.getByText('Connection test failed')).toBeVisible();
    await expect(page.getByText(/Connection refused/)).toBeVisible();
    await snap(page, 'connection-test-failed');
  });

  test('an HTTP connection with a secret key reference and insecure TLS', async ({ page }) => {
    const name = attempt('e2e-http');
    await startAdding(page, 'HTTP', name);
    await page.getByRole('textbox', { name: 'URL' }).fill('https://example.test/api');
    await page.getByRole('textbox', { name: 'Username' }).fill('svc');
    await page.getByRole('group', { name: 'Password value source' }).getByRole('button', { name: 'Secret key' }).click();
    await page.getByRole('textbox', { name: 'Password Secret name' }).fill('http-creds');
    await page.getByRole('textbox', { name: 'Password Secret key' }).fill('password');
    await page.getByRole('checkbox', { name: /Insecure TLS/ }).check();
    await save(page, name);
    await expect(page.getByRole('textbox', { name: 'Password Secret name' })).toHaveValue('http-creds');
    await expect(page.getByRole('checkbox', { name: /Insecure TLS/ })).toBeChecked();
  });

  test('a notification connection (Slack: its URL is composed from the fields)', async ({ page }) => {
    const name = attempt('e2e-slack');
    await startAdding(page, 'Slack', name);
    await page.getByRole('textbox', { name: 'Channel' }).fill('alerts');
    await page.getByLabel(/^Bot Token\W*$/).fill('xoxb-e2e');
    await save(page, name);
    await expect(page.getByText('Value set').first()).toBeVisible();
    await expect(page.getByRole('textbox', { name: 'Channel' })).toHaveValue('alerts');
  });

  test('a type with a select and a number default (Email)', async ({ page }) => {
    const name = attempt('e2e-email');
    await startAdding(page, 'Email', name);
    await expect(page.getByRole('textbox', { name: 'Port' })).toHaveValue('587');
    await expect(page.getByRole('button', { name: 'Encryption Method' })).toHaveText('Auto');
    await page.getByRole('textbox', { name: 'Host' }).fill('smtp.example.test');
    await page.getByRole('textbox', { name: 'From Address' }).fill('alerts@example.test');
    await page.getByRole('textbox', { name: 'From Name' }).fill('Alerts');
    await choose(page, page, 'Encryption Method', 'ImplicitTLS');
    await save(page, name);
    await expect(page.getByRole('button', { name: 'Encryption Method' })).toHaveText('ImplicitTLS');
    await expect(page.getByRole('textbox', { name: 'Port' })).toHaveValue('587');
  });
});

/** A test server's setting, exported by hack/lib/test-servers.sh. */
function server(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is unset: run the browser tests through hack/test.sh or hack/with-servers.sh`);
  return value;
}

type Entry = [label: string, kind: 'text' | 'secret' | 'check', value: string];

/** One connection per form family, each tried against its running server. */
const LIVE: { title: string; fields: () => Entry[] }[] = [
  {
    title: 'MySQL',
    fields: () => {
      const url = new URL(server('QD_TEST_MARIADB_URL'));
      const [username, password] = [decodeURIComponent(url.username), decodeURIComponent(url.password)];
      url.username = '';
      url.password = '';
      return [
        ['URL', 'text', url.toString()],
        ['Username', 'text', username],
        ['Password', 'secret', password],
      ];
    },
  },
  {
    title: 'Redis',
    fields: () => [
      ['URL', 'text', server('QD_TEST_REDIS_URL')],
      ['Database', 'text', '0'],
      ['Username', 'text', server('QD_TEST_REDIS_USERNAME')],
      ['Password', 'secret', server('QD_TEST_REDIS_PASSWORD')],
    ],
  },
  {
    title: 'MongoDB',
    fields: () => [
      ['URL', 'text', server('QD_TEST_MONGO_URL')],
      ['Username', 'text', server('QD_TEST_MONGO_USERNAME')],
      ['Password', 'secret', server('QD_TEST_MONGO_PASSWORD')],
    ],
  },
  {
    title: 'Prometheus',
    fields: () => [
      ['URL', 'text', server('QD_TEST_PROMETHEUS_URL')],
      ['Username', 'text', server('QD_TEST_PROMETHEUS_USERNAME')],
      ['Password', 'secret', server('QD_TEST_PROMETHEUS_PASSWORD')],
    ],
  },
  {
    title: 'LDAP',
    fields: () => [
      ['URL', 'text', server('QD_TEST_SLAPD_URL')],
      ['Username', 'text', server('QD_TEST_SLAPD_BIND_DN')],
      ['Password', 'secret', server('QD_TEST_SLAPD_PASSWORD')],
    ],
  },
  {
    title: 'SFTP',
    fields: () => [
      ['Host', 'text', server('QD_TEST_SSHD_HOST')],
      ['Port', 'text', server('QD_TEST_SSHD_PORT')],
      ['Username', 'text', server('QD_TEST_SSHD_USER')],
      ['Password', 'secret', server('QD_TEST_SSHD_PASSWORD')],
    ],
  },
  {
    title: 'SMB',
    fields: () => [
      ['Server', 'text', server('QD_TEST_SAMBA_HOST')],
      ['Port', 'text', server('QD_TEST_SAMBA_PORT')],
      ['Share', 'text', server('QD_TEST_SAMBA_SHARE')],
      ['Username', 'text', server('QD_TEST_SAMBA_USER')],
      ['Password', 'secret', server('QD_TEST_SAMBA_PASSWORD')],
    ],
  },
  {
    title: 'S3',
    fields: () => [
      ['Bucket', 'text', server('QD_TEST_S3_BUCKET')],
      ['Endpoint', 'text', server('QD_TEST_S3_ENDPOINT')],
      ['Region', 'text', 'us-east-1'],
      ['Access Key', 'secret', 'AKIAQUARTERDECKTEST'],
      ['Secret Key', 'secret', 'quarterdeck-secret-key'],
    ],
  },
  {
    title: 'Git',
    fields: () => [['URL', 'text', server('QD_TEST_GIT_URL')]],
  },
  {
    title: 'Email',
    fields: () => [
      ['Host', 'text', server('QD_TEST_SMTP_HOST')],
      ['Port', 'text', server('QD_TEST_SMTP_PORT')],
      ['From Address', 'text', 'e2e@quarterdeck.test'],
      ['From Name', 'text', 'Quarterdeck'],
      ['Username', 'text', server('QD_TEST_SMTP_USER')],
      ['Password', 'secret', server('QD_TEST_SMTP_PASSWORD')],
      ['Insecure TLS', 'check', ''],
    ],
  },
];

test.describe('Test against a running server', () => {
  test.use({ storageState: ADMIN_STATE });

  for (const { title, fields } of LIVE) {
    test(`${title}: saved from the form, Test succeeds`, async ({ page }) => {
      const name = attempt(`e2e-live-${title.toLowerCase()}`);
      await startAdding(page, title, name);
      for (const [label, kind, value] of fields()) {
        if (kind === 'text') await page.getByRole('textbox', { name: label, exact: false }).first().fill(value);
        else if (kind === 'secret') await page.getByLabel(new RegExp(`^${label}\\W*$`)).fill(value);
        else await page.getByRole('checkbox', { name: new RegExp(label) }).check();
      }
      await save(page, name);
      await page.getByRole('button', { name: 'Test' }).click();
      await expect(page.getByText('Connection test succeeded')).toBeVisible({ timeout: 20_000 });
    });
  }
});

test.describe('as a viewer', () => {
  test.use({ storageState: VIEWER_STATE });

  test('the connections screens are Unauthorized', async ({ page }) => {
    await page.goto('/settings/connections');
    await expect(page.getByRole('heading', { name: 'Unauthorized', level: 2 })).toBeVisible();
  });
});
