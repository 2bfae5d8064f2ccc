import { expect, request, test } from '@playwright/test';
import { randomUUID } from 'node:crypto';
import { ADMIN_STATE } from './env';

/** The OpenID Connect provider hack/lib/servers/oidc.sh started; the test
 * fails (never skips) without it. */
function oidc(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is unset: run under hack/with-servers.sh (QD_SERVERS=oidc), as hack/test.sh does`);
  return value;
}

test.use({ storageState: { cookies: [], origins: [] } });

async function provider(baseURL: string | undefined, slug: string, label: string) {
  const admin = await request.newContext({
    baseURL,
    storageState: ADMIN_STATE,
    extraHTTPHeaders: { Origin: new URL(baseURL ?? '').origin, 'X-Requested-With': 'quarterdeck' },
  });
  const created = await admin.post('/api/settings/sso', {
    data: {
      slug,
      label,
      issuer: oidc('QD_TEST_OIDC_ISSUER'),
      client_id: oidc('QD_TEST_OIDC_CLIENT_ID'),
      client_secret: oidc('QD_TEST_OIDC_CLIENT_SECRET'),
      scopes: ['openid', 'email', 'profile', 'groups'],
      groups_claim: 'groups',
      create_people: true,
      default_role: 'viewer',
    },
  });
  expect(created.status(), await created.text()).toBe(201);
  return admin;
}

test.describe('signed out', () => {
  test.use({ storageState: { cookies: [], origins: [] } });

  test('the sign-in page button signs in through the provider; the profile links and unlinks', async ({ page, baseURL }) => {
    const id = randomUUID().slice(0, 8);
    const [slug, other] = [`e2e-${id}`, `e2e-${id}-b`];
    const [label, otherLabel] = [`E2E Provider ${id}`, `E2E Other ${id}`];
    const email = `sso-${id}@e2e.test`;
    const admin = await provider(baseURL, slug, label);
    (await provider(baseURL, other, otherLabel)).dispose();
    try {
      await page.goto('/login?sso_error=email_not_verified');
      await expect(page.getByText('Your email address is not verified at the sign-in provider')).toBeVisible();

      await page.goto('/login?return_to=%2Fprofile-settings');
      await page.getByRole('link', { name: `Sign in with ${label}` }).click();
      // The provider's own sign-in form (its development interactions).
      await page.locator('input[name="login"]').fill(`${email}|true`);
      await page.locator('input[name="password"]').fill('any');
      await page.getByRole('button', { name: 'Sign-in' }).click();

      await expect(page).toHaveURL(/\/profile-settings$/);
      await expect(page.getByRole('heading', { name: 'Manage Social Sign In' })).toBeVisible();
      await expect(page.getByText(`Linked: ${email}`)).toBeVisible();
      const whoami = await page.request.get('/api/auth/whoami');
      expect(whoami.ok()).toBe(true);
      const me = (await whoami.json()) as { payload: { user: { email: string; roles: string[] } } };
      expect(me.payload.user.email).toBe(email);
      expect(me.payload.user.roles).toEqual(['viewer']);

      // The only way this person signs in stays.
      await page.getByRole('button', { name: `Unlink ${label}` }).click();
      await expect(page.getByText('this is your only way to sign in')).toBeVisible();

      // Linking another provider's account goes through the provider and back.
      await page.getByRole('link', { name: `Link ${otherLabel}` }).click();
      await page.waitForURL((url) => url.pathname === '/profile-settings' || url.pathname.startsWith('/interaction/'));
      if (new URL(page.url()).pathname.startsWith('/interaction/')) {
        await page.locator('input[name="login"]').fill(`${email}|true`);
        await page.locator('input[name="password"]').fill('any');
        await page.getByRole('button', { name: 'Sign-in' }).click();
      }
      await expect(page).toHaveURL(/\/profile-settings$/);
      await expect(page.getByText(`Linked: ${email}`)).toHaveCount(2);
      await page.getByRole('button', { name: `Unlink ${otherLabel}` }).click();
      await expect(page.getByText(`${otherLabel} unlinked.`)).toBeVisible();
      await expect(page.getByText(`Linked: ${email}`)).toHaveCount(1);
    } finally {
      expect((await admin.delete(`/api/settings/sso/${slug}`)).status()).toBe(204);
      expect((await admin.delete(`/api/settings/sso/${other}`)).status()).toBe(204);
      await admin.dispose();
    }
  });
});

test.describe('as the admin', () => {
  test.use({ storageState: ADMIN_STATE });

  test('the Single Sign-On screen adds, edits and deletes a provider', async ({ page }) => {
    const id = randomUUID().slice(0, 8);
    const label = `Screen ${id}`;
    await page.goto('/settings/single-sign-on');
    await page.getByRole('button', { name: 'Add Provider' }).click();
    const dialog = page.getByRole('dialog', { name: 'Add Provider' });
    await dialog.getByRole('textbox', { name: 'Label' }).fill(label);
    await dialog.getByRole('textbox', { name: 'Slug' }).fill(`screen-${id}`);
    await dialog.getByRole('textbox', { name: 'Issuer URL' }).fill('http://id.example.com');
    await dialog.getByRole('textbox', { name: 'Client ID' }).fill('quarterdeck');
    await dialog.getByLabel('Client secret').fill('s3cret');
    await dialog.getByRole('button', { name: 'Add mapping' }).click();
    await dialog.getByRole('textbox', { name: 'Group 1' }).fill('ops');
    await dialog.getByRole('button', { name: 'What group 1 gives' }).click();
    await page.getByRole('option', { name: 'Role: editor' }).click();
    await dialog.getByRole('button', { name: 'Create' }).click();
    // The issuer must be https off the loopback: the field says so.
    await expect(dialog.getByText('The issuer must be an https URL')).toBeVisible();
    await dialog.getByRole('textbox', { name: 'Issuer URL' }).fill('https://id.example.com');
    await dialog.getByRole('button', { name: 'Create' }).click();
    await expect(dialog).toBeHidden();

    const row = page.getByRole('row', { name: new RegExp(label) });
    await expect(row).toContainText('https://id.example.com');
    await row.getByText(label).click();
    const edit = page.getByRole('dialog', { name: 'Edit Provider' });
    await expect(edit.locator(`input[value$="/api/auth/sso/screen-${id}/callback"]`)).toBeVisible();
    await expect(edit.getByRole('textbox', { name: 'Group 1' })).toHaveValue('ops');
    await edit.getByRole('button', { name: 'Cancel' }).click();

    await row.getByRole('button', { name: `Delete ${label}` }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Delete' }).click();
    await expect(page.getByText(`${label} deleted successfully`)).toBeVisible();
    await expect(row).toHaveCount(0);
  });
});
