// @vitest-environment jsdom
import { cleanup, render, screen } from '@testing-library/react';
import { afterEach, expect, it } from 'vitest';
import { ApiError } from '../api/errors';
import { createAuthorizer } from '../lib/authorizer';
import type { Session } from './session';
import { SessionGate } from './SessionGate';

afterEach(cleanup);

const SESSION = { user: { id: 'u1', name: 'Ada' }, authorizer: createAuthorizer([], {}), isEnabled: () => true } as unknown as Session;

it('shows the content once signed in', () => {
  render(
    <SessionGate session={SESSION} error={null}>
      <p>content</p>
    </SessionGate>,
  );
  expect(screen.getByText('content')).toBeTruthy();
});

it('shows why the session did not load, but waits on a 401 (on its way to sign-in)', () => {
  const { container, rerender } = render(
    <SessionGate error={new Error('whoami failed')}>
      <p>content</p>
    </SessionGate>,
  );
  expect(screen.getByText('whoami failed')).toBeTruthy();
  rerender(
    <SessionGate error={new ApiError(401, null, 'signed out')}>
      <p>content</p>
    </SessionGate>,
  );
  expect(screen.queryByText('signed out')).toBeNull();
  expect(screen.queryByText('content')).toBeNull();
  expect(container.querySelector('.pf-v6-c-spinner')).not.toBeNull();
});
