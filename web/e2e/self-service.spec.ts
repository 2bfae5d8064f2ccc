import { expect, test, type APIRequestContext, type Page } from '@playwright/test';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ADMIN_STATE } from './env';
import { attempt, expectToast } from './helpers';

function server(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is unset: run the browser tests through hack/test.sh or hack/with-servers.sh`);
  return value;
}

/** The text of every mail the test SMTP server received for `to`, oldest first. */
function mailTo(to: string): string[] {
  const dir = server('QD_TEST_SMTP_DIR');
  return readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((f) => JSON.parse(readFileSync(join(dir, f), 'utf8')) as { rcptTos: string[]; data: string })
    .filter((m) => m.rcptTos.includes(to))
    .map((m) => {
      const body = m.data
        .split(/\r?\n\r?\n/)
        .slice(1)
        .join('')
        .replace(/\s/g, '');
      return Buffer.from(body, 'base64').toString('utf8');
    });
}

async function mail(to: string): Promise<string> {
  await expect.poll(() => mailTo(to).length, { timeout: 20_000 }).toBeGreaterThan(0);
  return mailTo(to)[0];
}

/** As the signed-in admin of `request`: an e-mail connection to the test SMTP server. */
async function mailConnection(request: APIRequestContext, baseURL: string, name: string): Promise<void> {
  const res = await request.post('/api/connections', {
    headers: { Origin: new URL(baseURL).origin },
    data: {
      name,
      type: 'email',
      fields: {
        host: { value: server('QD_TEST_SMTP_HOST') },
        port: { value: Number(server('QD_TEST_SMTP_PORT')) },
        from: { value: 'e2e@quarterdeck.test' },
        fromName: { value: 'Quarterdeck' },
        username: { value: server('QD_TEST_SMTP_USER') },
        password: { value: server('QD_TEST_SMTP_PASSWORD') },
        insecureTls: { value: true },
      },
    },
  });
  if (!res.ok()) throw new Error(`mail connection: ${res.status()} ${await res.text()}`);
}

/** The admin turns on mail and registration (limited to e2e.test, as editors) on the Feature Flags screen. */
async function setUpSelfService(page: Page, baseURL: string): Promise<void> {
  const connection = attempt('e2e-system-mail');
  await mailConnection(page.request, baseURL, connection);
  await page.goto('/settings/feature-flags');
  const card = page.getByRole('form', { name: 'Sign-in and accounts' });
  await card.getByRole('combobox', { name: 'Mail connection' }).selectOption({ label: `connection://default/${connection}` });
  const registration = card.getByRole('switch', { name: 'Allow people to create their own account' });
  if (!(await registration.isChecked())) await card.getByText('Allow people to create their own account', { exact: true }).click();
  await expect(registration).toBeChecked();
  await card.getByRole('textbox', { name: 'Registration domains' }).fill('e2e.test');
  await card.getByRole('combobox', { name: 'Role of new accounts' }).selectOption('editor');
  await card.getByRole('button', { name: 'Save sign-in settings' }).click();
  await expectToast(page, 'Sign-in settings saved');
}

test.describe.serial('self-service identity', () => {
  test.use({ storageState: ADMIN_STATE });

  test('registration, verification by the mailed link, and recovery by the mailed code', async ({ page, browser, baseURL }) => {
    if (!baseURL) throw new Error('baseURL is not set');
    await setUpSelfService(page, baseURL);

    // Someone new, in a browser of their own.
    const visitor = await browser.newContext({ storageState: { cookies: [], origins: [] } });
    const them = await visitor.newPage();
    const email = `${attempt('newcomer')}-${Date.now()}@e2e.test`;
    await them.goto('/login');
    await them.getByRole('link', { name: 'Create account' }).click();
    await expect(them.getByRole('heading', { name: 'Create account' })).toBeVisible();
    await expect(them.getByRole('link', { name: 'Sign in' })).toBeVisible();
    const form = them.getByRole('form', { name: 'Sign up' });
    await form.getByRole('textbox', { name: 'Email' }).fill('someone@elsewhere.example');
    await form.getByRole('textbox', { name: 'First name' }).fill('Nia');
    await form.getByRole('textbox', { name: 'Last name' }).fill('Newcomer');
    await form.getByLabel('Password').fill('too short');
    await form.getByRole('button', { name: 'Sign up' }).click();
    await expect(them.getByText('Registration takes addresses at e2e.test only.')).toBeVisible();
    await expect(them.getByText('Password must be at least 12 characters long and must not be your email address.')).toBeVisible();
    await form.getByRole('textbox', { name: 'Email' }).fill(email);
    await form.getByLabel('Password').fill('a long enough password');
    await form.getByRole('button', { name: 'Sign up' }).click();
    await expect(them).toHaveURL(/\/topology/);

    // Their profile says the address is not verified; the mailed link verifies it.
    await them.goto('/profile-settings');
    await expect(them.getByText('Not verified.')).toBeVisible();
    const link = /\/verification\?token=\S+/.exec(await mail(email))?.[0];
    expect(link).toBeTruthy();
    await them.goto(link ?? '');
    await expect(them.getByRole('heading', { name: 'Verify your account' })).toBeVisible();
    await expect(them.getByText(`You successfully verified your email address ${email}.`)).toBeVisible();
    await them.goto('/profile-settings');
    await expect(them.getByText(/^Verified/)).toBeVisible();
    await visitor.close();

    // Forgotten password: recovery by the mailed code, in yet another browser.
    const forgetful = await browser.newContext({ storageState: { cookies: [], origins: [] } });
    const again = await forgetful.newPage();
    await again.goto('/login');
    await again.getByRole('link', { name: 'Reset password' }).click();
    await expect(again.getByRole('heading', { name: 'Recover account' })).toBeVisible();
    await again.getByRole('textbox', { name: 'Email' }).fill(email);
    await again.getByRole('button', { name: 'Send code' }).click();
    await expect(again.getByText(/An email containing a recovery code has been sent/)).toBeVisible();
    await again.getByRole('textbox', { name: 'Recovery code' }).fill('000000x');
    await again.getByRole('button', { name: 'Submit code' }).click();
    await expect(again.getByText('The recovery code is invalid or has already been used. Please try again.')).toBeVisible();
    await expect.poll(() => mailTo(email).length, { timeout: 20_000 }).toBeGreaterThan(1);
    const code = /code is (\d{6})/.exec(mailTo(email)[1])?.[1] ?? '';
    await again.getByRole('textbox', { name: 'Recovery code' }).fill(code);
    await again.getByRole('button', { name: 'Submit code' }).click();
    await expect(again.getByText('You successfully recovered your account. Choose a new password to finish.')).toBeVisible();
    await again.getByLabel('New password').fill('another long password');
    await again.getByRole('button', { name: 'Save password' }).click();
    await expect(again).toHaveURL(/\/topology/);
    await forgetful.close();
  });

  test('an unknown flow starts afresh; a bad verification link says so', async ({ browser }) => {
    const visitor = await browser.newContext({ storageState: { cookies: [], origins: [] } });
    const page = await visitor.newPage();
    await page.goto('/recovery?flow=00000000-0000-0000-0000-000000000000');
    await expect(page.getByRole('heading', { name: 'Recover account' })).toBeVisible();
    await expect(page.getByRole('textbox', { name: 'Email' })).toBeVisible();
    await page.goto('/verification?token=qdv_not-a-token');
    await expect(page.getByText('this verification link is not valid')).toBeVisible();
    await visitor.close();
  });
});
