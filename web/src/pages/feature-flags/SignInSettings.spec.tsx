// @vitest-environment jsdom
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { afterEach, expect, it, vi } from 'vitest';
import { api } from '../../api/client';
import { SignInSettings } from './SignInSettings';

const session = vi.hoisted(() => ({ isAdmin: false }));
vi.mock('../../app/session', () => ({ useSession: () => ({ authorizer: { isAdmin: session.isAdmin } }) }));
vi.mock('../../app/toast', () => ({ useToast: () => ({ error: vi.fn(), success: vi.fn() }) }));
vi.mock('../../api/client', async (original) => ({
  ...(await original<typeof import('../../api/client')>()),
  api: { GET: vi.fn(), PUT: vi.fn() },
}));

/** A loaded CI machine renders jsdom screens slowly; the default 1 s is too short. */
const WAIT = { timeout: 10_000 };

afterEach(() => {
  cleanup();
  vi.resetAllMocks();
});

const ok = (data: unknown) => ({ data, response: new Response(null, { status: 200 }) });
const SETTINGS = { mailConnection: null, registrationEnabled: false, registrationDomains: [], registrationRole: 'viewer' };

function answers() {
  vi.mocked(api.GET).mockImplementation(((path: string) => {
    if (path === '/api/settings/identity') return Promise.resolve(ok(SETTINGS));
    if (path === '/api/settings/second-factor') return Promise.resolve(ok({ required: 'nobody' }));
    return Promise.resolve(ok([{ id: 'c1', name: 'mail', namespace: 'default', type: 'email', ref: 'connection://default/mail' }]));
  }) as never);
}

function renderCard() {
  render(
    <QueryClientProvider client={new QueryClient()}>
      <SignInSettings />
    </QueryClientProvider>,
  );
}

it('is read-only for non-admins', async () => {
  session.isAdmin = false;
  answers();
  renderCard();
  expect(await screen.findByText('Only admins can change them.', {}, WAIT)).toBeTruthy();
  expect((screen.getByRole('switch', { name: 'Allow people to create their own account' }) as HTMLInputElement).disabled).toBe(true);
  expect(screen.queryByRole('button', { name: 'Save sign-in settings' })).toBeNull();
});

it('saves the mail connection, registration with its domains and role, and the second factor', async () => {
  session.isAdmin = true;
  answers();
  vi.mocked(api.PUT).mockImplementation(((_path: string, init: { body: unknown }) => Promise.resolve(ok(init.body))) as never);
  renderCard();
  const mail = await screen.findByRole('combobox', { name: 'Mail connection' }, WAIT);
  await screen.findByRole('option', { name: 'connection://default/mail' }, WAIT);
  fireEvent.change(mail, { target: { value: 'c1' } });
  fireEvent.click(screen.getByRole('switch', { name: 'Allow people to create their own account' }));
  fireEvent.change(screen.getByRole('textbox', { name: 'Registration domains' }), { target: { value: 'example.com, @corp.example' } });
  fireEvent.change(screen.getByRole('combobox', { name: 'Role of new accounts' }), { target: { value: 'editor' } });
  fireEvent.change(screen.getByRole('combobox', { name: 'Second factor required of' }), { target: { value: 'admins' } });
  fireEvent.click(screen.getByRole('button', { name: 'Save sign-in settings' }));
  await waitFor(() => expect(vi.mocked(api.PUT)).toHaveBeenCalledTimes(2), WAIT);
  expect(vi.mocked(api.PUT).mock.calls[0]).toEqual([
    '/api/settings/identity',
    {
      body: {
        mailConnection: 'c1',
        registrationEnabled: true,
        registrationDomains: ['example.com', '@corp.example'],
        registrationRole: 'editor',
      },
    },
  ]);
  expect(vi.mocked(api.PUT).mock.calls[1]).toEqual(['/api/settings/second-factor', { body: { required: 'admins' } }]);
});
