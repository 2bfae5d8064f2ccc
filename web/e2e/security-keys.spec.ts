import { expect, request, test, type CDPSession, type Page } from '@playwright/test';
import { randomUUID } from 'node:crypto';
import { ADMIN_STATE, USER_PASSWORD } from './env';

// Browsers make no security keys for an IP address, so these tests use the
// console at localhost, the origin the e2e server names for keys
// (QUARTERDECK_WEBAUTHN_ORIGIN). Cookies are per host: people sign in here.
const PORT = process.env.QD_E2E_PORT;
const AT_LOCALHOST = `http://localhost:${PORT}`;
const AT_ADDRESS = `http://127.0.0.1:${PORT}`;
test.use({ baseURL: AT_LOCALHOST });

/** Chromium's virtual authenticator, as a platform authenticator with a PIN
 * or biometric: it answers every prompt at once. */
async function authenticator(page: Page): Promise<{ cdp: CDPSession; id: string }> {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('WebAuthn.enable');
  const { authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: {
      protocol: 'ctap2',
      transport: 'internal',
      hasResidentKey: true,
      hasUserVerification: true,
      isUserVerified: true,
      automaticPresenceSimulation: true,
    },
  });
  return { cdp, id: authenticatorId };
}

/** A person of this test only, invited by the admin and signed in here. */
async function newPerson(page: Page): Promise<string> {
  const email = `keys-${randomUUID()}@e2e.test`;
  const admin = await request.newContext({ baseURL: AT_ADDRESS, storageState: ADMIN_STATE, extraHTTPHeaders: { Origin: AT_ADDRESS } });
  const invited = await admin.post('/api/auth/invite_user', { data: { firstName: 'Kim', lastName: 'Keys', email, role: 'editor' } });
  expect(invited.ok()).toBe(true);
  const token = new URL(((await invited.json()) as { payload: { link: string } }).payload.link).searchParams.get('token');
  await admin.dispose();
  const accepted = await page.request.post('/api/auth/invite', { data: { token, password: USER_PASSWORD } });
  expect(accepted.ok()).toBe(true);
  return email;
}

async function signOut(page: Page): Promise<void> {
  await page.getByRole('button', { name: 'User menu' }).click();
  await page.getByRole('menuitem', { name: 'Sign out' }).click();
  await expect(page.getByRole('heading', { name: 'Sign In to your account' })).toBeVisible();
}

async function addKey(page: Page, name: string, passkey: boolean): Promise<void> {
  await page.getByRole('textbox', { name: 'Key name' }).fill(name);
  if (passkey) await page.getByRole('checkbox', { name: /Use as a passkey/ }).check();
  await page.getByRole('button', { name: 'Add security key' }).click();
  await expect(page.getByRole('row', { name: new RegExp(`^${name} ${passkey ? 'Passkey' : 'Security key'}`) })).toBeVisible();
}

test('a security key as the second factor, a passkey that signs in alone, and removing a key', async ({ page }) => {
  const email = await newPerson(page);
  const laptop = await authenticator(page);

  await page.goto('/profile-settings');
  await expect(page.getByRole('heading', { name: 'Manage Hardware Tokens and Biometrics' })).toBeVisible();
  await addKey(page, 'Desk key', false);
  await expect(page.getByText('Backup codes back up an authenticator app or a security key: set one up first.')).toHaveCount(0);

  // The password alone now leads to the second step, and the key finishes it.
  await signOut(page);
  await page.getByRole('textbox', { name: 'Email' }).fill(email);
  await page.getByLabel('Password').fill(USER_PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.getByRole('heading', { name: 'Two-Factor Authentication' })).toBeVisible();
  await expect(page.getByRole('textbox', { name: 'Authentication code' })).toHaveCount(0);
  await page.getByRole('button', { name: 'Use security key' }).click();
  await expect(page).toHaveURL(/\/profile-settings$/);
  const deskKey = page.getByRole('row', { name: /^Desk key Security key/ });
  await expect(deskKey.getByRole('cell', { name: 'Never' })).toHaveCount(0);

  // A passkey is made on another authenticator (this one holds the desk key).
  await laptop.cdp.send('WebAuthn.removeVirtualAuthenticator', { authenticatorId: laptop.id });
  const phone = await authenticator(page);
  await addKey(page, 'Phone', true);

  // It signs in without the email or password, at aal2.
  await signOut(page);
  await page.getByRole('button', { name: 'Use a passkey' }).click();
  await expect(page.getByRole('button', { name: 'User menu' })).toBeVisible();
  const session = await page.request.get('/api/auth/session');
  expect(((await session.json()) as { authenticator_assurance_level: string }).authenticator_assurance_level).toBe('aal2');

  // Removing a key (a recent sign-in, the passkey's, allows it).
  await page.goto('/profile-settings');
  await page.getByRole('button', { name: 'Remove Desk key' }).click();
  await expect(page.getByRole('row', { name: /^Desk key/ })).toHaveCount(0);
  await expect(page.getByRole('row', { name: /^Phone Passkey/ })).toBeVisible();
  await phone.cdp.send('WebAuthn.removeVirtualAuthenticator', { authenticatorId: phone.id });
});

test('a key that does not verify the person is refused as a passkey', async ({ page }) => {
  await newPerson(page);
  const key = await authenticator(page);
  await page.goto('/profile-settings');
  await addKey(page, 'Roaming key', true);
  await signOut(page);
  // The same key, now without its PIN or biometric: the browser refuses
  // to answer a passkey prompt, and the page says so.
  await key.cdp.send('WebAuthn.setUserVerified', { authenticatorId: key.id, isUserVerified: false });
  await page.getByRole('button', { name: 'Use a passkey' }).click();
  await expect(page.getByText('The security key prompt was closed or timed out.')).toBeVisible();
  await expect(page.getByRole('heading', { name: 'Sign In to your account' })).toBeVisible();
});

test.describe('signed in at the IP address', () => {
  test.use({ storageState: ADMIN_STATE });

  test('the section says where keys work', async ({ page }) => {
    await page.goto(`${AT_ADDRESS}/profile-settings`);
    await expect(page.getByRole('heading', { name: 'Manage Hardware Tokens and Biometrics' })).toBeVisible();
    await expect(page.getByRole('link', { name: AT_LOCALHOST })).toHaveAttribute('href', `${AT_LOCALHOST}/profile-settings`);
    await expect(page.getByRole('button', { name: 'Add security key' })).toHaveCount(0);
  });
});
