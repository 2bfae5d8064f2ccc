import { expect, test, type Page } from '@playwright/test';
import { ADMIN_STATE, VIEWER_STATE } from './env';
import { choose, dbRows, expectToast, option, snap } from './helpers';
import { seed } from './seed';
import { readFileSync } from 'node:fs';

const PREFIX = 'e2e-notif-';
const WEBHOOK = `${PREFIX}webhook`;
const CRD = `${PREFIX}crd`;
const SILENCE = `${PREFIX}silence`;
const FAILURE = 'POST http://127.0.0.1:9/hook: connection refused';

let ids: { config: string; other: string; webhook: string; crd: string; silence: string };

test.beforeAll(async () => {
  ids = await seed('notification-world', { prefix: PREFIX });
});

test.afterAll(async () => {
  await seed('remove', { what: 'notifications', prefix: PREFIX });
});

const history = (page: Page) => page.getByRole('grid', { name: 'Notifications' });
const rules = (page: Page) => page.getByRole('grid', { name: 'Notification rules' });
const silences = (page: Page) => page.getByRole('grid', { name: 'Notification silences' });
/** The rows of a send table whose status label reads `status`. */
const withStatus = (page: Page, table: ReturnType<Page['getByRole']>, status: string) =>
  table.getByRole('row').filter({ has: page.getByText(status, { exact: true }) });
const ruleRow = (page: Page, name: string) => rules(page).getByRole('row', { name: new RegExp(`^${name}\\b`) });
const silenceRow = (page: Page, name: string) => silences(page).getByRole('row', { name: new RegExp(`^${name}\\b`) });

test.describe('as an admin', () => {
  test.use({ storageState: ADMIN_STATE });

  test('the bell counts recent failures and opens the send history, filtered from the URL', async ({ page }) => {
    await page.goto('/settings/tokens');
    const bell = page.getByRole('link', { name: /^Notifications, \d+ failed in the last day$/ });
    await expect(bell).toBeVisible();
    await bell.click();
    await expect(page).toHaveURL(/\/notifications$/);
    await expect(
      history(page)
        .getByRole('row', { name: new RegExp(FAILURE.replace(/[.]/g, '\\.')) })
        .first(),
    ).toBeVisible();

    await choose(page, page, 'Status', 'Failed');
    await expect(page).toHaveURL(/status=failed/);
    const failed = history(page).getByRole('row').filter({ hasText: WEBHOOK });
    await expect(failed).toHaveCount(1);
    await expect(failed).toContainText('Failed');
    await expect(failed).toContainText(FAILURE);
    await expect(failed).toContainText(`${PREFIX}config`);
    // The recipient's name: a URL's scheme, never the URL (it may carry keys).
    await expect(failed).toContainText('generic+http');
    await expect(failed).not.toContainText('generic+http://');

    // The search finds sends by their resource's name.
    await page.getByRole('textbox', { name: 'Search notifications' }).fill(`${PREFIX}other`);
    await expect(page).toHaveURL(new RegExp(`search=${PREFIX}other`));
    await choose(page, page, 'Status', 'All');
    await expect(page).not.toHaveURL(/status=/);
    await expect(history(page).getByRole('row').filter({ hasText: WEBHOOK })).toHaveCount(1);
    await expect(history(page).getByRole('row').filter({ hasText: WEBHOOK })).toContainText(`${PREFIX}other`);

    // The filters come back from the URL.
    await page.goto('/notifications?status=silenced&resourceType=config');
    await expect(page.getByRole('button', { name: 'Status', exact: true })).toHaveText('Silenced');
    await expect(page.getByRole('button', { name: 'Resource type', exact: true })).toHaveText('Catalog item');
    await expect(history(page).getByRole('row').filter({ hasText: WEBHOOK })).toHaveCount(1);
    await snap(page, 'notifications-history');
    await page.goto('/notifications?resourceType=check');
    await expect(page.getByRole('button', { name: 'Resource type', exact: true })).toHaveText('Health check');
    await expect(history(page).getByRole('progressbar', { name: 'Loading' })).toHaveCount(0);
    await expect(history(page).getByRole('row').filter({ hasText: WEBHOOK })).toHaveCount(0);
  });

  test('the history filters and pages through the summary call', async ({ page }) => {
    const calls: Record<string, unknown>[] = [];
    page.on('request', (request) => {
      if (request.method() === 'POST' && new URL(request.url()).pathname === '/api/notification/summary') {
        calls.push(request.postDataJSON() as Record<string, unknown>);
      }
    });
    // The rule's seven sends, two a page, newest first.
    await page.goto(`/notifications?search=${WEBHOOK}&pageSize=2`);
    const pager = page.getByRole('navigation', { name: 'Notifications pagination' });
    /** The pager's caption, the toggle of its page sizes beside its navigation. */
    const caption = (text: string) => page.getByRole('button', { name: text, exact: true });
    const rows = history(page).getByRole('row').filter({ hasText: WEBHOOK });
    await expect(caption('1 - 2 of 7')).toBeVisible();
    await expect(rows).toHaveCount(2);
    await expect(rows.nth(0)).toContainText('Failed');
    await expect(rows.nth(1)).toContainText('Pending');
    await pager.getByRole('button', { name: 'Go to next page' }).click();
    await expect(page).toHaveURL(/page=2/);
    await expect(caption('3 - 4 of 7')).toBeVisible();
    await expect(rows.nth(0)).toContainText('Sent');
    await expect(rows.nth(1)).toContainText(`Silenced by ${SILENCE}`);
    expect(calls).toContainEqual(expect.objectContaining({ pageIndex: 1, pageSize: 2, search: WEBHOOK }));

    // A filter goes back to the first page.
    await choose(page, page, 'Status', 'Repeat suppressed');
    await expect(page).toHaveURL(/status=repeat-suppressed/);
    await expect(page).not.toHaveURL(/page=2/);
    await expect(caption('1 - 1 of 1')).toBeVisible();
    await expect(rows).toHaveCount(1);
    await expect(rows).toContainText('Repeat suppressed');
    expect(calls).toContainEqual(expect.objectContaining({ pageIndex: 0, status: 'repeat-suppressed', search: WEBHOOK }));
  });

  test("a resource's page lists its sends only, each status once", async ({ page }) => {
    await page.goto(`/notifications/resource/${ids.config}`);
    const table = page.getByRole('grid', { name: 'Notifications of the resource' });
    for (const status of ['Failed', 'Pending', 'Sent', 'Silenced', 'Repeat suppressed', 'Inhibited']) {
      await expect(withStatus(page, table, status)).toHaveCount(1);
    }
    await page.goto(`/notifications/resource/${ids.other}`);
    await expect(table.getByRole('row').filter({ hasText: WEBHOOK })).toHaveCount(1);
    await expect(withStatus(page, table, 'Sent')).toHaveCount(1);
  });

  test('a rule is added, refused when incomplete, updated and deleted', async ({ page }) => {
    // Many steps, each waiting for what the user sees; a busy machine needs more than the default minute.
    test.slow();
    const name = `${PREFIX}added`;
    await page.goto('/notifications');
    await page.getByRole('tab', { name: 'Rules' }).click();
    await expect(page).toHaveURL(/\/notifications\/rules$/);
    await expect(ruleRow(page, WEBHOOK)).toContainText('config.unhealthy');
    // Sent, Failed and Pending of the seeded sends.
    const cells = ruleRow(page, WEBHOOK).getByRole('gridcell');
    await expect(cells.nth(3)).toHaveText('2');
    await expect(cells.nth(4)).toHaveText('1');
    await expect(cells.nth(5)).toHaveText('1');
    await expect(ruleRow(page, CRD)).toContainText(`connection://default/${PREFIX}slack`);

    await page.getByRole('button', { name: 'Add rule' }).click();
    const dialog = page.getByRole('dialog', { name: 'Add notification rule' });
    await dialog.getByRole('button', { name: 'Save', exact: true }).click();
    await expect(dialog.getByText('Name is required')).toBeVisible();
    await expect(dialog.getByText('At least one event is required')).toBeVisible();
    await expect(dialog.getByText('A recipient is required')).toBeVisible();

    await dialog.getByRole('textbox', { name: 'Name', exact: true }).fill(name);
    await dialog.getByRole('button', { name: 'Events', exact: true }).click();
    await option(page, 'check.failed').click();
    await option(page, 'component.unhealthy').click();
    await dialog.getByRole('button', { name: 'Events', exact: true }).click();
    await dialog.getByRole('textbox', { name: 'Filter' }).fill(`check.name == '${PREFIX}never'`);
    await dialog.getByRole('textbox', { name: 'Title' }).fill('{{ .check.name }} failed');
    await choose(dialog, page, 'Recipient type', 'URL');
    await dialog.getByRole('textbox', { name: 'Recipient', exact: true }).fill('generic+http://127.0.0.1:9/added');
    await dialog.getByRole('textbox', { name: 'Wait for' }).fill('soon');
    await dialog.getByRole('button', { name: 'Save', exact: true }).click();
    await expect(dialog.getByText('Not a duration: soon (e.g. 30m, 4h)')).toBeVisible();
    await dialog.getByRole('textbox', { name: 'Wait for' }).fill('5m');
    await dialog.getByRole('textbox', { name: 'Group by' }).fill('type');
    await snap(page, 'notifications-rule-form');
    await dialog.getByRole('button', { name: 'Save', exact: true }).click();
    await expectToast(page, 'Notification created successfully');
    await expect(ruleRow(page, name)).toContainText('check.failed, component.unhealthy');

    await ruleRow(page, name).click();
    const edit = page.getByRole('dialog', { name: `Notification rule: ${name}` });
    await expect(edit.getByRole('textbox', { name: 'Wait for' })).toHaveValue('5m');
    await edit.getByRole('textbox', { name: 'Repeat interval' }).fill('4h');
    await edit.getByRole('button', { name: 'Update', exact: true }).click();
    await expectToast(page, 'Notification updated successfully');
    await expect(edit).toHaveCount(0);
    const [saved] = await dbRows<Record<string, unknown>>(
      page.request,
      `notifications?name=eq.${name}&deleted_at=is.null&select=events,filter,custom_services,repeat_interval,group_by,wait_for,source`,
    );
    expect(saved).toEqual({
      events: ['check.failed', 'component.unhealthy'],
      filter: `check.name == '${PREFIX}never'`,
      custom_services: [{ url: 'generic+http://127.0.0.1:9/added' }],
      repeat_interval: '4h',
      group_by: ['type'],
      wait_for: 300e9,
      source: 'UI',
    });

    await ruleRow(page, name).click();
    await page
      .getByRole('dialog', { name: `Notification rule: ${name}` })
      .getByRole('button', { name: 'Delete', exact: true })
      .click();
    await page.getByRole('dialog', { name: 'Delete notification rule' }).getByRole('button', { name: 'Delete', exact: true }).click();
    await expectToast(page, `${name} deleted successfully`);
    await expect(ruleRow(page, name)).toHaveCount(0);
  });

  test('a rule from a Kubernetes CRD is read-only', async ({ page }) => {
    await page.goto('/notifications/rules');
    await ruleRow(page, CRD).click();
    await expect(page).toHaveURL(new RegExp(`/notifications/rules\\?id=${ids.crd}$`));
    const crd = page.getByRole('dialog', { name: `Notification rule: ${CRD}` });
    await expect(
      crd.getByText('Read-Only Mode: This resource is managed by Kubernetes CRD and cannot be edited from the UI.'),
    ).toBeVisible();
    await expect(crd.getByRole('textbox', { name: 'Title' })).toBeDisabled();
    await expect(crd.getByRole('button', { name: 'Update' })).toHaveCount(0);
    await expect(crd.getByRole('button', { name: 'Delete' })).toHaveCount(0);
    await crd.getByRole('button', { name: 'Close', exact: true }).last().click();
    await expect(crd).toHaveCount(0);
    await expect(page).toHaveURL(/\/notifications\/rules$/);
  });

  test('the rule named by the URL opens, as the permissions list links it', async ({ page }) => {
    await page.goto(`/notifications/rules?id=${ids.webhook}`);
    const dialog = page.getByRole('dialog', { name: `Notification rule: ${WEBHOOK}` });
    await expect(dialog.getByRole('textbox', { name: 'Repeat interval' })).toHaveValue('4h');
    await dialog.getByRole('button', { name: 'Cancel', exact: true }).click();
    await expect(dialog).toHaveCount(0);
    await expect(page).toHaveURL(/\/notifications\/rules$/);
  });

  test('a silence is added from a send, indefinitely, and deleted (deleted_at set)', async ({ page }) => {
    const name = `${PREFIX}added-silence`;
    await page.goto('/notifications/silences');
    await expect(silenceRow(page, SILENCE)).toContainText(`${PREFIX}config (and children)`);
    await expect(silenceRow(page, SILENCE)).toContainText('Active');

    await page.goto(`/notifications/resource/${ids.other}`);
    await page.getByRole('grid', { name: 'Notifications of the resource' }).getByRole('link', { name: 'Silence' }).click();
    await expect(page).toHaveURL(/\/notifications\/silences\/add\?resourceType=config/);
    await expect(page.getByRole('button', { name: 'Resource type', exact: true })).toHaveText('Catalog item');
    await expect(page.getByRole('button', { name: 'Resource', exact: true })).toHaveText(`${PREFIX}other`);
    // The preview: the past sends the engine's matcher holds for this resource, the one send about it.
    const preview = page.getByRole('grid', { name: 'Notifications the silence would have matched' });
    await expect(page.getByText(/^1 notification since/)).toBeVisible();
    await expect(preview.getByRole('row').filter({ hasText: WEBHOOK })).toHaveCount(1);
    await expect(preview.getByRole('row').filter({ hasText: WEBHOOK })).toContainText(`${PREFIX}other`);
    await page.getByRole('textbox', { name: 'Name', exact: true }).fill(name);
    await choose(page, page, 'Duration', 'Indefinitely');
    await snap(page, 'notifications-silence-form');
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await expectToast(page, `${name} created successfully`);
    await expect(page).toHaveURL(/\/notifications\/silences$/);
    await expect(silenceRow(page, name)).toContainText('Indefinitely');
    const [saved] = await dbRows<Record<string, unknown>>(
      page.request,
      `notification_silences?name=eq.${name}&select=config_id,until,recursive`,
    );
    expect(saved).toEqual({ config_id: ids.other, until: null, recursive: false });

    await silenceRow(page, name).getByRole('button', { name: 'Delete' }).click();
    await page.getByRole('dialog', { name: 'Delete silence' }).getByRole('button', { name: 'Delete', exact: true }).click();
    await expectToast(page, `${name} deleted successfully`);
    await expect(silenceRow(page, name)).toHaveCount(0);
    const [deleted] = await dbRows<{ deleted_at: string | null }>(page.request, `notification_silences?name=eq.${name}&select=deleted_at`);
    expect(deleted?.deleted_at).not.toBeNull();
  });

  test('a silence by selectors previews exactly the sends it matches and keeps them', async ({ page }) => {
    const name = `${PREFIX}selectors-silence`;
    await page.goto('/notifications/silences/add');
    await page.getByRole('textbox', { name: 'Name', exact: true }).fill(name);
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await expect(page.getByText('A resource, a filter or selectors are required')).toBeVisible();

    const selectors = page.getByRole('textbox', { name: 'Selectors' });
    await expect(selectors).toHaveAccessibleDescription(/^A YAML or JSON list of resource selectors/);
    // The server reads each selector; its message shows on the field.
    await selectors.fill('- types: Kubernetes::Deployment');
    await expect(selectors).toHaveAccessibleDescription(
      /selectors\[0\]: invalid type: string "Kubernetes::Deployment", expected a sequence/,
    );

    const preview = page.getByRole('grid', { name: 'Notifications the silence would have matched' });
    const sends = preview.getByRole('row').filter({ hasText: WEBHOOK });
    await selectors.fill(`- name: ${PREFIX}other\n  types: [Kubernetes::Deployment]`);
    await expect(page.getByText(/^1 notification since/)).toBeVisible();
    await expect(sends).toHaveCount(1);
    await expect(sends).toContainText(`${PREFIX}other`);
    // One of several selectors is enough: the six sends about the first item too, and nothing else.
    await selectors.fill(`- name: ${PREFIX}other\n- name: ${PREFIX}config`);
    await expect(page.getByText(/^7 notifications since/)).toBeVisible();
    await expect(sends).toHaveCount(7);
    await expect(preview.getByRole('row').filter({ hasNotText: WEBHOOK })).toHaveCount(1); // the header
    await snap(page, 'notifications-silence-selectors');

    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await expectToast(page, `${name} created successfully`);
    await expect(silenceRow(page, name)).toBeVisible();
    const [saved] = await dbRows<Record<string, unknown>>(
      page.request,
      `notification_silences?name=eq.${name}&select=selectors,config_id,check_id,filter`,
    );
    expect(saved).toEqual({
      selectors: [{ name: `${PREFIX}other` }, { name: `${PREFIX}config` }],
      config_id: null,
      check_id: null,
      filter: null,
    });
  });

  test('a rule with inhibitions is saved and reopened', async ({ page }) => {
    test.slow();
    const name = `${PREFIX}inhibiting`;
    await page.goto('/notifications/rules');
    await page.getByRole('button', { name: 'Add rule' }).click();
    const dialog = page.getByRole('dialog', { name: 'Add notification rule' });
    await dialog.getByRole('textbox', { name: 'Name', exact: true }).fill(name);
    await dialog.getByRole('button', { name: 'Events', exact: true }).click();
    await option(page, 'config.unhealthy').click();
    await dialog.getByRole('button', { name: 'Events', exact: true }).click();
    await dialog.getByRole('textbox', { name: 'Filter' }).fill(`config.name == '${PREFIX}never'`);
    await choose(dialog, page, 'Recipient type', 'URL');
    await dialog.getByRole('textbox', { name: 'Recipient', exact: true }).fill('generic+http://127.0.0.1:9/inhibiting');

    await dialog.getByRole('button', { name: 'Add inhibition' }).click();
    await dialog.getByRole('button', { name: 'Save', exact: true }).click();
    await expect(dialog.getByText('The resource type that inhibits is required')).toBeVisible();
    await expect(dialog.getByText('At least one resource type is required')).toBeVisible();
    await dialog.getByRole('textbox', { name: 'Inhibition 1 from' }).fill('Kubernetes::Node');
    await dialog.getByRole('textbox', { name: 'Inhibition 1 to' }).fill('Kubernetes::Pod');
    await dialog.getByRole('button', { name: 'Add inhibition' }).click();
    await dialog.getByRole('textbox', { name: 'Inhibition 2 from' }).fill('Kubernetes::Deployment');
    await dialog.getByRole('textbox', { name: 'Inhibition 2 to' }).fill('Kubernetes::ReplicaSet, Kubernetes::Pod');
    await choose(dialog, page, 'Inhibition 2 direction', 'Incoming');
    await dialog.getByRole('spinbutton', { name: 'Inhibition 2 depth' }).fill('2');
    await dialog.getByRole('checkbox', { name: 'Inhibition 2 soft' }).check();
    await dialog.getByRole('button', { name: 'Remove inhibition 1' }).click();
    await expect(dialog.getByRole('textbox', { name: 'Inhibition 1 from' })).toHaveValue('Kubernetes::Deployment');
    await expect(dialog.getByRole('textbox', { name: 'Inhibition 2 from' })).toHaveCount(0);
    await snap(page, 'notifications-rule-inhibitions');
    await dialog.getByRole('button', { name: 'Save', exact: true }).click();
    await expectToast(page, 'Notification created successfully');
    const [saved] = await dbRows<Record<string, unknown>>(page.request, `notifications?name=eq.${name}&select=inhibitions`);
    expect(saved).toEqual({
      inhibitions: [
        { from: 'Kubernetes::Deployment', to: ['Kubernetes::ReplicaSet', 'Kubernetes::Pod'], direction: 'incoming', depth: 2, soft: true },
      ],
    });

    await ruleRow(page, name).click();
    const edit = page.getByRole('dialog', { name: `Notification rule: ${name}` });
    await expect(edit.getByRole('textbox', { name: 'Inhibition 1 from' })).toHaveValue('Kubernetes::Deployment');
    await expect(edit.getByRole('textbox', { name: 'Inhibition 1 to' })).toHaveValue('Kubernetes::ReplicaSet, Kubernetes::Pod');
    await expect(edit.getByRole('button', { name: 'Inhibition 1 direction', exact: true })).toHaveText('Incoming');
    await expect(edit.getByRole('spinbutton', { name: 'Inhibition 1 depth' })).toHaveValue('2');
    await expect(edit.getByRole('checkbox', { name: 'Inhibition 1 soft' })).toBeChecked();
  });

  test("the sample world's silence is accepted by the data API and listed", async ({ page }) => {
    const sample = JSON.parse(
      readFileSync(new URL('../../config/console-samples/silence-disk-space.json', import.meta.url), 'utf8'),
    ) as Record<string, unknown>;
    const name = `${PREFIX}sample`;
    const res = await page.request.post('/api/db/notification_silences', {
      data: { ...sample, name },
      headers: { Origin: new URL(test.info().project.use.baseURL ?? '').origin },
    });
    expect(res.status(), await res.text()).toBe(201);
    await page.goto('/notifications/silences');
    await expect(silenceRow(page, name)).toContainText("check.name == 'root-filesystem-free'");
    await expect(silenceRow(page, name)).toContainText('Indefinitely');
  });
});

test.describe('as a viewer', () => {
  test.use({ storageState: VIEWER_STATE });

  test('a viewer reads rules, sends and silences but changes nothing', async ({ page }) => {
    await page.goto('/notifications/rules');
    await expect(ruleRow(page, WEBHOOK)).toBeVisible();
    await expect(page.getByRole('button', { name: 'Add rule' })).toHaveCount(0);
    await ruleRow(page, WEBHOOK).click();
    const dialog = page.getByRole('dialog', { name: `Notification rule: ${WEBHOOK}` });
    await expect(dialog.getByText('You may read notification rules but not change them.')).toBeVisible();
    await expect(dialog.getByRole('button', { name: 'Update' })).toHaveCount(0);

    await page.goto(`/notifications/resource/${ids.config}`);
    await expect(withStatus(page, page.getByRole('grid', { name: 'Notifications of the resource' }), 'Failed')).toHaveCount(1);
    await expect(page.getByRole('link', { name: 'Silence' })).toHaveCount(0);

    await page.goto('/notifications/silences');
    await expect(silenceRow(page, SILENCE)).toBeVisible();
    await expect(page.getByRole('button', { name: 'Add silence' })).toHaveCount(0);
    await expect(silenceRow(page, SILENCE).getByRole('button', { name: 'Delete' })).toHaveCount(0);
    await page.goto('/notifications/silences/add');
    await expect(page.getByRole('heading', { name: 'Unauthorized', level: 2 })).toBeVisible();
  });
});
