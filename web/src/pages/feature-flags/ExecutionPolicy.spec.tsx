// @vitest-environment jsdom
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { afterEach, expect, it, vi } from 'vitest';
import { api } from '../../api/client';
import { ExecutionPolicy } from './ExecutionPolicy';

const session = vi.hoisted(() => ({ isAdmin: false }));
vi.mock('../../app/session', () => ({ useSession: () => ({ authorizer: { isAdmin: session.isAdmin } }) }));
vi.mock('../../app/toast', () => ({ useToast: () => ({ error: vi.fn(), success: vi.fn() }) }));
vi.mock('../../api/client', async (original) => ({
  ...(await original<typeof import('../../api/client')>()),
  api: { GET: vi.fn(), PUT: vi.fn() },
}));

afterEach(cleanup);

const answer = (allowConsoleScripts: boolean) => ({ data: { allowConsoleScripts }, response: new Response(null, { status: 200 }) });

function renderPolicy() {
  render(
    <QueryClientProvider client={new QueryClient()}>
      <ExecutionPolicy />
    </QueryClientProvider>,
  );
  return screen.getByRole('switch', { name: 'Allow scripts from the console' });
}

it('is read-only for non-admins', async () => {
  session.isAdmin = false;
  vi.mocked(api.GET).mockResolvedValue(answer(true) as never);
  const toggle = renderPolicy();
  await waitFor(() => expect((toggle as HTMLInputElement).checked).toBe(true));
  expect((toggle as HTMLInputElement).disabled).toBe(true);
  expect(screen.getByText(/Only admins can change it/)).toBeTruthy();
});

it('lets admins switch scripts from the console on', async () => {
  session.isAdmin = true;
  vi.mocked(api.GET).mockResolvedValue(answer(false) as never);
  vi.mocked(api.PUT).mockResolvedValue(answer(true) as never);
  const toggle = renderPolicy();
  await waitFor(() => expect((toggle as HTMLInputElement).disabled).toBe(false));
  fireEvent.click(toggle);
  await waitFor(() => expect((toggle as HTMLInputElement).checked).toBe(true));
  expect(vi.mocked(api.PUT).mock.calls[0]).toEqual(['/api/settings/execution-policy', { body: { allowConsoleScripts: true } }]);
});
