// @vitest-environment jsdom
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { cleanup, render, screen } from '@testing-library/react';
import { afterEach, expect, it } from 'vitest';
import type { Schemas } from '../../api/client';
import { SessionContext } from '../../app/session';
import { ToastProvider } from '../../app/toast';
import { createAuthorizer, type Rights } from '../../lib/authorizer';
import { ScrapeNowButton } from './ScrapeNowButton';

afterEach(cleanup);

function renderButton(roles: string[], rights: Rights) {
  const session = {
    user: { id: 'p1', name: 'Pat' } as Schemas['Person'],
    authorizer: createAuthorizer(roles, rights),
    isEnabled: () => true,
  };
  render(
    <QueryClientProvider client={new QueryClient()}>
      <SessionContext.Provider value={session}>
        <ToastProvider>
          <ScrapeNowButton id="s1" />
        </ToastProvider>
      </SessionContext.Provider>
    </QueryClientProvider>,
  );
}

it('shows Scrape now to whoever may update scrapers', () => {
  renderButton(['editor'], { config_scrapers: ['read', 'create', 'update', 'delete'] });
  expect(screen.getByRole('button', { name: 'Scrape now' })).toBeTruthy();
});

it('hides Scrape now from those who may only read or create scrapers', () => {
  renderButton(['viewer'], { config_scrapers: ['read'] });
  expect(screen.queryByRole('button', { name: 'Scrape now' })).toBeNull();
  cleanup();
  renderButton(['editor'], { config_scrapers: ['read', 'create'] });
  expect(screen.queryByRole('button', { name: 'Scrape now' })).toBeNull();
});
