// @vitest-environment jsdom
import type { UseMutationResult } from '@tanstack/react-query';
import { cleanup, render, screen } from '@testing-library/react';
import { MemoryRouter } from 'react-router';
import { afterEach, expect, it } from 'vitest';
import type { Schemas } from '../../../api/client';
import { SessionContext } from '../../../app/session';
import { ToastProvider } from '../../../app/toast';
import { createAuthorizer, type Rights } from '../../../lib/authorizer';
import { DetailFooter } from './DetailFooter';
import type { CheckSummary } from './useCheckDetailData';

afterEach(cleanup);

const CHECK = { id: 'c1', deleted_at: null } as CheckSummary;
const RUN_NOW = { isPending: false, mutate: () => undefined } as unknown as UseMutationResult<unknown, Error, void>;

function renderFooter(roles: string[], rights: Rights, check: CheckSummary = CHECK, incidents = true) {
  const session = {
    user: { id: 'p1', name: 'Pat' } as Schemas['Person'],
    authorizer: createAuthorizer(roles, rights),
    isEnabled: (feature: string) => incidents || feature !== 'incidents',
  };
  render(
    <SessionContext.Provider value={session}>
      <ToastProvider>
        <MemoryRouter>
          <DetailFooter check={check} canary={null} runNow={RUN_NOW} />
        </MemoryRouter>
      </ToastProvider>
    </SessionContext.Provider>,
  );
}

it('hides Run Now from an editor whom the server does not let run checks', () => {
  renderFooter(['editor'], { canaries: ['read', 'create', 'update', 'delete'] });
  expect(screen.queryByRole('button', { name: 'Run Now' })).toBeNull();
});

it('shows Run Now to whoever the server lets run checks, whatever the role', () => {
  renderFooter(['viewer'], { canaries: ['read', 'run'] });
  expect(screen.getByRole('button', { name: 'Run Now' })).toBeTruthy();
});

it('hides Run Now for a deleted check', () => {
  renderFooter(['admin'], { canaries: ['read', 'run'] }, { ...CHECK, deleted_at: '2024-01-01T00:00:00Z' });
  expect(screen.queryByRole('button', { name: 'Run Now' })).toBeNull();
});

it('shows Attach as Evidence to whoever may write incidents', () => {
  renderFooter(['responder'], { incident: ['read', 'create', 'update'] });
  expect(screen.getByRole('button', { name: 'Attach as Evidence' })).toBeTruthy();
});

it('hides Attach as Evidence without write on incidents or with the incidents feature off', () => {
  renderFooter(['viewer'], { incident: ['read'] });
  expect(screen.queryByRole('button', { name: 'Attach as Evidence' })).toBeNull();
  cleanup();
  renderFooter(['admin'], { incident: ['read', 'create'] }, CHECK, false);
  expect(screen.queryByRole('button', { name: 'Attach as Evidence' })).toBeNull();
});
