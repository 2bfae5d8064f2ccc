import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { render } from '@testing-library/react';
import type { ReactElement } from 'react';
import { MemoryRouter, Route, Routes } from 'react-router';
import type { Schemas } from '../api/client';
import { SessionContext } from '../app/session';
import { ToastProvider } from '../app/toast';
import { createAuthorizer, type Rights } from '../lib/authorizer';

/** Renders screens at `url` as the shell would: a fresh query client, an
 * editor's session with `rights`, toasts, and a router over `routes` (path to element). */
export function renderScreen(routes: Record<string, ReactElement>, url: string, rights: Rights) {
  const session = {
    user: { id: 'p1', name: 'Pat' } as Schemas['Person'],
    authorizer: createAuthorizer(['editor'], rights),
    isEnabled: () => true,
  };
  return render(
    <QueryClientProvider client={new QueryClient({ defaultOptions: { queries: { retry: false } } })}>
      <SessionContext.Provider value={session}>
        <ToastProvider>
          <MemoryRouter initialEntries={[url]}>
            <Routes>
              {Object.entries(routes).map(([path, element]) => (
                <Route key={path} path={path} element={element} />
              ))}
            </Routes>
          </MemoryRouter>
        </ToastProvider>
      </SessionContext.Provider>
    </QueryClientProvider>,
  );
}
