// @vitest-environment jsdom
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { cleanup, render, screen } from '@testing-library/react';
import { MemoryRouter } from 'react-router';
import { afterEach, expect, it, vi } from 'vitest';
import { api } from '../../api/client';
import { SecurityKeysSection } from './SecurityKeysSection';
import { useSecondFactors } from './useSecondFactors';

vi.mock('../../api/client', async (original) => ({
  ...(await original<typeof import('../../api/client')>()),
  api: { GET: vi.fn(), POST: vi.fn(), DELETE: vi.fn() },
}));

/** A loaded CI machine renders jsdom screens slowly; the default 1 s is too short. */
const WAIT = { timeout: 10_000 };

afterEach(() => {
  cleanup();
  vi.resetAllMocks();
});

const KEY = { id: 'k1', name: 'Desk key', passwordless: false, created_at: '2026-11-01T10:00:00Z', last_used_at: null };

function answer(factors: object) {
  const base = { totp: false, backup_codes_remaining: 0, required: false, security_keys: [], webauthn_unavailable: null };
  vi.mocked(api.GET).mockResolvedValue({ data: { ...base, ...factors }, response: new Response(null, { status: 200 }) } as never);
}

function Section() {
  return <SecurityKeysSection factors={useSecondFactors()} />;
}

function renderSection() {
  render(
    <QueryClientProvider client={new QueryClient()}>
      <MemoryRouter initialEntries={['/profile-settings']}>
        <Section />
      </MemoryRouter>
    </QueryClientProvider>,
  );
}

it('lists the keys and offers to add one at the origin keys work at', async () => {
  answer({ security_keys: [KEY], webauthn_origin: window.location.origin });
  renderSection();
  expect(await screen.findByRole('row', { name: /Desk key Security key/ }, WAIT)).toBeTruthy();
  expect(screen.getByRole('cell', { name: 'Never' })).toBeTruthy();
  expect(screen.getByRole('button', { name: 'Remove Desk key' })).toBeTruthy();
  expect(screen.getByRole('button', { name: 'Add security key' })).toBeTruthy();
  expect(screen.getByRole('checkbox', { name: /Use as a passkey/ })).toBeTruthy();
});

it('elsewhere, says where keys work instead of offering them', async () => {
  answer({ webauthn_origin: 'http://localhost:8080' });
  renderSection();
  const link = await screen.findByRole('link', { name: 'http://localhost:8080' }, WAIT);
  expect(link.getAttribute('href')).toBe('http://localhost:8080/profile-settings');
  expect(screen.queryByRole('button', { name: 'Add security key' })).toBeNull();
});

it('says why keys cannot be used at this console', async () => {
  answer({ webauthn_origin: null, webauthn_unavailable: 'security keys need the console at a domain name' });
  renderSection();
  expect(await screen.findByText('security keys need the console at a domain name', {}, WAIT)).toBeTruthy();
  expect(screen.queryByRole('button', { name: 'Add security key' })).toBeNull();
});
