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

test('the sign-in page button signs in through the provider', async ({ page, baseURL }) => {
  const id = randomUUID().slice(0, 8);
  const slug = `e2e-${id}`;
  const label = `E2E Provider ${id}`;
  const email = `sso-${id}@e2e.test`;
  const admin = await request.newContext({
    baseURL,
    storageState: ADMIN_STATE,
    extraHTTPHeaders: { Origin: new URL(baseURL ?? '').origin },
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
  } finally {
    await admin.delete(`/api/settings/sso/${slug}`);
    await admin.dispose();
  }
});
