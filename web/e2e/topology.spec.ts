import { expect as baseExpect, test, type Page } from '@playwright/test';
import { ADMIN_STATE, GUEST, USER_PASSWORD } from './env';
import { option, snap } from './helpers';
import { seed } from './seed';

test.use({ storageState: ADMIN_STATE });

/** Generous waits: the machine is small and other specs seed at the same time. */
const expect = baseExpect.configure({ timeout: 20_000 });

/** Two worlds, each a root (Application, warning: its children api healthy, db
 * unhealthy, big warning, hidden healthy) owned by its own team. */
const A = 'e2e-topo-list-a-';
const B = 'e2e-topo-list-b-';
const SCOPE = 'e2e-topo-list-scope';
let rootA = '';

test.beforeAll(async () => {
  const a = await seed('topology-world', { prefix: A, children: 4, bulk: 0 });
  await seed('topology-world', { prefix: B, children: 4, bulk: 0 });
  rootA = a.root.id;
});

test.afterAll(async () => {
  await seed('remove', { what: 'access_scopes', prefix: SCOPE });
});

const cards = (page: Page) => page.getByRole('list', { name: 'Components' });
const card = (page: Page, name: string) => cards(page).getByRole('article', { name, exact: true });

async function open(page: Page, query = '') {
  await page.goto(`/topology${query}`);
  await expect(card(page, `${A}topology`).or(page.getByText('No data available'))).toBeVisible();
}

test('/ lands on the dashboard; the sidebar entry Dashboard leads there', async ({ page }) => {
  await page.goto('/');
  await expect(page).toHaveURL(/\/topology$/);
  await expect(card(page, `${A}topology`)).toBeVisible();
  await page.goto('/health');
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Dashboard', exact: true }).click();
  await expect(page).toHaveURL(/\/topology$/);
  await expect(page.getByRole('heading', { name: 'Topology' })).toBeVisible();
});

test('a root card: health colour, child counts by health, check and insight badges', async ({ page }) => {
  await open(page);
  const root = card(page, `${A}topology`);
  await expect(root).toHaveClass(/qd-topology-card-orange/);
  await expect(root.getByRole('img', { name: 'Warning' })).toBeVisible();
  const summary = root.getByRole('list', { name: 'Summary' }).getByRole('listitem');
  await expect(summary).toHaveText(['1 unhealthy', '1 warning', '2 healthy', /^Checks 2 healthy 1 unhealthy$/, 'Insights 3']);
  await expect(summary.last()).toHaveAttribute('title', /security: 1 critical/);
  await snap(page, 'topology');
});

test('drill-down: the name opens the component, whose children are cards with gauges', async ({ page }) => {
  await open(page);
  await card(page, `${A}topology`)
    .getByRole('link', { name: `${A}topology` })
    .click();
  await expect(page).toHaveURL(new RegExp(`/topology/${rootA}$`));
  const api = card(page, `${A}api`);
  await expect(api).toHaveClass(/qd-topology-card-green/);
  await expect(api.getByRole('term')).toHaveText(['Version', 'Memory', 'CPU']);
  await expect(api.getByRole('meter', { name: 'Memory' })).toHaveAttribute('aria-valuetext', '512 MB / 1 GB');
  await expect(api.getByRole('meter', { name: 'CPU' })).toHaveAttribute('aria-valuetext', '250m / 1');
  await expect(api.getByRole('meter', { name: 'Memory' }).locator('.qd-topology-gauge-green')).toBeVisible();
  const db = card(page, `${A}db`);
  await expect(db).toHaveClass(/qd-topology-card-red/);
  await expect(db.getByRole('meter', { name: 'Memory' }).locator('.qd-topology-gauge-orange')).toBeVisible();
});

test('filters narrow the cards and live in the URL', async ({ page }) => {
  await open(page);
  const a = card(page, `${A}topology`);
  const b = card(page, `${B}topology`);
  await expect(b).toBeVisible();

  await page.getByRole('button', { name: 'Filter by labels' }).click();
  await option(page, `world=${A}`).click();
  await page.keyboard.press('Escape');
  await expect(page).toHaveURL(/labels=world%3De2e-topo-list-a-/);
  await expect(a).toBeVisible();
  await expect(b).toHaveCount(0);
  await page.reload();
  await expect(a).toBeVisible();
  await expect(b).toHaveCount(0);

  await open(page, '?health=healthy');
  await expect(page.getByRole('button', { name: 'Filter by health' })).toHaveText('Healthy');
  await expect(a).toHaveCount(0);
  await page.getByRole('button', { name: 'Filter by health' }).click();
  await option(page, 'Warning').click();
  await page.keyboard.press('Escape');
  await expect(page).toHaveURL(/health=healthy%2Cwarning/);
  await expect(a).toBeVisible();

  await open(page);
  await page.getByRole('button', { name: 'Filter by team' }).click();
  await option(page, `${B}team`).click();
  await expect(page).toHaveURL(/team=e2e-topo-list-b-team/);
  await expect(b).toBeVisible();
  await expect(a).toHaveCount(0);

  await open(page);
  await page.getByRole('textbox', { name: 'Filter by owner' }).fill(`${A}team`);
  await expect(page).toHaveURL(/owner=e2e-topo-list-a-team/);
  await expect(a).toBeVisible();
  await expect(b).toHaveCount(0);

  await open(page);
  await page.getByRole('button', { name: 'Filter by type' }).click();
  await option(page, 'Application').click();
  await page.keyboard.press('Escape');
  await expect(page).toHaveURL(/type=Application/);
  await expect(a).toBeVisible();
  await expect(b).toBeVisible();
});

test('show hidden components: on by default, off asks for visible components only', async ({ page }) => {
  await open(page);
  const toggle = page.getByRole('switch', { name: 'Show hidden components' });
  await expect(toggle).toBeChecked();
  const request = page.waitForRequest((r) => r.url().includes('/api/canary/api/topology?') && r.url().includes('hidden=false'));
  // The switch's toggle covers its input, so the click goes to the label, as a person's would.
  await page.getByText('Show hidden components', { exact: true }).click();
  await request;
  await expect(page).toHaveURL(/showHiddenComponents=no/);
  await expect(card(page, `${A}topology`)).toBeVisible();
  await page.reload();
  await expect(page.getByRole('switch', { name: 'Show hidden components' })).not.toBeChecked();
  await page.getByText('Show hidden components', { exact: true }).click();
  await expect(page).not.toHaveURL(/showHiddenComponents/);
  await expect(page.getByRole('switch', { name: 'Show hidden components' })).toBeChecked();
});

test('the card width preference: 554 px by default, the cards follow the slider', async ({ page }) => {
  await open(page);
  const root = card(page, `${A}topology`);
  await expect.poll(async () => (await root.boundingBox())?.width).toBe(554);
  await page.getByRole('button', { name: 'Preferences' }).click();
  const slider = page.getByRole('slider', { name: 'Card width' });
  await expect(slider).toHaveAttribute('aria-valuemin', '250');
  await expect(slider).toHaveAttribute('aria-valuemax', '768');
  await expect(slider).toHaveAttribute('aria-valuenow', '554');
  const input = page.getByRole('spinbutton', { name: 'Card width in pixels' });
  await input.fill('301');
  await input.press('Enter');
  // Snapped onto the slider's step of 2.
  await expect(slider).toHaveAttribute('aria-valuenow', '302');
  await expect.poll(async () => (await root.boundingBox())?.width).toBe(302);
  await slider.focus();
  await page.keyboard.press('ArrowRight');
  await expect(slider).toHaveAttribute('aria-valuenow', '304');
  await expect.poll(async () => (await root.boundingBox())?.width).toBe(304);
  await page.reload();
  await expect.poll(async () => (await card(page, `${A}topology`).boundingBox())?.width).toBe(304);
});

test('a guest scoped to some components sees only those', async ({ browser }) => {
  await seed('access-scopes', [
    { name: SCOPE, subject: { email: GUEST.email }, resources: ['component'], scopes: [{ names: [`${A}topology`] }] },
  ]);
  const context = await browser.newContext({ storageState: undefined });
  try {
    const page = await context.newPage();
    await page.goto('/topology');
    await page.getByRole('textbox', { name: 'Email' }).fill(GUEST.email);
    await page.getByLabel('Password').fill(USER_PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect(page).toHaveURL(/\/topology$/);
    await expect(card(page, `${A}topology`)).toBeVisible();
    await expect(card(page, `${B}topology`)).toHaveCount(0);
    await snap(page, 'topology-guest');
  } finally {
    await context.close();
  }
});
