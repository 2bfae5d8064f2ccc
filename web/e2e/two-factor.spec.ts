import { expect, request, test, type Page } from '@playwright/test';
import { createHmac, randomUUID } from 'node:crypto';
import { ADMIN_STATE, USER_PASSWORD } from './env';

/** RFC 4648 base32 (no padding), as the secret is shown. */
function base32(text: string): Buffer {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
  let bits = '';
  for (const c of text.replace(/=+$/, '').toUpperCase()) bits += alphabet.indexOf(c).toString(2).padStart(5, '0');
  const bytes = bits.match(/.{8}/g) ?? [];
  return Buffer.from(bytes.map((b) => parseInt(b, 2)));
}

/** RFC 6238 (HMAC-SHA-1, 6 digits, 30 s) at now + `offset` seconds: the
 * test's own implementation, not the server's. */
function totp(secret: string, offset = 0): string {
  const counter = Buffer.alloc(8);
  counter.writeBigUInt64BE(BigInt(Math.floor((Date.now() / 1000 + offset) / 30)));
  const mac = createHmac('sha1', base32(secret)).update(counter).digest();
  const at = mac[mac.length - 1] & 0x0f;
  const value = mac.readUInt32BE(at) & 0x7fffffff;
  return String(value % 1_000_000).padStart(6, '0');
}

async function signOut(page: Page): Promise<void> {
  await page.getByRole('button', { name: 'User menu' }).click();
  await page.getByRole('menuitem', { name: 'Sign out' }).click();
  await expect(page.getByRole('heading', { name: 'Sign In to your account' })).toBeVisible();
}

async function signInWithPassword(page: Page, email: string): Promise<void> {
  await page.getByRole('textbox', { name: 'Email' }).fill(email);
  await page.getByLabel('Password').fill(USER_PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.getByRole('heading', { name: 'Two-Factor Authentication' })).toBeVisible();
  await expect(page).toHaveURL(/\/login\?aal=aal2&return_to=%2Fprofile-settings$/);
}

test('enrol an authenticator app, sign in with a code, then with a backup code once', async ({ page, baseURL }) => {
  // A person of this test only: an invitation from the admin, accepted in this browser.
  const email = `two-factor-${randomUUID()}@e2e.test`;
  const admin = await request.newContext({
    baseURL,
    storageState: ADMIN_STATE,
    extraHTTPHeaders: { Origin: new URL(baseURL ?? '').origin },
  });
  const invited = await admin.post('/api/auth/invite_user', { data: { firstName: 'Tess', lastName: 'Totp', email, role: 'editor' } });
  expect(invited.ok()).toBe(true);
  const token = new URL(((await invited.json()) as { payload: { link: string } }).payload.link).searchParams.get('token');
  await admin.dispose();
  const accepted = await page.request.post('/api/auth/invite', { data: { token, password: USER_PASSWORD } });
  expect(accepted.ok()).toBe(true);

  await page.goto('/profile-settings');
  await expect(page.getByRole('heading', { name: 'Manage 2FA TOTP Authenticator App' })).toBeVisible();
  await expect(page.getByRole('heading', { name: 'Manage 2FA Backup Recovery Codes' })).toBeVisible();
  await expect(page.getByText('Backup codes back up an authenticator app or a security key: set one up first.')).toBeVisible();
  await page.getByRole('button', { name: 'Set up authenticator app' }).click();
  await expect(page.getByRole('img', { name: 'QR code for the authenticator app' })).toBeVisible();
  const secret = await page.getByRole('textbox', { name: 'Secret key' }).inputValue();
  expect(secret).toMatch(/^[A-Z2-7]{32}$/);
  await page.getByRole('textbox', { name: 'Verification code' }).fill('000000' === totp(secret) ? '111111' : '000000');
  await page.getByRole('button', { name: 'Verify and enable' }).click();
  await expect(page.getByText('The provided authentication code is invalid, please try again.')).toBeVisible();
  await page.getByRole('textbox', { name: 'Verification code' }).fill(totp(secret));
  await page.getByRole('button', { name: 'Verify and enable' }).click();
  await expect(page.getByText('An authenticator app is enabled for your account.')).toBeVisible();

  await page.getByRole('button', { name: 'Generate new backup codes' }).click();
  const codes = page.getByRole('list', { name: 'Backup recovery codes' }).getByRole('listitem');
  await expect(codes).toHaveCount(10);
  const backupCode = (await codes.first().textContent()) ?? '';
  expect(backupCode).toMatch(/^[a-z2-9]{12}$/);
  await expect(page.getByText('10 backup codes remaining.', { exact: false })).toBeVisible();

  // Sign out; the password alone leads to the second step, and a code finishes it.
  await signOut(page);
  await signInWithPassword(page, email);
  await page.getByRole('textbox', { name: 'Authentication code' }).fill(totp(secret, 30));
  await page.getByRole('button', { name: 'Verify' }).click();
  await expect(page).toHaveURL(/\/profile-settings$/);
  await expect(page.getByText('An authenticator app is enabled for your account.')).toBeVisible();
  // The codes were shown once: not again.
  await expect(page.getByText('10 backup codes remaining.', { exact: false })).toBeVisible();
  await expect(page.getByRole('list', { name: 'Backup recovery codes' })).toHaveCount(0);

  // A backup code signs in once.
  await signOut(page);
  await signInWithPassword(page, email);
  await page.getByRole('textbox', { name: 'Backup recovery code' }).fill(backupCode);
  await page.getByRole('button', { name: 'Use backup code' }).click();
  await expect(page).toHaveURL(/\/profile-settings$/);
  await expect(page.getByText('9 backup codes remaining.', { exact: false })).toBeVisible();

  await signOut(page);
  await signInWithPassword(page, email);
  await page.getByRole('textbox', { name: 'Backup recovery code' }).fill(backupCode);
  await page.getByRole('button', { name: 'Use backup code' }).click();
  await expect(page.getByText('The backup recovery code is not valid.')).toBeVisible();
});
