import { expect as baseExpect, test, type Page } from '@playwright/test';
import { readFileSync } from 'node:fs';
import { inflateRawSync } from 'node:zlib';
import { ADMIN_STATE, GUEST, USER_PASSWORD } from './env';
import { snap } from './helpers';
import { seed } from './seed';

test.use({ storageState: ADMIN_STATE });

/** Generous waits: the machine is small and other specs seed at the same time. */
const expect = baseExpect.configure({ timeout: 20_000 });

/** A world whose root (warning) has api (healthy, owned by the team), db
 * (unhealthy: a failing check, two config items with three open insights),
 * big (6 pods) and hidden. */
const P = 'e2e-topo-detail-';
const DENY = 'e2e-topo-detail-deny';
type World = Awaited<ReturnType<typeof seed<'topology-world'>>>;
let world: World;

test.beforeAll(async () => {
  world = await seed('topology-world', { prefix: P, children: 6, bulk: 0 });
});

test.afterAll(async () => {
  await seed('remove', { what: 'permissions', prefix: DENY });
});

const cards = (page: Page) => page.getByRole('list', { name: 'Components' });
const card = (page: Page, name: string) => cards(page).getByRole('article', { name, exact: true });
const crumbs = (page: Page) => page.getByRole('navigation', { name: 'Breadcrumbs' });
const panel = (page: Page) => page.getByRole('complementary', { name: 'Details' });
const section = (page: Page, name: string) => panel(page).getByRole('region', { name, exact: true });
const title = (page: Page, name: string) => page.getByRole('heading', { level: 2, name, exact: true });

/** The files of a zip archive by name, read through its central directory
 * (stored or deflated entries). */
function unzip(zip: Buffer): Map<string, string> {
  const end = zip.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  if (end < 0) throw new Error('not a zip archive');
  const files = new Map<string, string>();
  let at = zip.readUInt32LE(end + 16);
  for (let i = zip.readUInt16LE(end + 10); i > 0; i--) {
    const method = zip.readUInt16LE(at + 10);
    const size = zip.readUInt32LE(at + 20);
    const nameLength = zip.readUInt16LE(at + 28);
    const local = zip.readUInt32LE(at + 42);
    const name = zip.toString('utf8', at + 46, at + 46 + nameLength);
    const start = local + 30 + zip.readUInt16LE(local + 26) + zip.readUInt16LE(local + 28);
    const data = zip.subarray(start, start + size);
    files.set(name, (method === 8 ? inflateRawSync(data) : data).toString('utf8'));
    at += 46 + nameLength + zip.readUInt16LE(at + 30) + zip.readUInt16LE(at + 32);
  }
  return files;
}

test('drill down from a card and back up the breadcrumbs', async ({ page }) => {
  await page.goto('/topology');
  await cards(page)
    .getByRole('article', { name: `${P}topology`, exact: true })
    .getByRole('link', { name: `${P}topology` })
    .click();
  await expect(page).toHaveURL(new RegExp(`/topology/${world.root.id}$`));
  await expect(title(page, `${P}topology`)).toBeVisible();
  await expect(page.getByRole('group', { name: 'Status' })).toContainText('Warning');
  await expect(card(page, `${P}db`)).toHaveClass(/qd-topology-card-red/);

  await card(page, `${P}db`)
    .getByRole('link', { name: `${P}db` })
    .click();
  await expect(page).toHaveURL(new RegExp(`/topology/${world.db.id}$`));
  await expect(title(page, `${P}db`)).toBeVisible();
  await expect(crumbs(page).getByRole('link')).toHaveText(['Topology', `${P}topology`]);
  await expect(page.getByRole('group', { name: 'Type' })).toContainText('Database');
  await expect(page.getByRole('heading', { name: `Topology: ${P}db` })).toBeVisible();

  await crumbs(page)
    .getByRole('link', { name: `${P}topology` })
    .click();
  await expect(page).toHaveURL(new RegExp(`/topology/${world.root.id}$`));
  await card(page, `${P}big`)
    .getByRole('link', { name: `${P}big` })
    .click();
  await expect(card(page, `${P}big-0`)).toBeVisible();
  await expect(cards(page).getByRole('article')).toHaveCount(6);
  await crumbs(page).getByRole('link', { name: 'Topology', exact: true }).click();
  await expect(page).toHaveURL(/\/topology$/);
});

test('the children filters live in the URL', async ({ page }) => {
  await page.goto(`/topology/${world.big.id}?health=unhealthy`);
  await expect(card(page, `${P}big-3`)).toBeVisible();
  await expect(cards(page).getByRole('article')).toHaveCount(1);
  await page.goto(`/topology/${world.root.id}?showHiddenComponents=no`);
  await expect(card(page, `${P}api`)).toBeVisible();
  await expect(card(page, `${P}hidden`)).toHaveCount(0);
  // The switch's toggle covers its input, so the click goes to the label, as a person's would.
  await page.getByText('Show hidden components', { exact: true }).click();
  await expect(card(page, `${P}hidden`)).toBeVisible();
  await expect(page).not.toHaveURL(/showHiddenComponents/);
});

test('the side panel: properties, linked checks (opening the check detail), configs to the catalog, insights, teams', async ({ page }) => {
  await page.goto(`/topology/${world.db.id}`);
  await expect(title(page, `${P}db`)).toBeVisible();

  const properties = section(page, 'Properties');
  await expect(properties.getByRole('term')).toHaveText(['Version', 'Memory', 'CPU']);
  await expect(properties.getByRole('meter', { name: 'Memory' }).locator('.qd-topology-gauge-orange')).toBeVisible();

  const insights = section(page, 'Insights');
  await expect(insights.getByRole('listitem')).toHaveCount(3);
  await expect(insights).toContainText('critical');
  await expect(
    insights
      .getByRole('link', { name: `${P}config-0` })
      .or(insights.getByRole('link', { name: `${P}config-1` }))
      .first(),
  ).toBeVisible();

  const checks = section(page, 'Checks');
  await expect(checks.getByRole('listitem')).toHaveText([`${P}check-failing`]);
  await expect(checks.getByRole('img', { name: 'Unhealthy' })).toBeVisible();
  await snap(page, 'topology-detail');
  await checks.getByRole('link', { name: `${P}check-failing` }).click();
  const dialog = page.getByRole('dialog');
  await expect(dialog.getByRole('heading', { name: new RegExp(`${P}check-failing`) })).toBeVisible();
  await expect(page).toHaveURL(new RegExp(`/topology/${world.db.id}\\?checkId=`));
  await page.keyboard.press('Escape');
  await expect(dialog).toHaveCount(0);
  await expect(page).not.toHaveURL(/checkId=/);

  const configs = section(page, 'Configs');
  await expect(configs.getByRole('link')).toHaveText([`${P}config-0`, `${P}config-1`]);
  await configs.getByRole('link', { name: `${P}config-0` }).click();
  await expect(page).toHaveURL(new RegExp(`/catalog/${world.configs[0]}`));
  await expect(title(page, `${P}config-0`)).toBeVisible();

  await page.goto(`/topology/${world.api.id}`);
  await expect(section(page, 'Teams').getByRole('listitem')).toHaveText([`${P}team`]);
  await expect(section(page, 'Insights')).toContainText('No data available');
});

test('Download snapshot saves a zip of the component, its checks, configs and changes', async ({ page }) => {
  await page.goto(`/topology/${world.db.id}`);
  await expect(title(page, `${P}db`)).toBeVisible();
  const download = page.waitForEvent('download');
  await page.getByRole('link', { name: 'Download snapshot' }).click();
  const files = unzip(readFileSync(await (await download).path()));
  expect([...files.keys()]).toEqual(expect.arrayContaining(['components.json', 'checks.json', 'configs.json', 'changes.json']));
  expect(files.get('components.json')).toContain(world.db.id);
  expect(files.get('checks.json')).toContain(`${P}check-failing`);
  expect(files.get('configs.json')).toContain(`${P}config-0`);
});

test('the public view: the component without the shell, links staying in it', async ({ page }) => {
  await page.goto(`/view/topology/${world.root.id}`);
  await expect(title(page, `${P}topology`)).toBeVisible();
  await expect(page.getByRole('navigation', { name: 'Main' })).toHaveCount(0);
  await expect(page.getByRole('button', { name: 'User menu' })).toHaveCount(0);
  await expect(crumbs(page).getByRole('link')).toHaveCount(0);
  await snap(page, 'topology-view');
  await card(page, `${P}db`)
    .getByRole('link', { name: `${P}db` })
    .click();
  await expect(page).toHaveURL(new RegExp(`/view/topology/${world.db.id}$`));
  await expect(title(page, `${P}db`)).toBeVisible();
  await crumbs(page)
    .getByRole('link', { name: `${P}topology` })
    .click();
  await expect(page).toHaveURL(new RegExp(`/view/topology/${world.root.id}$`));
});

test('an unknown component shows the not-found state', async ({ page }) => {
  await page.goto('/topology/00000000-0000-0000-0000-00000000dead');
  await expect(page.getByRole('heading', { name: 'Component not found' })).toBeVisible();
  await page.goto('/view/topology/not-an-id');
  await expect(page.getByRole('heading', { name: 'Component not found' })).toBeVisible();
});

test('the public view: signed out goes to sign-in; a guest without read on topologies sees Unauthorized', async ({ browser }) => {
  await seed('permission', { name: DENY, subject: { email: GUEST.email }, object: 'topology', action: 'read', deny: true });
  const context = await browser.newContext({ storageState: undefined });
  try {
    const page = await context.newPage();
    await page.goto(`/view/topology/${world.root.id}`);
    await expect(page).toHaveURL(/\/login\?return_to=/);
    await page.getByRole('textbox', { name: 'Email' }).fill(GUEST.email);
    await page.getByLabel('Password').fill(USER_PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect(page).toHaveURL(new RegExp(`/view/topology/${world.root.id}$`));
    await expect(page.getByRole('heading', { name: 'Unauthorized' })).toBeVisible();
    await expect(page.getByText('You do not have permission to access this page')).toBeVisible();
    await expect(title(page, `${P}topology`)).toHaveCount(0);
  } finally {
    await context.close();
  }
});
