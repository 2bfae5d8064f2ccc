// @vitest-environment jsdom
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { MemoryRouter } from 'react-router';
import { afterEach, expect, it, vi } from 'vitest';
import { api } from '../../api/client';
import RecoveryPage from './RecoveryPage';

vi.mock('../../api/client', async (original) => ({
  ...(await original<typeof import('../../api/client')>()),
  api: { GET: vi.fn(), POST: vi.fn() },
}));

/** A loaded CI machine renders jsdom screens slowly; the default 1 s is too short. */
const WAIT = { timeout: 10_000 };

afterEach(() => {
  cleanup();
  vi.resetAllMocks();
});

const reply = (status: number, body: unknown) => ({
  ...(status < 400 ? { data: body } : { error: body }),
  response: new Response(null, { status }),
});

function flow(id: string, state: string, nodes: [string, string, string][], messages: string[] = []) {
  return {
    id,
    type: 'browser',
    state,
    issued_at: '2026-01-01T00:00:00Z',
    expires_at: '2026-01-01T00:15:00Z',
    ui: {
      action: `/api/auth/recovery?flow=${id}`,
      method: 'POST',
      messages: messages.map((text) => ({ id: 1, type: 'info', text })),
      nodes: [['default', 'csrf_token', 'hidden'], ...nodes].map(([group, name, type]) => ({
        type: 'input',
        group,
        attributes: {
          name,
          type,
          value: name === 'csrf_token' ? 'csrf-1' : type === 'submit' ? group : '',
          required: true,
          disabled: false,
        },
        messages: [],
        meta: { label: { text: name === 'method' ? 'Send code' : 'Email' } },
      })),
    },
  };
}

function renderAt(path: string) {
  render(
    <QueryClientProvider client={new QueryClient()}>
      <MemoryRouter initialEntries={[path]}>
        <RecoveryPage />
      </MemoryRouter>
    </QueryClientProvider>,
  );
}

it('says why recovery is off', async () => {
  const message = 'Recovery by email is not set up: ask an administrator for a password reset link.';
  vi.mocked(api.GET).mockResolvedValue(
    reply(403, { error: { id: 'self_service_flow_disabled', code: 403, message, reason: message } }) as never,
  );
  renderAt('/recovery');
  expect(await screen.findByText(message, {}, WAIT)).toBeTruthy();
  expect(screen.getByRole('heading', { name: 'Recover account' })).toBeTruthy();
  expect(screen.queryByRole('textbox', { name: 'Email' })).toBeNull();
});

it('sends the address with the csrf token and shows the next step', async () => {
  vi.mocked(api.GET).mockResolvedValue(
    reply(
      200,
      flow('f1', 'choose_method', [
        ['code', 'email', 'email'],
        ['code', 'method', 'submit'],
      ]),
    ) as never,
  );
  vi.mocked(api.POST).mockResolvedValue(
    reply(
      200,
      flow(
        'f1',
        'sent_email',
        [
          ['code', 'code', 'text'],
          ['code', 'method', 'submit'],
        ],
        ['An email containing a recovery code has been sent'],
      ),
    ) as never,
  );
  renderAt('/recovery');
  fireEvent.change(await screen.findByRole('textbox', { name: 'Email' }, WAIT), { target: { value: 'ada@example.com' } });
  fireEvent.click(screen.getByRole('button', { name: 'Send code' }));
  expect(await screen.findByText('An email containing a recovery code has been sent', {}, WAIT)).toBeTruthy();
  expect(vi.mocked(api.POST).mock.calls[0]).toEqual([
    '/api/auth/recovery',
    { params: { query: { flow: 'f1' } }, body: { email: 'ada@example.com', method: 'code', csrf_token: 'csrf-1' } },
  ]);
});

it('continues with the fresh flow of a 410 and says the interaction expired', async () => {
  vi.mocked(api.GET)
    .mockResolvedValueOnce(
      reply(410, { error: { id: 'self_service_flow_expired', code: 410, message: 'x', reason: 'x' }, use_flow_id: 'f2' }) as never,
    )
    .mockResolvedValueOnce(
      reply(
        200,
        flow('f2', 'choose_method', [
          ['code', 'email', 'email'],
          ['code', 'method', 'submit'],
        ]),
      ) as never,
    );
  renderAt('/recovery?flow=f1');
  expect(await screen.findByText('Your interaction expired, please fill out the form again.', {}, WAIT)).toBeTruthy();
  await waitFor(
    () => expect(vi.mocked(api.GET).mock.calls[1]).toEqual(['/api/auth/recovery/flows', { params: { query: { id: 'f2' } } }]),
    WAIT,
  );
});
