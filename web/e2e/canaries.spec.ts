import { expect, test, type Locator, type Page } from '@playwright/test';
import { seed } from './seed';
import { ADMIN_STATE, VIEWER_STATE } from './env';
import { allowConsoleScripts, choose, dbRows, expectToast, option, snap } from './helpers';

const LIST = '/settings/canaries';
const HTTP = 'e2e-canary-http';
const EXEC = 'e2e-canary-exec';
const DNS = 'e2e-canary-dns';
const CRD = 'e2e-canary-crd';

function table(page: Page): Locator {
  return page.getByRole('grid', { name: 'Health checks' }).or(page.getByRole('table', { name: 'Health checks' }));
}

function row(page: Page, name: string): Locator {
  return table(page).getByRole('row', { name: new RegExp(`^${name}\\b`) });
}

const textbox = (page: Page, name: string) => page.getByRole('textbox', { name, exact: true });

interface Stored {
  spec: unknown;
  labels: unknown;
  namespace: string;
  source: string;
}

/** The live canary row, as the admin reads it through the data API. */
async function specOf(page: Page, name: string): Promise<Stored | undefined> {
  const [canary] = await dbRows<Stored>(page.request, `canaries?name=eq.${name}&deleted_at=is.null&select=spec,labels,namespace,source`);
  return canary;
}

async function add(page: Page, type: string): Promise<void> {
  await page.goto(LIST);
  await page.getByRole('button', { name: 'Add Health Check' }).click();
  await expect(page).toHaveURL(`${LIST}/new`);
  await page.getByRole('list', { name: 'Check types' }).getByRole('button', { name: type, exact: true }).click();
  await expect(page.getByRole('heading', { name: type, exact: true })).toBeVisible();
}

test.beforeAll(async () => {
  await seed('remove', { what: 'canaries', prefix: 'e2e-canary-' });
  await seed('canary', {
    name: CRD,
    labels: { team: 'platform' },
    spec: { schedule: '@every 5m', http: [{ name: 'crd-home', url: 'https://crd.example' }] },
    source: 'KubernetesCRD',
  });
});

test.describe('as an admin', () => {
  test.use({ storageState: ADMIN_STATE });

  test('create an HTTP check with the form, then edit it', async ({ page }) => {
    await page.goto(LIST);
    await expect(page.getByRole('heading', { name: 'Health Checks' })).toBeVisible();
    await page.getByRole('button', { name: 'Add Health Check' }).click();
    await expect(page).toHaveURL(`${LIST}/new`);
    const tiles = page.getByRole('list', { name: 'Check types' }).getByRole('listitem');
    await expect(tiles).toHaveCount(31);
    await expect(tiles.first()).toHaveText('Alert Manager');
    await expect(tiles.last()).toHaveText('TCP');
    await snap(page, 'canary-types');

    // A tile opens its editor with a documentation link; Back returns to the grid.
    await page.getByRole('button', { name: 'HTTP', exact: true }).click();
    await expect(page.getByRole('link', { name: 'HTTP documentation' })).toHaveAttribute('href', 'https://canarychecker.io/reference/http');
    await expect(textbox(page, 'Namespace')).toHaveValue('default');
    await expect(page.getByRole('tab', { name: 'Form' })).toHaveAttribute('aria-selected', 'true');
    await page.getByRole('button', { name: 'Back' }).click();
    await expect(page.getByRole('list', { name: 'Check types' })).toBeVisible();
    await page.getByRole('button', { name: 'HTTP', exact: true }).click();

    // Submitting shows every problem at once.
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await expect(page.getByText('This field is required')).toHaveCount(2);
    await textbox(page, 'Name').fill(HTTP);
    await textbox(page, 'URL').fill('https://example.com/health');
    await expect(page.getByText('This field is required')).toHaveCount(0);
    await textbox(page, 'Threshold (ms)').fill('fast');
    await expect(page.getByText('This field must be a number')).toBeVisible();
    await textbox(page, 'Threshold (ms)').fill('1500');
    await expect(page.getByText('This field must be a number')).toHaveCount(0);

    await textbox(page, 'Labels').fill('{"team": "web"}');
    await choose(page, page, 'Icon', 'http');
    await choose(page, page, 'Check icon', 'dns');
    await page.getByRole('combobox', { name: 'Schedule' }).click();
    await option(page, '@every 5m').click();
    await expect(textbox(page, 'Body')).toHaveCount(0);
    await choose(page, page, 'Method', 'POST');
    await textbox(page, 'Body').fill('{"ping": true}');
    await page.getByRole('button', { name: 'Add header' }).click();
    await textbox(page, 'Header 1 name').fill('Accept');
    await textbox(page, 'Header 1 value').fill('application/json');
    await choose(page, page, 'Authentication', 'NTLM');
    await textbox(page, 'Username').fill('svc');
    await page.getByLabel('Password', { exact: true }).fill('secret');
    await page.getByRole('button', { name: 'Response codes', exact: true }).click();
    await option(page, '200').click();
    await option(page, '201').click();
    await page.keyboard.press('Escape');
    await choose(page, page, 'Test language', 'Expr');
    await textbox(page, 'Test expression').fill('code == 200');
    await snap(page, 'canary-http-form');
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await expectToast(page, `${HTTP} created successfully`);
    await expect(page).toHaveURL(new RegExp(`${LIST}$`));
    await expect(row(page, HTTP)).toContainText('HTTP');
    await expect(row(page, HTTP)).toContainText('@every 5m');
    await expect(row(page, HTTP)).toContainText('team:web');
    await snap(page, 'canaries');
    expect(await specOf(page, HTTP)).toEqual({
      namespace: 'default',
      source: 'UI',
      labels: { team: 'web' },
      spec: {
        schedule: '@every 5m',
        icon: 'http',
        http: [
          {
            name: HTTP,
            icon: 'dns',
            url: 'https://example.com/health',
            method: 'POST',
            body: '{"ping": true}',
            headers: [{ name: 'Accept', value: 'application/json' }],
            ntlm: true,
            username: { value: 'svc' },
            password: { value: 'secret' },
            responseCodes: [200, 201],
            thresholdMillis: 1500,
            test: { expr: 'code == 200' },
          },
        ],
      },
    });

    // Editing: the type is preselected, name and namespace are fixed.
    await row(page, HTTP).getByRole('link', { name: HTTP }).click();
    await expect(page.getByRole('heading', { name: `Health Check: ${HTTP}` })).toBeVisible();
    await expect(page.getByRole('heading', { name: 'HTTP', exact: true })).toBeVisible();
    await expect(textbox(page, 'Name')).toBeDisabled();
    await expect(textbox(page, 'Namespace')).toBeDisabled();
    await expect(page.getByRole('button', { name: 'Icon', exact: true })).toHaveText('http');
    await expect(page.getByRole('button', { name: 'Check icon', exact: true })).toHaveText('dns');
    await expect(page.getByRole('tab', { name: 'Job History' })).toBeVisible();
    await expect(page.getByRole('button', { name: 'Authentication', exact: true })).toHaveText('NTLM');
    await choose(page, page, 'Method', 'GET');
    await expect(textbox(page, 'Body')).toHaveCount(0);

    // Code and back: what is typed there shows in the form; unparsable text is ignored.
    await page.getByRole('tab', { name: 'Code' }).click();
    const code = textbox(page, 'Spec');
    await expect(code).toContainText('url: https://example.com/health');
    await expect(code).not.toContainText('body:');
    await code.fill(`http:\n  - name: ${HTTP}\n    url: https://example.com/v2\n    thresholdMillis: 900\n`);
    await code.fill('http: [');
    await snap(page, 'canary-http-code');
    await page.getByRole('tab', { name: 'Form' }).click();
    await expect(textbox(page, 'URL')).toHaveValue('https://example.com/v2');
    await expect(textbox(page, 'Threshold (ms)')).toHaveValue('900');
    await expect(page.getByRole('button', { name: 'Authentication', exact: true })).toHaveText('None');
    await page.getByRole('button', { name: 'Update', exact: true }).click();
    await expectToast(page, `${HTTP} updated successfully`);
    await expect(page).toHaveURL(new RegExp(`${LIST}$`));
    expect((await specOf(page, HTTP))?.spec).toEqual({
      schedule: '@every 5m',
      icon: 'http',
      http: [{ name: HTTP, url: 'https://example.com/v2', thresholdMillis: 900 }],
    });
  });

  test('create an Exec check and a YAML-only DNS check, then delete one', async ({ page }) => {
    await add(page, 'Exec');
    await expect(page.getByRole('link', { name: 'Exec documentation' })).toBeVisible();
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await expect(page.getByText('This field is required')).toHaveCount(2);
    await textbox(page, 'Name').fill(EXEC);
    await textbox(page, 'Script').fill('echo ok');
    await textbox(page, 'Check name').fill('say-ok');

    // Scripts from the console are off until an admin allows them on Feature Flags.
    await allowConsoleScripts(page, false);
    try {
      await page.getByRole('button', { name: 'Save', exact: true }).click();
      await expectToast(page, 'spec.exec[0]: exec checks from the console are disabled by the execution policy');
      await expect(page).toHaveURL(`${LIST}/new`);
      expect(await specOf(page, EXEC)).toBeUndefined();

      const flags = await page.context().newPage();
      await flags.goto('/settings/feature-flags');
      const allow = flags.getByRole('switch', { name: 'Allow scripts from the console' });
      await expect(allow).toBeEnabled();
      await expect(allow).not.toBeChecked();
      // The switch's toggle covers its input, so the click goes to the label, as a person's would.
      await flags.getByText('Allow scripts from the console', { exact: true }).click();
      await expect(allow).toBeChecked();
      await flags.close();

      await page.getByRole('button', { name: 'Save', exact: true }).click();
      await expectToast(page, `${EXEC} created successfully`);
    } finally {
      await allowConsoleScripts(page, false);
    }
    expect((await specOf(page, EXEC))?.spec).toEqual({ exec: [{ name: 'say-ok', script: 'echo ok' }] });

    await add(page, 'DNS');
    await expect(page.getByRole('tab', { name: 'Form' })).toHaveCount(0);
    const specs = textbox(page, 'Specs');
    await expect(specs).toHaveValue('dns:\n  - {}\n');
    await textbox(page, 'Name').fill(DNS);
    // The spec is checked against the Canary CRD's schema.
    await specs.fill('dns:\n  - name: lookup\n    qeury: example.com\n');
    await expect(page.getByText('dns[0].qeury: unknown field')).toBeVisible();
    await expect(page.getByRole('button', { name: 'Save', exact: true })).toBeDisabled();
    await specs.fill('dns:\n  - name: lookup\n    query: example.com\n    querytype: A\n');
    await expect(page.getByText('dns[0].qeury: unknown field')).toHaveCount(0);
    await page.getByRole('combobox', { name: 'Schedule' }).fill('@every 2h');
    await snap(page, 'canary-dns');
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await expectToast(page, `${DNS} created successfully`);
    await expect(row(page, DNS)).toContainText('DNS');
    expect((await specOf(page, DNS))?.spec).toEqual({
      schedule: '@every 2h',
      dns: [{ name: 'lookup', query: 'example.com', querytype: 'A' }],
    });

    await row(page, DNS).click();
    await expect(page.getByRole('heading', { name: 'DNS', exact: true })).toBeVisible();
    await expect(page.getByRole('combobox', { name: 'Schedule' })).toHaveValue('@every 2h');
    await page.getByRole('button', { name: 'Delete' }).click();
    const confirm = page.getByRole('dialog', { name: 'Delete resource' });
    await expect(confirm.getByText('Are you sure you want to delete this resource?')).toBeVisible();
    await snap(page, 'canary-delete');
    await confirm.getByRole('button', { name: 'Delete' }).click();
    await expectToast(page, `${DNS} deleted successfully`);
    await expect(page).toHaveURL(new RegExp(`${LIST}$`));
    await expect(row(page, EXEC)).toBeVisible();
    await expect(row(page, DNS)).toHaveCount(0);
    const [deleted] = await dbRows<{ deleted_at: string | null }>(page.request, `canaries?name=eq.${DNS}&select=deleted_at`);
    expect(deleted?.deleted_at).toBeTruthy();
  });

  test('Redis starts at database 0; one folder connection at a time; a new script language starts empty', async ({ page }) => {
    await add(page, 'Redis');
    await expect(textbox(page, 'Database')).toHaveValue('0');

    await page.getByRole('button', { name: 'Back' }).click();
    await page.getByRole('button', { name: 'Folder', exact: true }).click();
    await choose(page, page, 'Connection type', 'SMB');
    await expect(textbox(page, 'Share name')).toBeVisible();
    await choose(page, page, 'Connection type', 'AWS');
    await expect(textbox(page, 'Share name')).toHaveCount(0);
    await textbox(page, 'Region').fill('eu-west-1');
    await choose(page, page, 'Test language', 'Javascript');
    await textbox(page, 'Test expression').fill('results.files.length > 0');
    await choose(page, page, 'Test language', 'JSONPath');
    await expect(textbox(page, 'Test expression')).toHaveValue('');
    await snap(page, 'canary-folder');
    await page.getByRole('tab', { name: 'Code' }).click();
    await expect(textbox(page, 'Spec')).toHaveValue(
      'folder:\n  - awsConnection:\n      region: eu-west-1\n    test:\n      jsonPath: ""\n',
    );
  });

  test('the server message of a refused save shows in a toast', async ({ page }) => {
    await add(page, 'TCP');
    await textbox(page, 'Name').fill(CRD);
    await textbox(page, 'Endpoint').fill('db:5432');
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await expectToast(page, 'agent_id, namespace, name: already in use');
    await expect(page).toHaveURL(`${LIST}/new`);
  });

  test('a KubernetesCRD canary is read-only', async ({ page }) => {
    await page.goto(LIST);
    await expect(row(page, CRD)).toContainText('Kubernetes CRD');
    await row(page, CRD).click();
    await expect(
      page.getByText('Read-Only Mode: This resource is managed by Kubernetes CRD and cannot be edited from the UI.'),
    ).toBeVisible();
    await expect(page.getByRole('heading', { name: 'HTTP', exact: true })).toBeVisible();
    await expect(textbox(page, 'URL')).toHaveValue('https://crd.example');
    for (const name of ['Name', 'Labels', 'URL', 'Check name']) await expect(textbox(page, name)).toBeDisabled();
    for (const name of ['Icon', 'Check icon']) await expect(page.getByRole('button', { name, exact: true })).toBeDisabled();
    await expect(page.getByRole('combobox', { name: 'Schedule' })).toBeDisabled();
    for (const name of ['Update', 'Save', 'Delete']) await expect(page.getByRole('button', { name, exact: true })).toHaveCount(0);
    await snap(page, 'canary-crd');

    // The server refuses such writes too.
    const [crd] = await dbRows<{ id: string }>(page.request, `canaries?name=eq.${CRD}&select=id`);
    const res = await page.request.patch(`/api/db/canaries?id=eq.${crd?.id}`, {
      data: { labels: {} },
      headers: { Origin: new URL(page.url()).origin },
    });
    expect(res.status()).toBe(403);
    expect((await specOf(page, CRD))?.labels).toEqual({ team: 'platform' });
  });
});

test.describe('as a viewer', () => {
  test.use({ storageState: VIEWER_STATE });

  test('sees the list but cannot add', async ({ page }) => {
    await page.goto(LIST);
    await expect(row(page, CRD)).toBeVisible();
    await expect(page.getByRole('button', { name: 'Add Health Check' })).toHaveCount(0);
    await page.goto(`${LIST}/new`);
    await expect(page.getByText('You do not have permission to access this page')).toBeVisible();
  });
});
